// Runs the grid's runs, in-process (--jobs 1) or on a tinypool of worker threads,
// and hands the result lines over in index order whatever order they finish in.
// At most WINDOW_PER_JOB × jobs runs are in flight, so the reorder buffer is bounded.
import type Tinypool from 'tinypool';
import { startWorkerPool } from './pool.js';
import { clearScenarioCache, runTask } from './task.js';
import type { RunTask, TaskResult } from './task.js';

const WINDOW_PER_JOB = 8;
export const MAX_JOBS = 256;

export interface RunnerOptions {
  readonly jobs: number;
  /** The indexes to run, ascending (a shard's, or all). */
  readonly indexes: Iterable<number>;
  readonly task: (index: number) => RunTask;
  /** Each finished run's line, in index order. */
  readonly onResult: (index: number, result: Extract<TaskResult, { ok: true }>) => void;
  /** Aborting stops the pool; runs not yet handed over are dropped. */
  readonly signal?: AbortSignal;
  /** A pool started earlier (startPool), so its threads load while the caller plans; destroyed at the end. */
  readonly pool?: Tinypool;
}

/** Starts `jobs` worker threads now: each loads the simulator while the main thread checks the inputs. */
export function startPool(jobs: number): Tinypool {
  return startWorkerPool('sweep-worker', jobs);
}

/** A run that could not complete: its index and why (a limit, a scenario error, or a bug). */
export class RunFailure extends Error {
  override readonly name = 'RunFailure';
  constructor(
    readonly index: number,
    readonly kind: 'limit' | 'scenario' | 'internal',
    message: string,
  ) {
    super(message);
  }
}

/** 'done', or 'aborted' when the signal fired first. */
export async function runGrid(options: RunnerOptions): Promise<'done' | 'aborted'> {
  if (options.jobs > 1) return runOnPool(options);
  await options.pool?.destroy();
  return runInProcess(options);
}

function accept(index: number, result: TaskResult, options: RunnerOptions): void {
  if (!result.ok) throw new RunFailure(index, result.kind, result.message);
  options.onResult(index, result);
}

async function runInProcess(options: RunnerOptions): Promise<'done' | 'aborted'> {
  clearScenarioCache();
  for (const index of options.indexes) {
    if (options.signal?.aborted) return 'aborted';
    accept(index, runTask(options.task(index)), options);
    // Let a SIGINT handler run between runs: a run itself never yields.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return options.signal?.aborted ? 'aborted' : 'done';
}

async function runOnPool(options: RunnerOptions): Promise<'done' | 'aborted'> {
  const pool = options.pool ?? startPool(options.jobs);
  const window = options.jobs * WINDOW_PER_JOB;
  const inflight: Array<{ index: number; result: Promise<TaskResult> }> = [];
  const iterator = options.indexes[Symbol.iterator]();
  let aborted = false;
  const onAbort = () => {
    aborted = true;
    pool.cancelPendingTasks();
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  try {
    const refill = () => {
      while (!aborted && inflight.length < window) {
        const next = iterator.next();
        if (next.done) return;
        const result = pool.run(options.task(next.value)) as Promise<TaskResult>;
        result.catch(() => undefined); // awaited in order below; never an unhandled rejection meanwhile
        inflight.push({ index: next.value, result });
      }
    };
    refill();
    while (inflight.length > 0 && !aborted) {
      const head = inflight.shift() as (typeof inflight)[number];
      let result: TaskResult;
      try {
        result = await head.result;
      } catch (error) {
        if (aborted) break;
        throw error;
      }
      if (aborted) break;
      accept(head.index, result, options);
      refill();
    }
    return aborted ? 'aborted' : 'done';
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    pool.cancelPendingTasks();
    await pool.destroy();
  }
}
