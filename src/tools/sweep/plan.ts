// Checks a sweep's inputs before anything runs (a bad value fails in a moment,
// not after an hour of runs) and fixes its grid: the runs, their order and the
// grid's identity, which every result line carries so shards can be merged safely.
import { PathError, resolvePath, expectPathProblem } from '../../analysis/check/index.js';
import { ScenarioError, loadScenario, checkWorkBudget } from '../../model/scenario/index.js';
import type { Scenario } from '../../model/scenario/index.js';
import { runScenario, sha256Hex } from '../../model/session/index.js';
import type { PresetName } from '../../model/transport/index.js';
import { SweepInputError } from './errors.js';
import { cellAt, checkGridSize, comboSets, comboVary, gridSize } from './grid.js';
import type { GridSpec, Vary } from './grid.js';
import { DEFAULT_METRICS, figurePaths } from './line.js';
import type { Shard } from './shard.js';
import { shardIndexes, shardSize } from './shard.js';
import type { RunTask } from './task.js';

export interface SweepOptions {
  readonly ref: string;
  readonly cwd: string;
  /** --set edits applied to every run. */
  readonly sets?: readonly string[];
  /** Default: the scenario's mode. */
  readonly modes?: readonly PresetName[];
  readonly varies?: readonly Vary[];
  /** Default: the scenario's seed. */
  readonly seeds?: readonly number[];
  readonly durationUs?: number;
  /** `--loss`: Bernoulli loss on both directions, replacing the scenario's loss models, in every run. */
  readonly loss?: number;
  /** Summary-table metrics (summary paths); default DEFAULT_METRICS. */
  readonly metrics?: readonly string[];
  readonly shard?: Shard;
}

export interface SweepPlan {
  readonly ref: string;
  readonly cwd: string;
  readonly sets: readonly string[];
  readonly scenario: Scenario;
  readonly spec: GridSpec;
  readonly durationUs: number | undefined;
  readonly metrics: readonly string[];
  readonly figures: readonly string[];
  /** The grid's identity (16 hex digits). */
  readonly grid: string;
  /** Runs in the whole grid, and in this shard. */
  readonly runs: number;
  readonly shardRuns: number;
  readonly shard: Shard | undefined;
  indexes(): Iterable<number>;
  taskAt(index: number): RunTask;
}

export function planSweep(options: SweepOptions): SweepPlan {
  const sets = [...(options.sets ?? [])];
  const load = (extra: readonly string[], blame?: string) => {
    try {
      return loadScenario(options.ref, { sets: [...sets, ...extra], cwd: options.cwd, loss: options.loss });
    } catch (error) {
      if (!(error instanceof ScenarioError)) throw error;
      // A --vary value is passed on as a --set: name the flag the user wrote. The base
      // scenario loaded, so an error that names another place (a cross-field rule) is still the value's.
      const message =
        blame === undefined
          ? error.message
          : error.source === `--set ${blame}`
            ? `--vary ${blame}${error.message.slice(error.source.length)}`
            : `--vary ${blame}: ${error.message}`;
      throw new SweepInputError(message);
    }
  };
  const scenario = load([]);
  const varies = options.varies ?? [];
  const spec: GridSpec = { modes: options.modes ?? [scenario.preset], varies, seeds: options.seeds ?? [scenario.seed] };
  checkGridSize(spec);
  checkWorkBudget(scenario, options.durationUs ?? scenario.durationUs);
  // Every value on its own (a product of values could be millions of loads): a bad path or value is named now.
  for (const v of varies) {
    for (const value of v.values) {
      const one = `${v.path}=${value.text}`;
      checkWorkBudget(load([one], one), options.durationUs ?? scenario.durationUs);
    }
  }
  const problem = expectPathProblem(scenario, spec.modes);
  if (problem !== undefined) throw new SweepInputError(`${scenario.source}: expect: ${problem.message}`);
  const metrics = [...(options.metrics ?? DEFAULT_METRICS)];
  checkMetrics(scenario, spec.modes[0], metrics);
  const figures = figurePaths(metrics);
  const runs = gridSize(spec);
  const grid = gridId(scenario, sets, options.durationUs, spec, figures, options.loss);
  const shard = options.shard;
  return {
    ref: options.ref,
    cwd: options.cwd,
    sets,
    scenario,
    spec,
    durationUs: options.durationUs,
    metrics,
    figures,
    grid,
    runs,
    shardRuns: shardSize(runs, shard),
    shard,
    indexes: () => shardIndexes(runs, shard),
    taskAt(index) {
      const cell = cellAt(spec, index);
      return {
        index,
        grid,
        runs,
        ref: options.ref,
        cwd: options.cwd,
        sets: [...sets, ...comboSets(spec, cell.combo)],
        vary: comboVary(spec, cell.combo),
        mode: cell.mode,
        seed: cell.seed,
        durationUs: options.durationUs,
        ...(options.loss === undefined ? {} : { loss: options.loss }),
        figures,
      };
    },
  };
}

/** Each metric must name a number of the summary (a zero-length run gives its shape); no `*`. */
function checkMetrics(scenario: Scenario, mode: PresetName, metrics: readonly string[]): void {
  if (metrics.length === 0) throw new SweepInputError('--metrics: name at least one summary path');
  if (metrics.length > 32) throw new SweepInputError(`--metrics: at most 32 metrics, got ${metrics.length}`);
  const shape = runScenario(scenario, { preset: mode, durationUs: 0 }).summary;
  for (const metric of metrics) {
    if (metric.includes('*'))
      throw new SweepInputError(`--metrics ${metric}: name one peer (peers.server…, peers.client…), not *`);
    try {
      resolvePath(shape, metric);
    } catch (error) {
      if (!(error instanceof PathError)) throw error;
      if (!error.metNull) throw new SweepInputError(`--metrics ${metric}: ${error.message}`);
    }
  }
}

/** A hash of everything that decides which runs the grid holds and what their lines say. */
function gridId(
  scenario: Scenario,
  sets: readonly string[],
  durationUs: number | undefined,
  spec: GridSpec,
  figures: readonly string[],
  loss: number | undefined,
): string {
  const identity = {
    // Only when given, so the grids of sweeps without --loss keep their ids (sweep-merge of older shards).
    ...(loss === undefined ? {} : { loss }),
    scenario: scenario.name,
    sets,
    durationUs: durationUs ?? scenario.durationUs,
    modes: spec.modes,
    varies: spec.varies.map((v) => ({ path: v.path, values: v.values.map((x) => x.text) })),
    seeds: spec.seeds,
    figures,
  };
  return sha256Hex(JSON.stringify(identity)).slice(0, 16);
}
