// compare's columns on the worker pool: the same comparison as in one thread,
// progress from each column, and a limit that keeps its class across threads.
import { describe, expect, it } from 'vitest';
import { LimitError, secondsToUs } from '../../src/core/engine/index.js';
import { runComparison } from '../../src/analysis/report/index.js';
import { loadScenario } from '../../src/model/scenario/index.js';
import { runComparisonInWorkers } from '../../src/tools/sweep/index.js';
import { columnOf } from '../../src/tools/sweep/compare-task.js';
import { workerFile } from '../../src/tools/sweep/pool.js';

describe("compare's columns on worker threads", () => {
  it('finds both compiled workers from the sources (the build beside them in dist/)', () => {
    expect(workerFile('compare-worker')).toMatch(/dist[\\/].*compare-worker\.js$/);
    expect(workerFile('sweep-worker')).toMatch(/dist[\\/].*sweep-worker\.js$/);
  });

  it('gives the comparison runComparison gives, column for column, and reports progress per column', async () => {
    const scenario = loadScenario('lossy-link');
    const durationUs = secondsToUs(70);
    const seen = new Map<string, number>();
    const parallel = await runComparisonInWorkers(scenario, {
      durationUs,
      jobs: 2,
      onProgress: (label, us, totalUs) => {
        expect(totalUs).toBe(durationUs);
        seen.set(label, Math.max(seen.get(label) ?? 0, us));
      },
    });
    const serial = runComparison(scenario, { durationUs });
    expect(parallel.runs.map((r) => r.spec.label)).toEqual(['stock', 'fixed']);
    expect(parallel.runs.map((r) => r.summary)).toEqual(serial.runs.map((r) => r.summary));
    expect(parallel.runs.map((r) => r.trends)).toEqual(serial.runs.map((r) => r.trends));
    expect(parallel.runs.map((r) => r.recorded.endS)).toEqual(serial.runs.map((r) => r.recorded.endS));
    expect(parallel.phases).toEqual(serial.phases);
    // Progress crosses the thread on its own port, all of it before the column's result: each column reaches its end.
    expect(Object.fromEntries(seen)).toEqual({ stock: durationUs, fixed: durationUs });
  });

  it('throws a failed column again, a limit as a LimitError (the CLI answers it in one line)', () => {
    const job = {
      scenario: loadScenario('lossy-link'),
      spec: { label: 'stock', preset: 'stock' as const },
      settings: { durationUs: 1, seed: 1 },
    };
    expect(() => columnOf(job, { ok: false, name: 'LimitError', message: 'too many events', stack: '' })).toThrow(
      LimitError,
    );
    const bug = (() => {
      try {
        columnOf(job, {
          ok: false,
          name: 'TypeError',
          message: 'x is undefined',
          stack: 'TypeError: x is undefined\n    at worker',
        });
      } catch (error) {
        return error as Error;
      }
      return null;
    })();
    expect(bug).not.toBeInstanceOf(LimitError);
    expect(bug?.stack).toContain('at worker');
  });
});
