// Sweeps: a grid of seeded runs over modes and parameter values, run
// on worker threads, one deterministic JSON line per run, shardable across machines.
export { SweepInputError } from './errors.js';
export {
  parseVary,
  parseSeeds,
  parseModes,
  cellAt,
  cells,
  comboSets,
  comboVary,
  comboCount,
  gridSize,
  MAX_GRID_RUNS,
  MAX_VARY_VALUES,
} from './grid.js';
export type { GridCell, GridSpec, Vary } from './grid.js';
export { parseShard, inShard, shardSize, shardIndexes } from './shard.js';
export type { Shard } from './shard.js';
export { DEFAULT_FIGURES, DEFAULT_METRICS, extractFigures, figureAt, verdictOf } from './line.js';
export type { SweepLine, Verdict } from './line.js';
export { planSweep } from './plan.js';
export type { SweepOptions, SweepPlan } from './plan.js';
export { runTask } from './task.js';
export type { RunTask, TaskResult } from './task.js';
export { runGrid, RunFailure, MAX_JOBS, startPool } from './runner.js';
// compare's columns, on the same worker pool.
export { PARALLEL_MIN_COLUMN_US, defaultCompareJobs, runComparisonInWorkers } from './compare-runner.js';
export { runSweep } from './sweep.js';
export type { SweepOutcome, SweepRunOptions } from './sweep.js';
export { fileSink, callbackSink } from './output.js';
export type { LineSink } from './output.js';
export { SweepAggregator, statOf } from './aggregate.js';
export type { Stat, SummaryRow, SweepSummary } from './aggregate.js';
export { renderSweepTable, statText } from './table.js';
export { sweepHtml } from './html.js';
export { mergeShards } from './merge.js';
