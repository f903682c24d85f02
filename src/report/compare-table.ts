// The terminal view of a comparison: metrics as rows, modes as columns, each
// cell after the first coloured better (green) or worse (red) than the first.
import Table from 'cli-table3';
import type { ChalkInstance } from 'chalk';
import type { Comparison } from './compare.js';
import { caption } from './documents.js';
import { cell, judge, rowsFor } from './metrics-table.js';
import { compareSettingsLine } from './settings.js';
import { COMPACT } from './summary-table.js';

export function renderCompareTable(comparison: Comparison, chalk: ChalkInstance): string {
  const table = new Table({ head: ['metric', ...comparison.runs.map((r) => r.spec.label)], style: { head: [], border: [] }, chars: COMPACT });
  for (const row of rowsFor(comparison)) {
    const base = row.value(comparison.runs[0]);
    table.push([
      row.label,
      ...comparison.runs.map((run, i) => {
        const text = cell(row, run);
        const verdict = judge(row.value(run), base, i === 0, row.lowerIsBetter);
        return verdict === null ? text : verdict === 'better' ? chalk.green(text) : chalk.red(text);
      }),
    ]);
  }
  return `${chalk.bold(caption(comparison).join(' · '))}\n${compareSettingsLine(comparison)}\n${table.toString()}\n`;
}
