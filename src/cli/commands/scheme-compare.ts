// `bcsim compare <scheme scenario>`: rtype-deaths runs the R-Type presets
// documented, implemented and repaired; schemes-side-by-side runs BC stock, BC fixed,
// R-Type documented and R-Type repaired on one workload. A table on the terminal
// and the four report files, as the BC compare writes them.
import { relative, resolve } from 'node:path';
import {
  SCHEME_REPORT_FILES,
  renderRtypeCompare,
  renderSchemesCompare,
  rtypeSummaryJson,
  schemesSummaryJson,
  writeRtypeReport,
  writeSchemesReport,
} from '../../analysis/report/index.js';
import { OutPathError, terminalStyle, outDirProblem } from '../../core/output/index.js';
import {
  SchemeScenarioError,
  loadSchemeScenario,
  runRtypePresets,
  runSchemesSideBySide,
} from '../../rtype/schemes/index.js';
import type { SchemeScenario } from '../../rtype/schemes/index.js';
import type { CliIO } from '../io.js';
import { EXIT_OK, UsageError, writingTo } from '../io.js';
import { usToMs } from '../../core/engine/index.js';
import { sha256Hex } from '../../model/session/index.js';
import { durationFlag, seedFlag } from '../options.js';
import { EXPERIMENTS_DIR } from './compare-flags.js';
import type { CompareFlags } from './compare-flags.js';

/** BC-only flags, refused with one line: a scheme scenario has its own fixed columns. */
const BC_ONLY: ReadonlyArray<{ key: keyof CompareFlags; flag: string }> = [
  { key: 'set', flag: '--set' },
  { key: 'switch', flag: '--switch' },
  { key: 'config', flag: '--config' },
  { key: 'a', flag: '--a' },
  { key: 'b', flag: '--b' },
  { key: 'causes', flag: '--causes' },
  { key: 'sensitivity', flag: '--sensitivity' },
  { key: 'failOn', flag: '--fail-on' },
  { key: 'pcap', flag: '--pcap' },
  { key: 'pcapPlaintext', flag: '--pcap-plaintext' },
  { key: 'jobs', flag: '--jobs' },
  { key: 'loss', flag: '--loss' },
  { key: 'mode', flag: '--mode' },
  { key: 'wide', flag: '--wide' },
];

export function schemeCompareCommand(ref: string, flags: CompareFlags, io: CliIO): number {
  const scenario = load(ref, io);
  const refused = BC_ONLY.find(({ key }) => flags[key] !== undefined && flags[key] !== false);
  if (refused !== undefined)
    throw new UsageError(
      `${refused.flag}: not available for ${scenario.name}, a scheme scenario (${columnsOf(scenario)}); it takes --duration, --seed, --out-dir and --json`,
    );
  const durationUs = durationFlag('--duration', flags.duration, { clock: 'simulated' });
  const seed = seedFlag(flags.seed);
  const experiment = durationUs !== undefined || seed !== undefined;
  const defaultOut = experiment
    ? `${EXPERIMENTS_DIR}/${scenario.name}-${experimentId(flags)}`
    : `reports/${scenario.name}`;
  const label = flags.out === undefined ? defaultOut : `--out-dir ${flags.out === '' ? "''" : flags.out}`;
  const dir = resolve(io.cwd, flags.out ?? defaultOut);
  // Checked before running: a bad --out-dir fails now, not after the runs.
  const problem = writingTo(label, () =>
    outDirProblem(flags.out ?? dir, SCHEME_REPORT_FILES, io.cwd, flags.out === undefined),
  );
  if (problem !== undefined) throw new UsageError(`${label}: ${problem}`);
  const options = { durationMs: durationUs === undefined ? undefined : usToMs(durationUs), seed };
  const style = terminalStyle(io.stdoutIsTTY, io.env);
  const outcome = schemeError(() => {
    if (scenario.scheme === 'rtype') {
      const comparison = runRtypePresets(scenario, options);
      return {
        json: rtypeSummaryJson(comparison),
        table: renderRtypeCompare(comparison, style),
        write: () => writeRtypeReport(dir, comparison),
      };
    }
    const comparison = runSchemesSideBySide(scenario, options);
    return {
      json: schemesSummaryJson(comparison),
      table: renderSchemesCompare(comparison, style),
      write: () => writeSchemesReport(dir, comparison),
    };
  });
  const written = writingTo(label, () => {
    try {
      return outcome.write();
    } catch (error) {
      // Foreign files that appeared while the simulation ran: still refused.
      if (error instanceof OutPathError) throw new UsageError(`${label}: ${error.message}`);
      throw error;
    }
  });
  if (flags.json) {
    io.stdout(outcome.json);
    return EXIT_OK;
  }
  const show = (path: string) => (relative(io.cwd, path).startsWith('..') ? path : relative(io.cwd, path) || '.');
  io.stdout(outcome.table);
  io.stdout(
    `report written to ${show(dir)}/ (open ${show(written.find((f) => f.endsWith('report.html')) as string)})\n`,
  );
  return EXIT_OK;
}

function columnsOf(scenario: SchemeScenario): string {
  return scenario.scheme === 'rtype'
    ? 'it runs documented, implemented and repaired'
    : 'it runs BC stock, BC fixed, R-Type documented and R-Type repaired';
}

function load(ref: string, io: CliIO): SchemeScenario {
  return schemeError(() => loadSchemeScenario(ref, io.cwd));
}

/** A scheme scenario's error (a field, a --duration the R-Type config refuses) is one usage line. */
function schemeError<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof SchemeScenarioError) throw new UsageError(error.message);
    throw error;
  }
}

/** A short stable id of what the experiment changed, so different experiments get different folders. */
function experimentId(flags: CompareFlags): string {
  return sha256Hex(JSON.stringify([flags.duration, flags.seed])).slice(0, 8);
}
