// The end-of-sweep summary: per mode and combination of
// varied values, min / median / max of each metric over the seeds, and how many
// runs failed their expect block. Fed line by line, in index order.
import { statOf } from '../../model/metrics/index.js';
import type { Stat } from '../../model/metrics/index.js';
import { figureAt } from './line.js';
import type { SweepLine } from './line.js';

export { statOf };
export type { Stat };

export interface SummaryRow {
  readonly mode: string;
  readonly vary: Record<string, unknown>;
  readonly runs: number;
  readonly failed: number;
  /** Per metric; null when no run of the row had a value. */
  readonly stats: Record<string, Stat | null>;
}

export interface SweepSummary {
  readonly metrics: readonly string[];
  readonly paths: readonly string[];
  readonly rows: SummaryRow[];
  readonly runs: number;
  readonly failed: number;
  /** Runs that cut their phase plan and left assertions not applicable (Verdict.notApplicable). */
  readonly unjudged: number;
}

interface Group {
  mode: string;
  vary: Record<string, unknown>;
  runs: number;
  failed: number;
  values: number[][];
}

/**
 * Holds every metric value until the end (the median needs them all): runs ×
 * metrics numbers, bounded by the grid's MAX_GRID_RUNS and the 32-metric limit.
 */
export class SweepAggregator {
  private readonly groups = new Map<string, Group>();
  private runs = 0;
  private failed = 0;
  private unjudged = 0;

  constructor(
    private readonly metrics: readonly string[],
    private readonly paths: readonly string[],
  ) {}

  add(line: SweepLine): void {
    const key = JSON.stringify([line.mode, line.vary]);
    let group = this.groups.get(key);
    if (group === undefined) {
      group = { mode: line.mode, vary: line.vary, runs: 0, failed: 0, values: this.metrics.map(() => []) };
      this.groups.set(key, group);
    }
    const failed = line.verdict !== null && !line.verdict.passed;
    group.runs++;
    this.runs++;
    if (line.verdict?.notApplicable !== undefined) this.unjudged++;
    if (failed) {
      group.failed++;
      this.failed++;
    }
    this.metrics.forEach((metric, i) => {
      const value = figureAt(line, metric);
      if (typeof value === 'number') group.values[i].push(value);
    });
  }

  summary(): SweepSummary {
    const rows = [...this.groups.values()].map((g): SummaryRow => {
      const stats: Record<string, Stat | null> = {};
      this.metrics.forEach((metric, i) => {
        stats[metric] = statOf(g.values[i]);
      });
      return { mode: g.mode, vary: g.vary, runs: g.runs, failed: g.failed, stats };
    });
    return {
      metrics: this.metrics,
      paths: this.paths,
      rows,
      runs: this.runs,
      failed: this.failed,
      unjudged: this.unjudged,
    };
  }
}
