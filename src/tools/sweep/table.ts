// The terminal summary of a sweep: one row per mode and combination of varied
// values, one column per metric holding "min / median / max" over the seeds.
import Table from 'cli-table3';
import type { ChalkInstance } from 'chalk';
import { fmt, COMPACT } from '../../analysis/report/index.js';
import type { Stat, SweepSummary } from './aggregate.js';

export function statText(stat: Stat | null): string {
  return stat === null ? '–' : `${fmt(stat.min)} / ${fmt(stat.median)} / ${fmt(stat.max)}`;
}

export function valueText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function renderSweepTable(summary: SweepSummary, title: string, chalk: ChalkInstance): string {
  const head = ['mode', ...summary.paths, 'runs', 'failed', ...summary.metrics];
  const table = new Table({ head, style: { head: [], border: [] }, chars: COMPACT });
  for (const row of summary.rows) {
    table.push([
      row.mode,
      ...summary.paths.map((p) => valueText(row.vary[p])),
      row.runs,
      row.failed > 0 ? chalk.red(String(row.failed)) : '0',
      ...summary.metrics.map((m) => statText(row.stats[m])),
    ]);
  }
  const unjudged =
    summary.unjudged > 0 ? `; ${summary.unjudged} ended inside their phase plan, with expectations not applicable` : '';
  const verdict =
    (summary.failed > 0
      ? chalk.red(`${summary.failed} of ${summary.runs} runs failed their expect block`)
      : chalk.green(`${summary.runs} runs, none failed`)) + unjudged;
  return `${chalk.bold(title)}\n${chalk.dim('each metric: min / median / max over the seeds')}\n${table.toString()}\n${verdict}\n`;
}
