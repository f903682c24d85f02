// Terminal text that keeps to a width: tables whose widest columns wrap, and wrapped paragraphs.
import { stripVTControlCharacters } from 'node:util';
import Table from 'cli-table3';

/** No rule between rows: the table stays short. */
export const COMPACT = { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' };

/** The terminal width the default text of the reports keeps to; --wide and --json have no limit. */
export const TEXT_WIDTH = 120;

/** Columns a string takes on a terminal (colour codes removed; every character here is one column). */
export function columns(text: string): number {
  return [...stripVTControlCharacters(text)].length;
}

/** Words wrapped to `width` columns, continuation lines under the first line's text. */
export function wrapLine(text: string, width = TEXT_WIDTH, indent = ''): string[] {
  const lead = /^ */.exec(text)?.[0] ?? '';
  return wrapItems(text.slice(lead.length).split(' '), ' ', width, indent, lead);
}

/**
 * Items joined by `separator`, the first line starting with `lead`, a new line (starting with `indent`)
 * before an item that would pass `width`.
 */
export function wrapItems(items: readonly string[], separator: string, width = TEXT_WIDTH, indent = '', lead = '') {
  const lines: string[] = [];
  let line = lead;
  let empty = true;
  for (const item of items) {
    if (!empty && columns(line) + columns(separator) + columns(item) > width) {
      lines.push(line.trimEnd());
      line = `${indent}${item}`;
    } else line = empty ? `${line}${item}` : `${line}${separator}${item}`;
    empty = line.trim() === '';
  }
  if (!empty) lines.push(line);
  return lines;
}

/**
 * A table no wider than `width`: the widest columns are narrowed one column at a time, their cells
 * wrapped at spaces, never below a cell's longest word. Row and head cells may carry colour codes.
 */
export function fittedTable(head: readonly string[], rows: ReadonlyArray<readonly string[]>, width = TEXT_WIDTH) {
  const all = [head, ...rows];
  const measure = (pick: (cell: string) => number) =>
    head.map((_h, i) => 2 + Math.max(...all.map((row) => pick(row[i] ?? ''))));
  const widths = measure((cell) => Math.max(...cell.split('\n').map(columns)));
  const floors = measure((cell) => Math.max(...cell.split(/[ \n]/).map(columns)));
  const total = () => widths.reduce((a, b) => a + b, 0) + widths.length + 1;
  while (total() > width) {
    let widest = -1;
    widths.forEach((w, i) => {
      if (w > floors[i] && (widest < 0 || w > widths[widest])) widest = i;
    });
    if (widest < 0) break;
    widths[widest]--;
  }
  const table = new Table({
    head: [...head],
    colWidths: widths,
    wordWrap: true,
    style: { head: [], border: [] },
    chars: COMPACT,
  });
  for (const row of rows) table.push([...row]);
  return table.toString();
}
