// `bcsim run <scenario>`: one run, a short table or one JSON summary.
import { renderSummaryTable } from '../../report/summary-table.js';
import { makeChalk } from '../../report/style.js';
import { runScenario } from '../../session/run.js';
import type { CliIO } from '../io.js';
import { EXIT_OK } from '../io.js';
import { durationFlag, presetFlag, probabilityFlag, seedFlag } from '../options.js';
import { loadForCli } from '../scenario-ref.js';

export interface RunFlags {
  mode?: string;
  seed?: string;
  duration?: string;
  loss?: string;
  set?: string[];
  json?: boolean;
}

export function runCommand(ref: string, flags: RunFlags, io: CliIO): number {
  const loss = probabilityFlag('--loss', flags.loss);
  const sets = [...(loss !== undefined ? [`link.both.loss=${loss}`] : []), ...(flags.set ?? [])];
  const scenario = loadForCli(ref, sets, io);
  const { summary } = runScenario(scenario, {
    preset: presetFlag(flags.mode),
    seed: seedFlag(flags.seed),
    durationUs: durationFlag('--duration', flags.duration),
  });
  if (flags.json) io.stdout(`${JSON.stringify(summary)}\n`);
  else io.stdout(renderSummaryTable(summary, makeChalk(io.stdoutIsTTY, io.env)));
  return EXIT_OK;
}
