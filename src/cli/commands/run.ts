// `bcsim run <scenario>`: one run, a short table or one JSON summary.
import { renderSummaryTable } from '../../report/summary-table.js';
import { settingsLines } from '../../report/settings.js';
import { makeChalk } from '../../report/style.js';
import { runScenario } from '../../session/run.js';
import type { CliIO } from '../io.js';
import { EXIT_FAILED, EXIT_OK } from '../io.js';
import { runTwice } from '../../check/determinism.js';
import { durationFlag, probabilityFlag, seedFlag } from '../options.js';
import { modeSpec, switchSets } from '../switch-flags.js';
import { warn } from '../warnings.js';
import { progressFor } from '../progress.js';
import { loadForCli } from '../scenario-ref.js';

export interface RunFlags {
  mode?: string;
  seed?: string;
  duration?: string;
  loss?: string;
  set?: string[];
  switch?: string[];
  json?: boolean;
  checkDeterminism?: boolean;
}

export function runCommand(ref: string, flags: RunFlags, io: CliIO): number {
  const loss = probabilityFlag('--loss', flags.loss);
  const mode = modeSpec(flags.mode);
  const scenario = loadForCli(ref, [...(flags.set ?? []), ...mode.sets, ...switchSets(flags.switch)], io, loss);
  const durationUs = durationFlag('--duration', flags.duration);
  const progress = progressFor(io, flags.json === true);
  const totalUs = durationUs ?? scenario.durationUs;
  const options = {
    preset: mode.preset,
    seed: seedFlag(flags.seed),
    durationUs,
    loss,
    onProgress: progress ? (us: number) => progress.update(scenario.name, us, totalUs) : undefined,
  };
  const { result, verdict } = flags.checkDeterminism ? runTwice(scenario, options) : { result: runScenario(scenario, options), verdict: null };
  progress?.done();
  const summary = result.summary;
  warn(io, summary.settings.warnings);
  if (flags.json) io.stdout(`${JSON.stringify(summary)}\n`);
  else io.stdout(renderSummaryTable(summary, makeChalk(io.stdoutIsTTY, io.env)) + settingsLines(summary.settings));
  if (verdict && !verdict.identical) {
    io.stderr(`bcsim: determinism: ${verdict.message}\n`);
    return EXIT_FAILED;
  }
  if (verdict && !flags.json) io.stdout(`determinism: two runs, ${verdict.datagrams} identical datagrams\n`);
  return EXIT_OK;
}
