// compare's columns on a tinypool of worker threads, one per core (beside the
// sweep's runner, on the same pool library). Each column is an independent seeded
// run, so the comparison is byte-identical to runComparison's; only plain data
// crosses the thread boundary (compare-task.ts).
import { availableParallelism } from 'node:os';
import { MessageChannel } from 'node:worker_threads';
import type Tinypool from 'tinypool';
import { secondsToUs } from '../../core/engine/index.js';
import { STOCK_AND_FIXED, comparisonOf, sensitivityModes } from '../../analysis/report/index.js';
import type { ColumnSettings, ComparedRun, CompareOptions, Comparison } from '../../analysis/report/index.js';
import type { Scenario } from '../../model/scenario/index.js';
import { checkWorkBudget } from '../../model/scenario/index.js';
import type { PhaseStart } from '../../model/traffic/index.js';
import { columnOf } from './compare-task.js';
import type { ColumnJob, ColumnResult, ColumnTask } from './compare-task.js';
import { startWorkerPool } from './pool.js';

/** Below this much simulated time per column, starting threads costs more than it saves. */
export const PARALLEL_MIN_COLUMN_US = secondsToUs(30 * 60);

/** How many threads `compare` uses by default: one per column up to the cores, for long columns only. */
export function defaultCompareJobs(scenario: Scenario, columns: number, durationUs: number): number {
  if (columns < 2 || durationUs * scenario.clients < PARALLEL_MIN_COLUMN_US) return 1;
  return Math.max(1, Math.min(columns, availableParallelism()));
}

/** runComparison on `jobs` worker threads; the result is the same, column for column. */
export async function runComparisonInWorkers(
  scenario: Scenario,
  options: CompareOptions & { readonly jobs: number },
): Promise<Comparison> {
  const modes = options.modes ?? STOCK_AND_FIXED;
  const settings: ColumnSettings = {
    durationUs: options.durationUs ?? scenario.durationUs,
    seed: options.seed ?? scenario.seed,
    loss: options.loss,
    maxPoints: options.maxPoints,
  };
  // The sensitivity runs are more columns on the same pool, split off at the end.
  const all = [...modes, ...(options.sensitivity === true ? sensitivityModes(scenario, modes) : [])];
  // Refused here, as runComparison would, before any thread starts.
  for (const spec of all) checkWorkBudget(spec.scenario ?? scenario, settings.durationUs);
  const pool = startWorkerPool('compare-worker', Math.max(1, Math.min(options.jobs, all.length)));
  try {
    const results = await Promise.all(
      all.map((spec) => runColumnOnPool(pool, { scenario, spec, settings }, options.onProgress)),
    );
    const phases = results.find((r) => r.phases.length > 0)?.phases ?? [];
    const runs = results.map((r) => r.run);
    return comparisonOf(
      scenario,
      settings.seed,
      settings.durationUs,
      runs,
      modes.length,
      phases,
      options.sensitivity === true,
    );
  } finally {
    await pool.destroy();
  }
}

async function runColumnOnPool(
  pool: Tinypool,
  job: ColumnJob,
  onProgress: CompareOptions['onProgress'],
): Promise<{ run: ComparedRun; phases: readonly PhaseStart[] }> {
  const { port1, port2 } = new MessageChannel();
  // The worker's last message on the port is null: then every progress message is in.
  const drained = new Promise<void>((resolve) =>
    port1.on('message', (us: number | null) =>
      us === null ? resolve() : onProgress?.(job.spec.label, us, job.settings.durationUs),
    ),
  );
  try {
    const task: ColumnTask = { job, progress: port2 };
    const [result] = await Promise.all([pool.run(task, { transferList: [port2] }) as Promise<ColumnResult>, drained]);
    return columnOf(job, result);
  } finally {
    port1.close();
  }
}
