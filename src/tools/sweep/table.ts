// The terminal summary of a sweep: one row per mode and combination of varied
// values, one column per metric holding "min / median / max" over the seeds.
import Table from 'cli-table3';
import type { TerminalStyle } from '../../core/output/index.js';
import { fmt, COMPACT } from '../../core/output/index.js';
import type { Stat, SweepSummary } from './aggregate.js';

export function statText(stat: Stat | null): string {
  return stat === null ? '–' : `${fmt(stat.min)} / ${fmt(stat.median)} / ${fmt(stat.max)}`;
}

export function valueText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function renderSweepTable(summary: SweepSummary, title: string, style: TerminalStyle): string {
  const head = ['mode', ...summary.paths, 'runs', 'failed', ...summary.metrics];
  const table = new Table({ head, style: { head: [], border: [] }, chars: COMPACT });
  for (const row of summary.rows) {
    table.push([
      row.mode,
      ...summary.paths.map((p) => valueText(row.vary[p])),
      row.runs,
      row.failed > 0 ? style.red(String(row.failed)) : '0',
      ...summary.metrics.map((m) => statText(row.stats[m])),
    ]);
  }
  const unjudged =
    summary.unjudged > 0 ? `; ${summary.unjudged} ended inside their phase plan, with expectations not applicable` : '';
  const verdict =
    (summary.failed > 0
      ? style.red(`${summary.failed} of ${summary.runs} runs failed their expect block`)
      : style.green(`${summary.runs} runs, none failed`)) + unjudged;
  return `${style.bold(title)}\n${style.dim('each metric: min / median / max over the seeds')}\n${table.toString()}\n${verdict}\n`;
}
