// `bcsim run <scenario>`: one run, a short table or one JSON summary.
// The capture, the tables and the determinism check load only for the runs that use
// them: loading them took a short `run --json` longer than its simulation.
import { usToSeconds } from '../../core/engine/index.js';
import { runScenario } from '../../model/session/index.js';
import type { CliIO } from '../io.js';
import { EXIT_FAILED, EXIT_OK, writingTo } from '../io.js';
import { durationFlag, probabilityFlag, seedFlag } from '../options.js';
import { modeSpec, switchSets } from '../switch-flags.js';
import { phasePlanWarner, warn } from '../warnings.js';
import { progressFor } from '../progress.js';
import { loadForCli } from '../scenario-ref.js';
import { capturedRunFailed, interruptibleRuns } from '../interrupt.js';

export interface RunFlags {
  mode?: string;
  seed?: string;
  duration?: string;
  loss?: string;
  set?: string[];
  switch?: string[];
  json?: boolean;
  checkDeterminism?: boolean;
  pcap?: string;
  pcapPlaintext?: boolean;
}

/** "bcsim run fragment-ack-bug, mode stock, seed 1, 120 s simulated": the section comment of a capture. */
export function captureComment(
  command: string,
  scenario: string,
  what: string,
  seed: number,
  durationUs: number,
): string {
  return `bcsim ${command} ${scenario}, ${what}, seed ${seed}, ${usToSeconds(durationUs)} s simulated`;
}

export async function runCommand(ref: string, flags: RunFlags, io: CliIO): Promise<number> {
  const pcap =
    flags.pcap === undefined && flags.pcapPlaintext !== true
      ? undefined
      : (await import('../pcap-flag.js')).pcapFlag(flags, io.cwd);
  const loss = probabilityFlag('--loss', flags.loss);
  const mode = modeSpec(flags.mode);
  const scenario = loadForCli(ref, [...(flags.set ?? []), ...mode.sets, ...switchSets(flags.switch)], io, loss);
  const durationUs = durationFlag('--duration', flags.duration, { clock: 'simulated' });
  const progress = progressFor(io, flags.json === true);
  const totalUs = durationUs ?? scenario.durationUs;
  const options = {
    preset: mode.preset,
    seed: seedFlag(flags.seed),
    durationUs,
    loss,
    onProgress: progress ? (us: number) => progress.update(scenario.name, us, totalUs) : undefined,
  };
  const check = flags.checkDeterminism ? await import('../../analysis/check/index.js') : undefined;
  const capture = pcap === undefined ? undefined : await import('../../analysis/capture/index.js');
  const captures = capture === undefined ? null : new capture.CaptureSet({ plaintext: flags.pcapPlaintext === true });
  let outcome;
  if (captures === null)
    outcome = check ? check.runTwice(scenario, options) : { result: runScenario(scenario, options), verdict: null };
  else {
    const comment = captureComment(
      'run',
      scenario.name,
      `mode ${flags.mode ?? scenario.preset}`,
      options.seed ?? scenario.seed,
      totalUs,
    );
    const file = captures.guard(() => writingTo(`--pcap ${flags.pcap}`, () => captures.open(pcap as string, comment)));
    const runs = interruptibleRuns(io);
    try {
      // As runTwice, with the capture watching the first run (an observer cannot change a run).
      const first = await runs.run(scenario, { ...options, observer: file.recorder, keepDigests: check !== undefined });
      outcome = {
        result: first,
        verdict: check ? check.compareRuns(first, await runs.run(scenario, { ...options, keepDigests: true })) : null,
      };
    } catch (error) {
      progress?.done();
      return capturedRunFailed(error, captures, `--pcap ${flags.pcap}`, io);
    } finally {
      runs.stop();
    }
  }
  const { result, verdict } = outcome;
  progress?.done();
  if (captures !== null) writingTo(`--pcap ${flags.pcap}`, () => captures.commit());
  const summary = result.summary;
  warn(io, summary.settings.warnings);
  phasePlanWarner(io)(summary.settings.phasePlanCut);
  if (flags.json) io.stdout(`${JSON.stringify(summary)}\n`);
  else {
    const { renderSummaryTable, settingsLines } = await import('../../analysis/report/index.js');
    const { terminalStyle } = await import('../../core/output/index.js');
    io.stdout(renderSummaryTable(summary, terminalStyle(io.stdoutIsTTY, io.env)) + settingsLines(summary.settings));
  }
  if (verdict && !verdict.identical) {
    io.stderr(`bcsim: determinism: ${verdict.message}\n`);
    return EXIT_FAILED;
  }
  if (verdict && !flags.json) io.stdout(`determinism: two runs, ${verdict.datagrams} identical datagrams\n`);
  return EXIT_OK;
}
