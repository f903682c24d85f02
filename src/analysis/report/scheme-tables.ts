// Tables of the scheme reports (rtype-deaths, schemes-side-by-side): rows of text
// cells, one column per run, rendered the same way on the terminal, in report.md
// and in report.html, so all three say the same thing.
import Table from 'cli-table3';
import { escapeXml, COMPACT } from '../../core/output/index.js';

interface TextRow<T> {
  readonly label: string;
  readonly cell: (run: T) => string;
}

/** A titled group of rows: a section of the table (delivery, resends, memory, …). */
export interface RowGroup<T> {
  readonly title: string;
  readonly rows: readonly TextRow<T>[];
}

export function terminalTable<T>(
  heads: readonly string[],
  groups: readonly RowGroup<T>[],
  runs: readonly T[],
  bold: (text: string) => string = (t) => t,
): string {
  const table = new Table({ head: ['', ...heads], style: { head: [], border: [] }, chars: COMPACT });
  for (const group of groups) {
    table.push([bold(group.title), ...runs.map(() => '')]);
    for (const row of group.rows) table.push([`  ${row.label}`, ...runs.map((run) => row.cell(run))]);
  }
  return table.toString();
}

export function markdownTable<T>(
  heads: readonly string[],
  groups: readonly RowGroup<T>[],
  runs: readonly T[],
): string[] {
  const out = [`| | ${heads.join(' | ')} |`, `|---|${heads.map(() => '---:').join('|')}|`];
  for (const group of groups) {
    out.push(`| **${group.title}** |${heads.map(() => ' |').join('')}`);
    for (const row of group.rows) out.push(`| ${row.label} | ${runs.map((run) => row.cell(run)).join(' | ')} |`);
  }
  return out;
}

export function htmlTable<T>(heads: readonly string[], groups: readonly RowGroup<T>[], runs: readonly T[]): string {
  const lines = [
    '<div class="wide">',
    '<table>',
    `<thead><tr><th></th>${heads.map((h) => `<th>${escapeXml(h)}</th>`).join('')}</tr></thead>`,
    '<tbody>',
  ];
  for (const group of groups) {
    lines.push(`<tr><th colspan="${heads.length + 1}" style="text-align:left">${escapeXml(group.title)}</th></tr>`);
    for (const row of group.rows)
      lines.push(
        `<tr><td>${escapeXml(row.label)}</td>${runs.map((run) => `<td>${escapeXml(row.cell(run))}</td>`).join('')}</tr>`,
      );
  }
  lines.push('</tbody>', '</table>', '</div>');
  return lines.join('\n');
}
