// `bcsim compare <scenario>`: stock against fixed (and, with --causes, each
// fragment-ACK cause), a table on the terminal and four report files.
import { relative, resolve, sep } from 'node:path';
import { FailOnError, checkFailOn, failures, parseFailOn } from '../../analysis/check/index.js';
import {
  runComparison,
  modesWithCauses,
  STOCK_AND_FIXED,
  sensitivityModes,
  verdicts,
  renderCompareTable,
  summaryJson,
  REPORT_FILES,
  writeReport,
} from '../../analysis/report/index.js';
import { terminalStyle, OutPathError, outDirProblem, TEXT_WIDTH, wrapLine } from '../../core/output/index.js';
import type { ModeSpec } from '../../analysis/report/index.js';
import { isSchemeScenarioRef } from '../../model/scenario/index.js';
import { effectiveSettings, sha256Hex } from '../../model/session/index.js';
import { defaultCompareJobs, runComparisonInWorkers } from '../../tools/sweep/index.js';
import { parseConfigs } from '../configs.js';
import type { ConfigSpec } from '../configs.js';
import { switchSets } from '../switch-flags.js';
import type { Edit } from '../switch-flags.js';
import { phasePlanWarner, warn } from '../warnings.js';
import type { CliIO } from '../io.js';
import { EXIT_FAILED, EXIT_OK, UsageError, writingTo } from '../io.js';
import { durationFlag, jobsFlag, probabilityFlag, seedFlag } from '../options.js';
import { progressFor } from '../progress.js';
import { loadForCli } from '../scenario-ref.js';
import { captureComment } from './run.js';
import { pcapFlag } from '../pcap-flag.js';
import { captureTargetProblem, columnCapturePath, CaptureSet } from '../../analysis/capture/index.js';
import { EXPERIMENTS_DIR } from './compare-flags.js';
import type { CompareFlags } from './compare-flags.js';

export async function compareCommand(ref: string, flags: CompareFlags, io: CliIO): Promise<number> {
  // A scheme scenario (rtype-deaths, schemes-side-by-side) has its own columns and reports.
  if (isSchemeScenarioRef(ref, io.cwd))
    return (await import('./scheme-compare.js')).schemeCompareCommand(ref, flags, io);
  // compare's columns are its modes: --mode, which every other simulating command takes, points to them.
  if (flags.mode !== undefined)
    throw new UsageError(
      `--mode ${flags.mode}: compare runs stock and fixed side by side; choose the columns with --config 'LABEL:${flags.mode}' (2 to 8), or set a switch in every column with --switch`,
    );
  const loss = probabilityFlag('--loss', flags.loss);
  const common = [...(flags.set ?? []), ...switchSets(flags.switch)];
  const scenario = loadForCli(ref, common, io, loss);
  const durationUs = durationFlag('--duration', flags.duration, { clock: 'simulated' });
  const seed = seedFlag(flags.seed);
  const conditions = (flags.failOn ?? []).map((text) => usage(() => parseFailOn(text)));
  const configs = parseConfigs([
    ...(flags.a === undefined ? [] : [{ flag: '--a', text: flags.a }]),
    ...(flags.b === undefined ? [] : [{ flag: '--b', text: flags.b }]),
    ...(flags.config ?? []).map((text) => ({ flag: '--config', text })),
  ]);
  if (configs.length > 0 && flags.causes)
    throw new UsageError('--causes: not with --config/--a/--b (add a column per cause with --config instead)');
  if (configs.length === 1)
    throw new UsageError(`--config ${configs[0].source}: a comparison needs at least two configurations`);
  const modes: ModeSpec[] =
    configs.length > 0
      ? configs.map((c) => ({
          label: c.label,
          preset: c.preset,
          scenario: configScenario(ref, common, c, io, loss),
          source: c.source,
        }))
      : flags.causes
        ? modesWithCauses()
        : [...STOCK_AND_FIXED];
  usage(() => checkFailOn(conditions, scenario, modes));
  // An experiment (anything but the built-in's defaults) never writes into the committed reports/<name>/.
  const experiment =
    common.length > 0 ||
    configs.length > 0 ||
    flags.causes === true ||
    flags.sensitivity === true ||
    durationUs !== undefined ||
    seed !== undefined ||
    loss !== undefined;
  const defaultOut = experiment
    ? `${EXPERIMENTS_DIR}/${scenario.name}-${experimentId(flags)}`
    : `reports/${scenario.name}`;
  // Checked before running: a bad --out-dir fails now, not after the runs.
  const label = flags.out === undefined ? defaultOut : `--out-dir ${flags.out === '' ? "''" : flags.out}`;
  const dir = resolve(io.cwd, flags.out ?? defaultOut);
  const problem = writingTo(label, () =>
    outDirProblem(flags.out ?? dir, REPORT_FILES, io.cwd, flags.out === undefined),
  );
  if (problem !== undefined) throw new UsageError(`${label}: ${problem}`);
  const pcaps = capturePaths(flags, modes, io.cwd, dir);
  const progress = progressFor(io, flags.json === true);
  for (const spec of modes)
    warn(
      io,
      effectiveSettings(spec.scenario ?? scenario, { preset: spec.preset, switches: spec.switches }).warnings,
      spec.label,
    );
  // With --pcap each column's capture records the compared run itself, and all files appear together.
  const captures = pcaps.length === 0 ? null : new CaptureSet({ plaintext: flags.pcapPlaintext === true });
  const recorders = modes.map((spec, i) => {
    if (captures === null) return undefined;
    const comment = captureComment(
      'compare',
      scenario.name,
      `column ${spec.source ?? spec.label}`,
      seed ?? scenario.seed,
      durationUs ?? scenario.durationUs,
    );
    return writingTo(`--pcap ${flags.pcap}`, () => captures.open(pcaps[i], comment)).recorder;
  });
  const onProgress = progress
    ? (label: string, us: number, total: number) => progress.update(label, us, total)
    : undefined;
  // Columns are independent seeded runs: on worker threads the output is the same. A capture
  // records inside the run, so --pcap keeps the columns in this thread.
  const sensitivity = flags.sensitivity === true;
  const columns = modes.length + (sensitivity ? sensitivityModes(scenario, modes).length : 0);
  const jobs =
    captures !== null
      ? 1
      : (jobsFlag(flags.jobs) ?? defaultCompareJobs(scenario, columns, durationUs ?? scenario.durationUs));
  const parallel =
    jobs > 1
      ? await runComparisonInWorkers(scenario, { modes, durationUs, seed, loss, onProgress, jobs, sensitivity })
      : null;
  const work = () => {
    const comparison =
      parallel ??
      runComparison(scenario, {
        modes,
        durationUs,
        seed,
        loss,
        onProgress,
        sensitivity,
        observerFor: (_spec, i) => recorders[i],
      });
    progress?.done();
    const written = writingTo(label, () => {
      try {
        return writeReport(dir, comparison);
      } catch (error) {
        // Foreign files that appeared while the simulation ran: still refused.
        if (error instanceof OutPathError) throw new UsageError(`${label}: ${error.message}`);
        throw error;
      }
    });
    return { comparison, written };
  };
  const { comparison, written } = captures === null ? work() : captures.guard(work);
  if (captures !== null) writingTo(`--pcap ${flags.pcap}`, () => captures.commit());
  if (flags.json) {
    io.stdout(summaryJson(comparison));
  } else {
    const wide = flags.wide === true;
    // The default text keeps to 120 columns; --wide keeps each verdict on one line.
    const wrap = (line: string) => (wide ? [line] : wrapLine(line, TEXT_WIDTH, '  '));
    io.stdout(renderCompareTable(comparison, terminalStyle(io.stdoutIsTTY, io.env), { wide }));
    for (const line of verdicts(comparison).flatMap(wrap)) io.stdout(`${line}\n`);
    const html = written.find((f) => f.endsWith('report.html')) as string;
    const show = (path: string) => (relative(io.cwd, path).startsWith('..') ? path : relative(io.cwd, path) || '.');
    for (const line of wrap(`report written to ${show(dir)}/ (open ${show(html)})`)) io.stdout(`${line}\n`);
  }
  const runs = comparison.runs.map((r) => ({
    label: r.spec.label,
    summary: r.summary,
    leaks: r.trends.filter((t) => t.trend.leak).map((t) => `${t.peer} ${t.metric}`),
  }));
  const failed = usage(() => failures(conditions, runs));
  const sayCut = phasePlanWarner(io);
  for (const r of comparison.runs) sayCut(r.summary.settings.phasePlanCut);
  for (const f of failed) io.stderr(`bcsim: --fail-on: ${f}\n`);
  return failed.length > 0 ? EXIT_FAILED : EXIT_OK;
}

/** `--pcap FILE`: one target per column, the label before the extension; all checked before anything runs. */
function capturePaths(flags: CompareFlags, modes: readonly ModeSpec[], cwd: string, outDir: string): string[] {
  // The report folder is replaced whole: a capture inside it would go with the old one.
  if (flags.pcap !== undefined && flags.pcap !== '' && resolve(cwd, flags.pcap).startsWith(`${outDir}${sep}`)) {
    throw new UsageError(
      `--pcap ${flags.pcap}: is inside the report folder ${outDir}, which is replaced whole; write the capture elsewhere`,
    );
  }
  const base = pcapFlag(flags, cwd);
  if (base === undefined) return [];
  const paths = modes.map((m) => columnCapturePath(base, m.label));
  const seen = new Map<string, string>();
  modes.forEach((m, i) => {
    const key = paths[i].toLowerCase();
    const other = seen.get(key);
    if (other !== undefined)
      throw new UsageError(
        `--pcap ${flags.pcap}: columns "${other}" and "${m.label}" would write the same file ${paths[i]}`,
      );
    seen.set(key, m.label);
    const problem = writingTo(`--pcap ${flags.pcap}`, () => captureTargetProblem(paths[i], cwd));
    if (problem !== undefined) throw new UsageError(`--pcap ${flags.pcap}: ${paths[i]}: ${problem}`);
  });
  return paths;
}

/** A short stable id of what the experiment changed, so different experiments get different folders. */
function experimentId(flags: CompareFlags): string {
  // --loss and --sensitivity join the list only when given, so the folders of earlier experiments keep their names.
  const what = JSON.stringify([
    flags.set,
    flags.switch,
    flags.a,
    flags.b,
    flags.config,
    flags.causes,
    flags.duration,
    flags.seed,
    ...(flags.loss === undefined ? [] : [flags.loss]),
    ...(flags.sensitivity === true ? ['sensitivity'] : []),
  ]);
  return sha256Hex(what).slice(0, 8);
}

/** A column's scenario; a bad item is blamed on the --config the user wrote, not on the --set it became. */
function configScenario(ref: string, common: readonly Edit[], config: ConfigSpec, io: CliIO, loss: number | undefined) {
  return loadForCli(ref, [...common, ...config.sets], io, loss);
}

function usage<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof FailOnError) throw new UsageError(error.message);
    throw error;
  }
}
