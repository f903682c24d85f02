// `bcsim swarm`: seeded random runs checked against the invariants (src/tools/swarm). Thin shell:
// flags, progress on a TTY, the report, the exit code.
import { msToSeconds } from '../../core/engine/index.js';
import {
  BASE_SCENARIO,
  DEFAULT_GENERATOR_SEED,
  likelyCause,
  MAX_SWARM_RUNS,
  runSwarm,
  swarmCommand,
  switchOptions,
  reproCommand,
  shellQuote,
} from '../../tools/swarm/index.js';
import type { RunOutcome } from '../../tools/swarm/index.js';
import type { CliIO } from '../io.js';
import { EXIT_FAILED, EXIT_OK, UsageError } from '../io.js';
import { seedFlag } from '../options.js';
import { SWITCH_NAMES, switchSets } from '../switch-flags.js';
import { loadForCli } from '../scenario-ref.js';

export interface SwarmFlags {
  runs?: string;
  seed?: string;
  index?: string;
  mode?: string;
  switch?: string[];
  all?: boolean;
  json?: boolean;
}

function wholeFlag(flag: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max)
    throw new UsageError(`${flag}: expected a whole number ${min}..${max.toLocaleString('en-US')}, got "${value}"`);
  return Number(value);
}

export function swarmCliCommand(flags: SwarmFlags, io: CliIO): number {
  const generatorSeed = seedFlag(flags.seed) ?? DEFAULT_GENERATOR_SEED;
  const index = wholeFlag('--index', flags.index, 0, Number.MAX_SAFE_INTEGER - MAX_SWARM_RUNS);
  if (index !== undefined && flags.runs !== undefined)
    throw new UsageError('--index runs one run: give --runs or --index, not both');
  const runs = index !== undefined ? 1 : (wholeFlag('--runs', flags.runs, 1, MAX_SWARM_RUNS) ?? 100);
  // --mode takes run's grammar: a preset, then +switch=value items, which join --switch.
  const [mode, ...modeSwitches] = (flags.mode ?? 'fixed').split('+');
  if (mode !== 'fixed' && mode !== 'stock')
    throw new UsageError(`--mode: expected fixed or stock, optionally followed by +switch=value, got "${flags.mode}"`);
  const switches = [...modeSwitches, ...(flags.switch ?? [])];
  try {
    switchOptions(mode, switches);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  for (const s of switches) {
    const name = s.slice(0, s.indexOf('='));
    if (!SWITCH_NAMES.includes(name))
      throw new UsageError(
        `--switch ${s}: unknown switch "${name}" (switches: ${SWITCH_NAMES.filter((n) => !n.includes('.')).join(', ')})`,
      );
  }
  // A value the scenario schema refuses is named now, not as an internal error in the first run.
  loadForCli(BASE_SCENARIO, switchSets(switches), io);

  // Progress as src/cli/progress.ts shows it: a TTY only, never with --json or under CI.
  const ci = io.env.CI !== undefined && io.env.CI !== '' && io.env.CI !== 'false';
  const live = io.stderrIsTTY && flags.json !== true && !ci;
  const t0 = performance.now(); // wall clock: CLI only
  const result = runSwarm({
    generatorSeed,
    from: index ?? 0,
    runs,
    preset: mode,
    switches,
    all: flags.all === true,
    onRun: live ? (done, failures) => io.stderr(`\rswarm: ${done}/${runs} runs, ${failures} failing   `) : undefined,
  });
  if (live) io.stderr('\r\x1b[2K');
  const wallS = msToSeconds(performance.now() - t0);
  const line = (o: RunOutcome) => swarmCommand(generatorSeed, o.spec.index, mode, switches);
  const partly = result.outcomes.filter((o) => o.violations.length === 0 && o.notExercised.length > 0);

  if (flags.json) {
    const failures = result.failures.map((o) => ({
      index: o.spec.index,
      seed: o.spec.seed,
      classes: o.spec.classes,
      likelyCause: likelyCause(o),
      violations: o.violations.map((v) => ({ invariant: v.invariant, detail: v.detail, message: v.message ?? null })),
      ends: o.ends,
      repro: reproCommand(o.spec),
      swarm: line(o),
      shrink: `bcsim shrink ${shellQuote(line(o))}`,
    }));
    const notExercised = partly.map((o) => ({
      index: o.spec.index,
      seed: o.spec.seed,
      faults: o.notExercised,
      ends: o.ends,
      swarm: line(o),
    }));
    io.stdout(
      `${JSON.stringify({ schema: 'bcsim.swarm/1', generatorSeed, mode, switches, runs: result.outcomes.length, failures, notExercised })}\n`,
    );
  } else {
    for (const o of result.failures) {
      io.stdout(
        `✗ run ${o.spec.index} (run seed ${o.spec.seed}): ${likelyCause(o)}\n  classes: ${o.spec.classes.join('; ')}\n  end: server ${o.states.server}, client ${o.states.client}; ${o.ledger}\n`,
      );
      for (const e of o.ends) io.stdout(`  ended: ${e}\n`);
      for (const v of o.violations) io.stdout(`  [${v.invariant}] ${v.detail}\n`);
      io.stdout(
        `  repro:  ${reproCommand(o.spec)}\n  swarm:  ${line(o)}\n  shrink: bcsim shrink ${shellQuote(line(o))}\n`,
      );
    }
    // A run the link ended before some fault acted passes, but says what it could not show.
    for (const o of partly) {
      io.stdout(
        `~ run ${o.spec.index} (run seed ${o.spec.seed}): not exercised, the link ended the connection first: ${o.notExercised.join('; ')}\n`,
      );
      for (const e of o.ends) io.stdout(`  ended: ${e}\n`);
      io.stdout(`  swarm:  ${line(o)}\n`);
    }
    if (index !== undefined && result.failures.length === 0)
      for (const e of result.outcomes[0]?.ends ?? []) io.stdout(`  ended: ${e}\n`);
    const stopped =
      result.failures.length > 0 && flags.all !== true && result.outcomes.length < runs
        ? ' (stopped at the first failure; --all runs every one)'
        : '';
    const partlyText = partly.length > 0 ? `, ${partly.length} with faults not exercised` : '';
    io.stdout(
      `swarm: ${result.outcomes.length} ${mode}-mode runs (generator seed ${generatorSeed}), ${result.failures.length} failing${partlyText}${stopped}, ${wallS.toFixed(1)} s\n`,
    );
  }
  return result.failures.length > 0 ? EXIT_FAILED : EXIT_OK;
}
