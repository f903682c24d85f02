// The worker threads that sweeps and compare's columns run on: one tinypool per
// command, its worker file found wherever the code runs (the TypeScript sources in
// tests, tsc's output in dist/, or the CLI bundle).
import { existsSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import Tinypool from 'tinypool';

/** The worker modules, each beside this one: a sweep's grid runs (sweep-worker.ts), compare's columns (compare-worker.ts). */
export type WorkerName = 'sweep-worker' | 'compare-worker';

/** Starts `threads` worker threads of `worker` now: each loads the simulator while the caller goes on. */
export function startWorkerPool(worker: WorkerName, threads: number): Tinypool {
  return new Tinypool({ filename: workerFile(worker), minThreads: threads, maxThreads: threads, idleTimeout: 60_000 });
}

/**
 * The compiled worker: beside this module (tsc's dist/), in dist/tools/sweep/ beside the
 * CLI bundle's chunks in dist/cli/, or, from the TypeScript sources
 * (tests), beside this module's twin in dist/ (the build `npm test` makes first).
 */
export function workerFile(worker: WorkerName): string {
  const here = fileURLToPath(import.meta.url);
  const beside = join(dirname(here), `${worker}.js`);
  if (existsSync(beside)) return beside;
  // The CLI bundle's chunks sit in dist/cli/, the bundled workers in dist/tools/sweep/.
  const bundled = join(dirname(here), '..', 'tools', 'sweep', `${worker}.js`);
  if (existsSync(bundled)) return bundled;
  const parts = dirname(here).split(sep);
  const src = parts.lastIndexOf('src');
  if (src >= 0 && basename(here).endsWith('.ts')) {
    const built = join([...parts.slice(0, src), 'dist', ...parts.slice(src + 1)].join(sep), `${worker}.js`);
    if (existsSync(built)) return built;
  }
  throw new Error(`no compiled ${worker} beside ${here} or its twin in dist/: run npm run build`);
}
