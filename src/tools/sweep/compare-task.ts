// One column of a comparison, the same code in a worker thread and for the caller:
// the job and its result as plain data (copied between threads), the column run with
// report's runColumn, and its series packed and unpacked. Errors come back as values:
// a thrown error loses its class between threads.
import type { MessagePort } from 'node:worker_threads';
import { LimitError } from '../../core/engine/index.js';
import { Series, seriesTrends } from '../../model/metrics/index.js';
import type { PeerSeries, RecordedRun, SeriesSnapshot } from '../../model/metrics/index.js';
import { runColumn } from '../../analysis/report/index.js';
import type { ColumnSettings, ComparedRun, ModeSpec } from '../../analysis/report/index.js';
import type { Scenario } from '../../model/scenario/index.js';
import type { Summary } from '../../model/session/index.js';
import type { PhaseStart } from '../../model/traffic/index.js';

export interface ColumnJob {
  readonly scenario: Scenario;
  readonly spec: ModeSpec;
  readonly settings: ColumnSettings;
}

/** A job and the port its progress (simulated µs so far, then null) is posted on. */
export interface ColumnTask {
  readonly job: ColumnJob;
  readonly progress: MessagePort;
}

type PackedSeries = Record<string, SeriesSnapshot>;
interface PackedRecorded {
  readonly endS: number;
  readonly series: Record<string, PackedSeries>;
  readonly worst: { client: number; ackOutboxMax: number; series: Record<string, PackedSeries> } | null;
}

export type ColumnResult =
  | {
      readonly ok: true;
      readonly summary: Summary;
      readonly recorded: PackedRecorded;
      readonly phases: readonly PhaseStart[];
    }
  | { readonly ok: false; readonly name: string; readonly message: string; readonly stack: string };

export function runColumnTask({ job, progress }: ColumnTask): ColumnResult {
  try {
    const { run, phases } = runColumn(job.scenario, job.spec, job.settings, undefined, (_label, us) =>
      progress.postMessage(us),
    );
    return { ok: true, summary: run.summary, recorded: packRecorded(run.recorded), phases };
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    return { ok: false, name: e.name, message: e.message, stack: e.stack ?? '' };
  } finally {
    // The end of the progress, for the caller to wait for: messages on one port arrive in order.
    progress.postMessage(null);
    progress.close();
  }
}

/** The column's run from a finished task; a failed one throws its error again (a limit keeps its class). */
export function columnOf(job: ColumnJob, result: ColumnResult): { run: ComparedRun; phases: readonly PhaseStart[] } {
  if (!result.ok) throw rebuildError(result);
  const recorded = unpackRecorded(result.recorded);
  return {
    run: { spec: job.spec, summary: result.summary, recorded, trends: seriesTrends(recorded) },
    phases: result.phases,
  };
}

/** A limit keeps its class (the CLI answers it in one line, exit 2); anything else is a bug with its stack. */
function rebuildError(failed: Extract<ColumnResult, { ok: false }>): Error {
  const error = failed.name === 'LimitError' ? new LimitError(failed.message) : new Error(failed.message);
  if (failed.stack !== '') error.stack = failed.stack;
  return error;
}

const packSeries = (series: PeerSeries): PackedSeries =>
  Object.fromEntries(Object.entries(series).map(([name, s]) => [name, (s as Series).snapshot()]));
const unpackSeries = (packed: PackedSeries): PeerSeries =>
  Object.fromEntries(Object.entries(packed).map(([name, s]) => [name, Series.fromSnapshot(s)])) as PeerSeries;
const packBoth = (both: Record<string, PeerSeries>) => ({
  server: packSeries(both.server),
  client: packSeries(both.client),
});
const unpackBoth = (both: Record<string, PackedSeries>): RecordedRun['series'] => ({
  server: unpackSeries(both.server),
  client: unpackSeries(both.client),
});

function packRecorded(recorded: RecordedRun): PackedRecorded {
  const worst =
    recorded.worst === null
      ? null
      : {
          client: recorded.worst.client,
          ackOutboxMax: recorded.worst.ackOutboxMax,
          series: packBoth(recorded.worst.series),
        };
  return { endS: recorded.endS, series: packBoth(recorded.series), worst };
}

function unpackRecorded(packed: PackedRecorded): RecordedRun {
  const worst =
    packed.worst === null
      ? null
      : {
          client: packed.worst.client,
          ackOutboxMax: packed.worst.ackOutboxMax,
          series: unpackBoth(packed.worst.series),
        };
  return { endS: packed.endS, series: unpackBoth(packed.series), worst };
}
