// A whole sweep: run the plan's grid (or shard), stream each line to the sink in
// index order, keep the summary's figures, and report progress. Interrupted, it
// discards the output; finished, it commits it (the file appears whole or not at all).
import { SweepAggregator } from './aggregate.js';
import type { SweepSummary } from './aggregate.js';
import type { SweepLine } from './line.js';
import type { LineSink } from './output.js';
import type { SweepPlan } from './plan.js';
import { runGrid } from './runner.js';
import type { Tinypool } from 'tinypool';

export interface SweepRunOptions {
  readonly jobs: number;
  readonly sink: LineSink;
  readonly signal?: AbortSignal;
  /** A pool from startPool(jobs), started before planning. */
  readonly pool?: Tinypool;
  /** After each run handed over: runs done, runs in this shard, runs failed so far. */
  readonly onProgress?: (done: number, total: number, failed: number) => void;
}

export interface SweepOutcome {
  readonly status: 'done' | 'aborted';
  readonly done: number;
  readonly summary: SweepSummary;
  /** How the runs cut their phase plans (settings.phasePlanCut), each sentence once, at most MAX_CUTS. */
  readonly cuts: string[];
}

const MAX_CUTS = 8;

export async function runSweep(plan: SweepPlan, options: SweepRunOptions): Promise<SweepOutcome> {
  const aggregator = new SweepAggregator(
    plan.metrics,
    plan.spec.varies.map((v) => v.path),
  );
  let done = 0;
  let failed = 0;
  const cuts = new Set<string>();
  let status: 'done' | 'aborted';
  try {
    status = await runGrid({
      jobs: options.jobs,
      indexes: plan.indexes(),
      task: (index) => plan.taskAt(index),
      signal: options.signal,
      pool: options.pool,
      onResult: (_index, result) => {
        options.sink.write(result.text);
        aggregator.add(JSON.parse(result.text) as SweepLine);
        done++;
        if (!result.passed) failed++;
        if (result.cut !== undefined && cuts.size < MAX_CUTS) cuts.add(result.cut);
        options.onProgress?.(done, plan.shardRuns, failed);
      },
    });
  } catch (error) {
    options.sink.discard();
    throw error;
  }
  if (status === 'aborted') options.sink.discard();
  else options.sink.commit();
  return { status, done, summary: aggregator.summary(), cuts: [...cuts] };
}
