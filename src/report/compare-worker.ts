// A worker thread that runs one column of a comparison (compare-parallel.ts) and
// posts back its summary, its series as plain data, and its phases.
import { parentPort, workerData } from 'node:worker_threads';
import { runColumn } from './compare.js';
import type { ColumnJob, ColumnMessage } from './compare-parallel.js';
import { packRecorded } from './compare-parallel.js';

const job = workerData as ColumnJob;
const post = (message: ColumnMessage) => parentPort?.postMessage(message);
try {
  const { run, phases } = runColumn(job.scenario, job.spec, job.settings, undefined, (_label, us) => post({ kind: 'progress', us }));
  post({ kind: 'done', summary: run.summary, recorded: packRecorded(run.recorded), phases });
} catch (error) {
  const e = error instanceof Error ? error : new Error(String(error));
  post({ kind: 'error', name: e.name, message: e.message, stack: e.stack ?? '' });
}
