// compare's columns on worker threads, one per core. Each
// column is an independent seeded run, so the comparison is byte-identical to
// runComparison's; only the series cross the thread boundary as plain data.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { LimitError, secondsToUs } from '../engine/index.js';
import { Series, seriesTrends } from '../metrics/index.js';
import type { PeerSeries, RecordedRun, SeriesSnapshot } from '../metrics/index.js';
import type { Scenario } from '../scenario/index.js';
import { checkWorkBudget } from '../scenario/index.js';
import type { Summary } from '../session/index.js';
import type { PhaseStart } from '../traffic/index.js';
import { STOCK_AND_FIXED } from './compare.js';
import type { ColumnSettings, ComparedRun, CompareOptions, Comparison, ModeSpec } from './compare.js';

/** Below this much simulated time per column, starting threads costs more than it saves. */
const PARALLEL_MIN_COLUMN_US = secondsToUs(30 * 60);

export interface ColumnJob {
  readonly scenario: Scenario;
  readonly spec: ModeSpec;
  readonly settings: ColumnSettings;
}

type PackedSeries = Record<string, SeriesSnapshot>;
interface PackedRecorded {
  readonly endS: number;
  readonly series: Record<string, PackedSeries>;
  readonly worst: { client: number; ackOutboxMax: number; series: Record<string, PackedSeries> } | null;
}

export type ColumnMessage =
  | { kind: 'progress'; us: number }
  | { kind: 'done'; summary: Summary; recorded: PackedRecorded; phases: readonly PhaseStart[] }
  | { kind: 'error'; name: string; message: string; stack: string };

/** How many threads `compare` uses by default: one per column up to the cores, for long columns only. */
export function defaultCompareJobs(scenario: Scenario, columns: number, durationUs: number): number {
  if (columns < 2 || durationUs * scenario.clients < PARALLEL_MIN_COLUMN_US) return 1;
  return Math.max(1, Math.min(columns, availableParallelism()));
}

/** runComparison on `jobs` worker threads; the result is the same, column for column. */
export async function runComparisonInWorkers(scenario: Scenario, options: CompareOptions & { readonly jobs: number }): Promise<Comparison> {
  const modes = options.modes ?? STOCK_AND_FIXED;
  const settings: ColumnSettings = { durationUs: options.durationUs ?? scenario.durationUs, seed: options.seed ?? scenario.seed, loss: options.loss, maxPoints: options.maxPoints };
  // Refused here, as runComparison would, before any thread starts.
  for (const spec of modes) checkWorkBudget(spec.scenario ?? scenario, settings.durationUs);
  const results: Array<{ run: ComparedRun; phases: readonly PhaseStart[] } | undefined> = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < modes.length) {
      const index = next++;
      results[index] = await runColumnInWorker({ scenario, spec: modes[index], settings }, options.onProgress);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.jobs, modes.length)) }, lane));
  const runs = results.map((r) => (r as NonNullable<typeof r>).run);
  const phases = results.find((r) => r !== undefined && r.phases.length > 0)?.phases ?? [];
  return { scenario, seed: settings.seed, durationUs: settings.durationUs, runs, phases };
}

function runColumnInWorker(job: ColumnJob, onProgress: CompareOptions['onProgress']): Promise<{ run: ComparedRun; phases: readonly PhaseStart[] }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(compareWorkerFile(), { workerData: job });
    let settled = false;
    const settle = (act: () => void) => {
      if (settled) return;
      settled = true;
      act();
      void worker.terminate();
    };
    worker.on('message', (message: ColumnMessage) => {
      if (message.kind === 'progress') onProgress?.(job.spec.label, message.us, job.settings.durationUs);
      else if (message.kind === 'error') settle(() => reject(rebuildError(message)));
      else {
        const recorded = unpackRecorded(message.recorded);
        settle(() => resolve({ run: { spec: job.spec, summary: message.summary, recorded, trends: seriesTrends(recorded) }, phases: message.phases }));
      }
    });
    worker.on('error', (error) => settle(() => reject(error)));
    worker.on('exit', (code) => settle(() => reject(new Error(`compare: the worker for column ${job.spec.label} exited (${code}) without a result`))));
  });
}

/** A limit keeps its class (the CLI answers it in one line, exit 2); anything else is a bug with its stack. */
function rebuildError(message: Extract<ColumnMessage, { kind: 'error' }>): Error {
  const error = message.name === 'LimitError' ? new LimitError(message.message) : new Error(message.message);
  if (message.stack !== '') error.stack = message.stack;
  return error;
}

const packSeries = (series: PeerSeries): PackedSeries => Object.fromEntries(Object.entries(series).map(([name, s]) => [name, (s as Series).snapshot()]));
const unpackSeries = (packed: PackedSeries): PeerSeries => Object.fromEntries(Object.entries(packed).map(([name, s]) => [name, Series.fromSnapshot(s)])) as PeerSeries;
const packBoth = (both: Record<string, PeerSeries>) => ({ server: packSeries(both.server), client: packSeries(both.client) });
const unpackBoth = (both: Record<string, PackedSeries>): RecordedRun['series'] => ({ server: unpackSeries(both.server), client: unpackSeries(both.client) });

export function packRecorded(recorded: RecordedRun): PackedRecorded {
  const worst = recorded.worst === null ? null : { client: recorded.worst.client, ackOutboxMax: recorded.worst.ackOutboxMax, series: packBoth(recorded.worst.series) };
  return { endS: recorded.endS, series: packBoth(recorded.series), worst };
}

function unpackRecorded(packed: PackedRecorded): RecordedRun {
  const worst = packed.worst === null ? null : { client: packed.worst.client, ackOutboxMax: packed.worst.ackOutboxMax, series: unpackBoth(packed.worst.series) };
  return { endS: packed.endS, series: unpackBoth(packed.series), worst };
}

/** The compiled worker beside this module, or (from the TypeScript sources, in tests) the one in dist/. */
function compareWorkerFile(): string {
  const beside = fileURLToPath(new URL('./compare-worker.js', import.meta.url));
  if (existsSync(beside)) return beside;
  const built = fileURLToPath(new URL('../../dist/report/compare-worker.js', import.meta.url));
  if (existsSync(built)) return built;
  throw new Error(`no compiled compare worker at ${beside} or ${built}: run npm run build`);
}
