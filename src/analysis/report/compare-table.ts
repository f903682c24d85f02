// The terminal view of a comparison: metrics as rows, modes as columns, each
// cell after the first coloured better (green) or worse (red) than the first.
import type { TerminalStyle } from '../../core/output/index.js';
import type { Comparison } from './compare.js';
import { caption } from './documents.js';
import { columns, fittedTable, TEXT_WIDTH, wrapItems } from '../../core/output/index.js';
import { cell, cellVerdict, rowsFor } from './metrics-table.js';
import { compareSettingsLine } from './settings.js';

/**
 * The default text keeps to 120 columns: when the column labels would pass that, the columns are
 * lettered A, B, … with the labels in a legend under the table. `wide` keeps the labels and long lines.
 */
export function renderCompareTable(comparison: Comparison, style: TerminalStyle, options: { wide?: boolean } = {}) {
  const width = options.wide ? Number.POSITIVE_INFINITY : TEXT_WIDTH;
  const labels = comparison.runs.map((r) => r.spec.label);
  const rows = rowsFor(comparison).map((row) => [
    row.label,
    ...comparison.runs.map((run, i) => {
      const text = cell(row, run);
      const verdict = cellVerdict(row, run, comparison.runs[0], i === 0);
      return verdict === null ? text : verdict === 'better' ? style.green(text) : style.red(text);
    }),
  ]);
  let table = fittedTable(['metric', ...labels], rows, Number.POSITIVE_INFINITY);
  const legend: string[] = [];
  if (table.split('\n').some((line) => columns(line) > width)) {
    const letters = labels.map((_l, i) => String.fromCharCode(65 + i));
    table = fittedTable(['metric', ...letters], rows, width);
    legend.push(
      ...wrapItems(
        labels.map((l, i) => `${letters[i]} ${l}`),
        ' · ',
        width,
        '  ',
        'columns: ',
      ),
    );
  }
  const [settings, ...settingItems] = compareSettingsLine(comparison).split('; ');
  return `${[
    ...wrapItems(caption(comparison), ' · ', width, '  ').map((line) => style.bold(line)),
    ...wrapItems([settings, ...settingItems], '; ', width, '  '),
    table,
    ...legend,
  ].join('\n')}\n`;
}
