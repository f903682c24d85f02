// `bcsim analyze FILE [--json] [--against <scenario> [--mode M] [--seed N] [--duration D]]`:
// the figures bcsim's model reports, measured from a capture's wire alone, and
// optionally beside the same figures of a simulated run.
import { resolve } from 'node:path';
import {
  analyzeScenario,
  analyzeCapture,
  pairConnections,
  renderAgainst,
  renderCaptureAnalysis,
} from '../../analysis/capture/index.js';
import type { SimulatedAnalysis, CaptureAnalysis, AckRuleName } from '../../analysis/capture/index.js';
import type { CaptureError } from '../../core/pcap/index.js';
import { terminalStyle } from '../../core/output/index.js';
import type { CliIO } from '../io.js';
import { EXIT_OK, EXIT_USAGE, UsageError } from '../io.js';
import { durationFlag, probabilityFlag, seedFlag } from '../options.js';
import { progressFor } from '../progress.js';
import { loadForCli } from '../scenario-ref.js';
import { modeSpec, switchSets } from '../switch-flags.js';

export const AGAINST_SCHEMA = 'bcsim.analyze-against/2';

export interface AnalyzeFlags {
  json?: boolean;
  against?: string;
  mode?: string;
  seed?: string;
  duration?: string;
  loss?: string;
  set?: string[];
  switch?: string[];
  ackRule?: string;
}

const ACK_RULES = ['auto', 'two-pass', 'single-pass', 'immediate'];

/** One line naming the file, the byte offset and the reason. */
export function captureErrorLine(file: string, error: CaptureError): string {
  return `${file}: offset ${error.offset}: ${error.reason}`;
}

export function analyzeCommand(file: string, flags: AnalyzeFlags, io: CliIO): number {
  if (flags.against === undefined) {
    for (const [flag, value] of [
      ['--mode', flags.mode],
      ['--seed', flags.seed],
      ['--duration', flags.duration],
      ['--loss', flags.loss],
      ['--set', flags.set],
      ['--switch', flags.switch],
    ] as const) {
      if (value !== undefined) throw new UsageError(`analyze: ${flag} needs --against <scenario>`);
    }
  }
  if (flags.ackRule !== undefined && !ACK_RULES.includes(flags.ackRule)) {
    throw new UsageError(`--ack-rule: expected ${ACK_RULES.join(', ')}, got "${flags.ackRule}"`);
  }
  const ackRule = flags.ackRule === undefined || flags.ackRule === 'auto' ? undefined : (flags.ackRule as AckRuleName);
  // Flags and the scenario are checked before the capture is read.
  const mode = modeSpec(flags.mode);
  const seed = seedFlag(flags.seed);
  const durationUs = durationFlag('--duration', flags.duration, { clock: 'simulated' });
  const loss = probabilityFlag('--loss', flags.loss);
  const scenario =
    flags.against === undefined
      ? null
      : loadForCli(flags.against, [...(flags.set ?? []), ...mode.sets, ...switchSets(flags.switch)], io, loss);

  const result = analyzeCapture(resolve(io.cwd, file), { ackRule });
  if (!result.ok) throw new UsageError(captureErrorLine(file, result.error));
  const capture: CaptureAnalysis = { ...result.analysis, source: { ...result.analysis.source, file } };

  let simulated: SimulatedAnalysis | null = null;
  if (scenario !== null) {
    const progress = progressFor(io, flags.json === true);
    const totalUs = durationUs ?? scenario.durationUs;
    simulated = analyzeScenario(scenario, {
      preset: mode.preset,
      seed,
      durationUs,
      ackRule,
      onProgress: progress ? (us) => progress.update(scenario.name, us, totalUs) : undefined,
    });
    progress?.done();
  }

  const style = terminalStyle(io.stdoutIsTTY, io.env);
  if (flags.json) {
    const document =
      simulated === null
        ? capture
        : { schema: AGAINST_SCHEMA, capture, simulated, pairs: pairConnections(capture, simulated) };
    io.stdout(`${JSON.stringify(document)}\n`);
  } else {
    io.stdout(simulated === null ? renderCaptureAnalysis(capture, style) : renderAgainst(capture, simulated, style));
  }
  // Reading stopped part-way: everything before was analysed and shown, but the file is bad.
  if (capture.source.error !== null) {
    io.stderr(`bcsim: ${captureErrorLine(file, capture.source.error)} (the analysis covers the file up to there)\n`);
    return EXIT_USAGE;
  }
  return EXIT_OK;
}
