// `bcsim check <scenario…>`: evaluate each scenario's `expect` block; exit 0 if
// every assertion holds, 1 if one fails (with the command that reproduces it),
// 2 if an assertion names no summary field.
import { resolve } from 'node:path';
import { OP_SYMBOL, PathError } from '../../check/assertions.js';
import { checkScenario } from '../../check/check.js';
import type { CheckRun } from '../../check/check.js';
import { writeJunitFile } from '../../check/junit.js';
import { outFileProblem } from '../../report/out-dir.js';
import { makeChalk } from '../../report/style.js';
import { effectiveSettings } from '../../session/settings.js';
import type { EffectiveSettings } from '../../session/settings.js';
import type { CliIO } from '../io.js';
import { EXIT_FAILED, EXIT_OK, UsageError, writingTo } from '../io.js';
import { presetFlag } from '../options.js';
import { progressFor } from '../progress.js';
import { loadForCli } from '../scenario-ref.js';

export interface CheckFlags {
  mode?: string;
  junit?: string;
  json?: boolean;
  checkDeterminism?: boolean;
}

export function checkCommand(refs: string[], flags: CheckFlags, io: CliIO): number {
  const mode = presetFlag(flags.mode);
  // Checked before running (issue 9): a bad path fails now, not after the runs.
  const junit = flags.junit === undefined ? undefined : junitTarget(flags.junit, io.cwd);
  const scenarios = refs.map((ref) => ({ ref, scenario: loadForCli(ref, [], io) }));
  const runs: CheckRun[] = [];
  /** Each run's effective settings, for --json (check runs the scenario as loaded, in each mode). */
  const settings: EffectiveSettings[] = [];
  const progress = progressFor(io, flags.json === true);
  const onProgress = progress ? (label: string, us: number, total: number) => progress.update(label, us, total) : undefined;
  for (const { ref, scenario } of scenarios) {
    const hasExpectations = Object.keys(scenario.expect).length > 0;
    if (!hasExpectations && !flags.checkDeterminism) {
      throw new UsageError(`${scenario.source}: expect: no expectations to check (add an expect block, or use --check-determinism)`);
    }
    try {
      const checked = checkScenario(ref, scenario, { mode, checkDeterminism: flags.checkDeterminism, onProgress });
      runs.push(...checked);
      settings.push(...checked.map((run) => effectiveSettings(scenario, { preset: run.mode, seed: run.seed })));
    } catch (error) {
      if (error instanceof PathError) throw new UsageError(`${scenario.source}: expect: ${error.message}`);
      throw error;
    }
  }
  progress?.done();
  if (junit !== undefined) writingTo(`--junit ${flags.junit}`, () => writeJunitFile(junit, runs));
  const passed = runs.every((r) => r.pass);
  if (flags.json) {
    io.stdout(`${JSON.stringify({ passed, runs: runs.map((run, i) => ({ ...run, settings: settings[i] })) }, null, 2)}\n`);
  } else {
    io.stdout(render(runs, makeChalk(io.stdoutIsTTY, io.env)));
  }
  return passed ? EXIT_OK : EXIT_FAILED;
}

function junitTarget(file: string, cwd: string): string {
  const label = `--junit ${file === '' ? "''" : file}`;
  const problem = writingTo(label, () => outFileProblem(file, cwd));
  if (problem !== undefined) throw new UsageError(`${label}: ${problem}`);
  return resolve(cwd, file);
}

function render(runs: CheckRun[], chalk: ReturnType<typeof makeChalk>): string {
  const lines: string[] = [];
  let ok = 0;
  let bad = 0;
  for (const run of runs) {
    lines.push(chalk.bold(`${run.scenario} [${run.mode}] seed ${run.seed}`));
    for (const a of run.results) {
      a.pass ? ok++ : bad++;
      const mark = a.pass ? chalk.green('✓') : chalk.red('✗');
      lines.push(`  ${mark} ${a.path} = ${a.actual}  (expected ${OP_SYMBOL[a.op]} ${a.expected})`);
    }
    if (run.determinism) {
      const d = run.determinism;
      d.identical ? ok++ : bad++;
      lines.push(d.identical ? `  ${chalk.green('✓')} determinism: two runs, ${d.datagrams} identical datagrams` : `  ${chalk.red('✗')} determinism: ${d.message}`);
    }
    if (!run.pass) lines.push(`  reproduce: ${run.reproduce}`);
  }
  lines.push(`${runs.length} run${runs.length === 1 ? '' : 's'}: ${ok} passed, ${bad} failed`);
  return `${lines.join('\n')}\n`;
}
