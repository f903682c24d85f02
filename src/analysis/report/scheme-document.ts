// One comparison of schemes or presets, told three ways: report.md, report.html and
// the terminal view. The R-Type and the schemes-side-by-side reports differ only in
// their rows, findings, charts and settings; the order and headings are this module's.
import type { TerminalStyle } from '../../core/output/index.js';
import { bulletList, jsonBlock, paragraph, schemePage, section } from './scheme-page.js';
import { htmlTable, markdownTable, terminalTable } from './scheme-tables.js';
import type { RowGroup } from './scheme-tables.js';

export interface SchemeDocument<Row> {
  readonly name: string;
  readonly caption: string;
  readonly description: string;
  readonly findings: readonly string[];
  /** The side-by-side table: a column per head, a row per group item. */
  readonly heads: readonly string[];
  readonly groups: readonly RowGroup<Row>[];
  readonly columns: readonly Row[];
  /** What the time series are: a Markdown sentence, and the HTML page's (null: charts only). */
  readonly timeSeries: { readonly markdown: string; readonly html: string | null };
  /** The charts' <figure> elements (chartFigure). */
  readonly charts: readonly string[];
  /** Where the settings come from, in each form, and the settings themselves. */
  readonly settings: {
    readonly markdown: string;
    readonly html: string;
    readonly summary: string;
    readonly value: unknown;
  };
}

export function schemeMarkdown<Row>(doc: SchemeDocument<Row>): string {
  const out = [`# bcsim report: ${doc.name}`, '', `_${doc.caption}_`, ''];
  if (doc.description) out.push(`> ${doc.description}`, '');
  out.push('## What this shows', '', ...doc.findings.map((f) => `- ${f}`), '', '## Side by side', '');
  out.push(...markdownTable(doc.heads, doc.groups, doc.columns), '');
  out.push('## Time series', '', doc.timeSeries.markdown, '');
  out.push(
    '## Settings',
    '',
    doc.settings.markdown,
    '',
    '```json',
    JSON.stringify(doc.settings.value, null, 2),
    '```',
    '',
  );
  return out.join('\n');
}

export function schemeHtml<Row>(doc: SchemeDocument<Row>): string {
  const charts = `<div class="charts">\n${doc.charts.join('\n')}\n</div>`;
  return schemePage({
    title: `bcsim report: ${doc.name}`,
    caption: doc.caption,
    description: doc.description,
    sections: [
      section('What this shows', bulletList(doc.findings)),
      section('Side by side', htmlTable(doc.heads, doc.groups, doc.columns)),
      doc.timeSeries.html === null
        ? section('Time series', charts)
        : section('Time series', paragraph(doc.timeSeries.html), charts),
      section('Settings', paragraph(doc.settings.html), jsonBlock(doc.settings.summary, doc.settings.value)),
    ],
  });
}

export function schemeTerminal<Row>(doc: SchemeDocument<Row>, style: TerminalStyle): string {
  const findings = doc.findings.map((f) => `- ${f}`).join('\n');
  return `${style.bold(doc.caption)}\n${terminalTable(doc.heads, doc.groups, doc.columns, style.bold)}\n${findings}\n`;
}
