// The terminal view of a comparison: metrics as rows, modes as columns, each
// cell after the first coloured better (green) or worse (red) than the first.
import Table from 'cli-table3';
import type { ChalkInstance } from 'chalk';
import type { Comparison } from './compare.js';
import { caption } from './documents.js';
import { cell, cellVerdict, rowsFor } from './metrics-table.js';
import { compareSettingsLine } from './settings.js';
import { COMPACT } from './summary-table.js';

export function renderCompareTable(comparison: Comparison, chalk: ChalkInstance): string {
  const table = new Table({
    head: ['metric', ...comparison.runs.map((r) => r.spec.label)],
    style: { head: [], border: [] },
    chars: COMPACT,
  });
  for (const row of rowsFor(comparison)) {
    table.push([
      row.label,
      ...comparison.runs.map((run, i) => {
        const text = cell(row, run);
        const verdict = cellVerdict(row, run, comparison.runs[0], i === 0);
        return verdict === null ? text : verdict === 'better' ? chalk.green(text) : chalk.red(text);
      }),
    ]);
  }
  return `${chalk.bold(caption(comparison).join(' · '))}\n${compareSettingsLine(comparison)}\n${table.toString()}\n`;
}
