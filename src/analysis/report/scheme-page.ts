// The page and charts of the scheme reports' report.html: the BC report's style,
// palette and SVG charts (html.ts, svg-chart.ts), one chart per series, every run
// on shared axes. Self-contained: no scripts, nothing loaded.
import type { Bucket } from '../../model/metrics/index.js';
import { PALETTE } from './chart-palette.js';
import { escapeXml, textHtml } from '../../core/output/index.js';
import { STYLE } from './html.js';
import { markSameLines } from './same-lines.js';
import { renderChart } from './svg-chart.js';
import type { PhaseBand } from './svg-chart.js';

export interface SchemeChart {
  readonly id: string;
  readonly title: string;
  readonly unit: string;
  /** One line per run, in column order; a dashed one is drawn dashed. */
  readonly lines: ReadonlyArray<{
    readonly label: string;
    readonly points: readonly Bucket[];
    readonly dashed?: boolean;
  }>;
  readonly caption: string;
  /** What the x axis counts; default simulated time. */
  readonly timeAxis?: string;
}

/**
 * `phases`: shaded spans of the time axis, each named on hover (default none).
 * Lines that coincide are drawn interleaved and named in the caption (same-lines.ts).
 */
export function chartFigure(chart: SchemeChart, endS: number, phases: readonly PhaseBand[] = []): string {
  const { series, note } = markSameLines(
    chart.lines.map((line, i) => ({
      label: line.label,
      series: [
        { label: line.label, color: PALETTE[i % PALETTE.length], dashed: line.dashed ?? false, points: line.points },
      ],
    })),
    [''],
  );
  const svg = renderChart({
    id: `chart-${chart.id}`,
    title: chart.title,
    unit: chart.unit,
    endS,
    series,
    phases,
    ...(chart.timeAxis === undefined ? {} : { timeAxis: chart.timeAxis }),
  });
  return `<figure class="chart" data-metric="${escapeXml(chart.id)}"><h3>${escapeXml(chart.title)}</h3>${svg}<figcaption>${escapeXml(`${note === null ? '' : `${note}. `}${chart.caption}`)}</figcaption></figure>`;
}

export interface SchemePage {
  readonly title: string;
  readonly caption: string;
  readonly description: string;
  /** Sections in order, each already HTML. */
  readonly sections: readonly string[];
}

export function schemePage(page: SchemePage): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeXml(page.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>${escapeXml(page.title)}</h1>
<p class="caption">${escapeXml(page.caption)}</p>
${page.description ? `<blockquote>${textHtml(page.description)}</blockquote>` : ''}
</header>
${page.sections.join('\n')}
</body>
</html>
`;
}

export function section(title: string, ...body: string[]): string {
  return ['<section>', `<h2>${escapeXml(title)}</h2>`, ...body, '</section>'].join('\n');
}

export function bulletList(items: readonly string[]): string {
  return `<ul>\n${items.map((s) => `<li>${escapeXml(s)}</li>`).join('\n')}\n</ul>`;
}

export function paragraph(text: string, cls?: string): string {
  return `<p${cls === undefined ? '' : ` class="${cls}"`}>${escapeXml(text)}</p>`;
}

/** A JSON block for a settings section: what the runs ran with. */
export function jsonBlock(summary: string, value: unknown): string {
  return `<details><summary>${escapeXml(summary)}</summary>\n<pre>${escapeXml(JSON.stringify(value, null, 2))}</pre>\n</details>`;
}
