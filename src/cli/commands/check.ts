// `bcsim check <scenario…>`: evaluate each scenario's `expect` block; exit 0 if
// every assertion holds, 1 if one fails (with the command that reproduces it),
// 2 on bad input: a bad flag, or an assertion that names no summary field.
// `--seeds 1..N` sweeps seeds in order and names the first failing one with a
// command that reproduces it.
import {
  OP_SYMBOL,
  PathError,
  checkScenario,
  failedAssertion,
  expectPathProblem,
  modesToCheck,
  writeJunitFile,
  parseSeedList,
} from '../../analysis/check/index.js';
import type { CheckRun } from '../../analysis/check/index.js';
import { terminalStyle } from '../../core/output/index.js';
import { checkWorkBudget } from '../../model/scenario/index.js';
import type { CliIO } from '../io.js';
import { EXIT_FAILED, EXIT_OK, UsageError, writingTo } from '../io.js';
import { durationFlag, probabilityFlag, seedFlag } from '../options.js';
import { outFileFlag } from '../out-file.js';
import { modeSpec, switchSets } from '../switch-flags.js';
import { progressFor } from '../progress.js';
import { loadForCli } from '../scenario-ref.js';
import { phasePlanWarner } from '../warnings.js';

export interface CheckFlags {
  mode?: string;
  seed?: string;
  seeds?: string;
  set?: string[];
  switch?: string[];
  duration?: string;
  loss?: string;
  junit?: string;
  json?: boolean;
  checkDeterminism?: boolean;
}

type Chalk = ReturnType<typeof terminalStyle>;
/** Checks passed, failed, and not applicable (a run that ended inside its phase plan). */
type Tally = { ok: number; bad: number; notApplicable: number };

export function checkCommand(refs: string[], flags: CheckFlags, io: CliIO): number {
  // Every flag is checked before anything runs: a bad value fails now, not after the runs.
  const modeFlag = modeSpec(flags.mode);
  const mode = modeFlag.preset;
  const seeds = seedsFlag(flags);
  const durationUs = durationFlag('--duration', flags.duration, { clock: 'simulated' });
  const junit = outFileFlag('--junit', flags.junit, io.cwd);
  const sets = [...(flags.set ?? []), ...modeFlag.sets, ...switchSets(flags.switch)];
  const loss = probabilityFlag('--loss', flags.loss);
  const scenarios = refs.map((ref) => ({ ref, scenario: loadForCli(ref, sets, io, loss) }));
  for (const { scenario } of scenarios) {
    if (Object.keys(scenario.expect).length === 0 && !flags.checkDeterminism) {
      throw new UsageError(
        `${scenario.source}: expect: no expectations to check (add an expect block, or use --check-determinism)`,
      );
    }
    checkWorkBudget(scenario, durationUs ?? scenario.durationUs);
    const problem = expectPathProblem(
      scenario,
      modesToCheck(scenario, { mode, checkDeterminism: flags.checkDeterminism }),
    );
    if (problem !== undefined) throw new UsageError(`${scenario.source}: expect: ${problem.message}`);
  }

  const sweep = flags.seeds !== undefined;
  const style = terminalStyle(io.stdoutIsTTY, io.env);
  const progress = progressFor(io, flags.json === true);
  const onProgress = progress
    ? (label: string, us: number, total: number) => progress.update(label, us, total)
    : undefined;
  const runs: CheckRun[] = [];
  const tally = { ok: 0, bad: 0, notApplicable: 0 };
  const sayCut = phasePlanWarner(io);
  // Seed by seed, in the order given, so the first failure found is at the first failing seed.
  for (const seed of seeds ?? [undefined]) {
    for (const { ref, scenario } of scenarios) {
      let checked: CheckRun[];
      try {
        checked = checkScenario(ref, scenario, {
          mode,
          seed,
          durationUs,
          loss,
          checkDeterminism: flags.checkDeterminism,
          onProgress,
        });
      } catch (error) {
        if (error instanceof PathError) throw new UsageError(`${scenario.source}: expect: ${error.message}`);
        throw error;
      }
      runs.push(...checked);
      for (const run of checked) sayCut(run.settings.phasePlanCut);
      // Each run's lines as soon as it is done: a long sweep in CI shows where it is.
      const text = checked
        .map((run) => (sweep ? renderSweepRun(run, style, tally) : renderRun(run, style, tally)))
        .join('');
      if (!flags.json) {
        progress?.done();
        io.stdout(text);
      }
    }
  }
  progress?.done();
  if (junit !== undefined)
    writingTo(`--junit ${flags.junit}`, () => writeJunitFile(junit, runs, { seedInNames: sweep }));
  const passed = runs.every((r) => r.pass);
  const failed = runs.filter((r) => !r.pass);
  const failingSeeds = [...new Set(failed.map((r) => r.seed))];
  const first = failed[0];
  if (flags.json) {
    const firstFailure =
      first === undefined
        ? null
        : {
            seed: first.seed,
            scenario: first.scenario,
            ref: first.ref,
            mode: first.mode,
            recheck: first.recheck,
            reproduce: first.reproduce,
          };
    io.stdout(`${JSON.stringify({ passed, failingSeeds, firstFailure, runs }, null, 2)}\n`);
  } else {
    const notApplicable =
      tally.notApplicable > 0 ? `, ${tally.notApplicable} not applicable (the run ended inside its phase plan)` : '';
    const lines = [
      `${runs.length} run${runs.length === 1 ? '' : 's'}: ${tally.ok} passed, ${tally.bad} failed${notApplicable}`,
    ];
    if (sweep) {
      const total = seeds?.length ?? 0;
      if (first === undefined) lines.push(style.green(`seeds ${flags.seeds}: all ${total} passed`));
      else {
        const shown =
          failingSeeds.slice(0, 20).join(', ') +
          (failingSeeds.length > 20 ? `, … (${failingSeeds.length - 20} more)` : '');
        lines.push(style.red(`seeds ${flags.seeds}: ${failingSeeds.length} of ${total} failed: ${shown}`));
        lines.push(
          style.bold(`first failing seed: ${first.seed} (${first.scenario} [${first.mode}]); reproduce it with:`),
        );
        lines.push(`  ${first.recheck}`);
      }
    }
    io.stdout(`${lines.join('\n')}\n`);
  }
  return passed ? EXIT_OK : EXIT_FAILED;
}

/** --seed N or --seeds LIST as the seeds to run; undefined: each scenario's own seed. */
function seedsFlag(flags: CheckFlags): number[] | undefined {
  if (flags.seeds === undefined) {
    const seed = seedFlag(flags.seed);
    return seed === undefined ? undefined : [seed];
  }
  if (flags.seed !== undefined) throw new UsageError('--seeds: give either --seed or --seeds, not both');
  const parsed = parseSeedList(flags.seeds);
  if ('problem' in parsed) throw new UsageError(`--seeds: ${parsed.problem}`);
  return parsed.seeds;
}

/** Every assertion of the run, then the command that reproduces it if it failed. */
function renderRun(run: CheckRun, style: Chalk, tally: Tally): string {
  const lines: string[] = [style.bold(`${run.scenario} [${run.mode}] seed ${run.seed}`)];
  for (const a of run.results) {
    if (a.notApplicable !== undefined) {
      tally.notApplicable++;
      lines.push(
        style.dim(
          `  – ${a.path} = ${a.actual}  (expected ${OP_SYMBOL[a.op]} ${a.expected}): not applicable, ${a.notApplicable}`,
        ),
      );
      continue;
    }
    a.pass ? tally.ok++ : tally.bad++;
    const mark = a.pass ? style.green('✓') : style.red('✗');
    lines.push(`  ${mark} ${a.path} = ${a.actual}  (expected ${OP_SYMBOL[a.op]} ${a.expected})`);
  }
  if (run.determinism) {
    const d = run.determinism;
    d.identical ? tally.ok++ : tally.bad++;
    lines.push(
      d.identical
        ? `  ${style.green('✓')} determinism: two runs, ${d.datagrams} identical datagrams`
        : `  ${style.red('✗')} determinism: ${d.message}`,
    );
  }
  if (!run.pass) lines.push(`  reproduce: ${run.reproduce}`);
  return `${lines.join('\n')}\n`;
}

/** In a sweep: one line for a run that passed; the failed assertions and the reproduction for one that did not. */
function renderSweepRun(run: CheckRun, style: Chalk, tally: Tally): string {
  const unjudged = run.results.filter((a) => a.notApplicable !== undefined).length;
  const checks = run.results.length - unjudged + (run.determinism ? 1 : 0);
  const failedResults = run.results.filter(failedAssertion);
  const bad = failedResults.length + (run.determinism && !run.determinism.identical ? 1 : 0);
  tally.ok += checks - bad;
  tally.bad += bad;
  tally.notApplicable += unjudged;
  const title = `${run.scenario} [${run.mode}] seed ${run.seed}`;
  const held = `${checks} check${checks === 1 ? '' : 's'}`;
  const rest = unjudged > 0 ? `, ${unjudged} not applicable` : '';
  if (run.pass) return `${style.green('✓')} ${title}: ${held} passed${rest}\n`;
  const lines = [`${style.red('✗')} ${style.bold(title)}: ${bad} of ${held} failed${rest}`];
  for (const a of failedResults)
    lines.push(`  ${style.red('✗')} ${a.path} = ${a.actual}  (expected ${OP_SYMBOL[a.op]} ${a.expected})`);
  if (run.determinism && !run.determinism.identical)
    lines.push(`  ${style.red('✗')} determinism: ${run.determinism.message}`);
  lines.push(`  reproduce: ${run.recheck}`);
  lines.push(`  summary:   ${run.reproduce}`);
  return `${lines.join('\n')}\n`;
}
