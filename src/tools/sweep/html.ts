// The sweep's HTML page: one self-contained file (inline CSS and SVG, no
// scripts, nothing loaded), a table per metric and, when one numeric parameter
// is varied, a chart of the median with its min–max band per mode.
import { PALETTE, niceTicks } from '../../analysis/report/index.js';
import { escapeXml, fmt } from '../../core/output/index.js';
import type { SummaryRow, SweepSummary } from './aggregate.js';
import { valueText } from './table.js';

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1000px;color:#222;padding:0 16px}
h1{font-size:22px;margin-bottom:4px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd;padding-bottom:4px}
.caption{color:#555;font-size:12px;margin-top:0}table{border-collapse:collapse;font-size:13px}
td,th{border:1px solid #ddd;padding:3px 8px;text-align:right}td:first-child,th:first-child{text-align:left}
figure{margin:12px 0}figure svg{width:100%;height:auto;max-width:720px}figcaption{font-size:12px;color:#555}
svg .tick{font-size:11px;fill:#444}svg .axis{font-size:11px;fill:#333}svg .legend{font-size:11px;fill:#222}.failed{color:#b42318}
`;

export interface SweepPageInfo {
  readonly title: string;
  /** Lines under the title: scenario, grid, settings. */
  readonly notes: readonly string[];
}

export function sweepHtml(summary: SweepSummary, info: SweepPageInfo): string {
  const sections = summary.metrics.map((metric, i) => {
    const chart = numericAxis(summary) ? chartSvg(summary, metric, `chart-${i}`) : '';
    return `<section class="metric" data-metric="${escapeXml(metric)}"><h2>${escapeXml(metric)}</h2>\n${metricTable(summary, metric)}\n${chart}</section>`;
  });
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeXml(info.title)}</title><style>${STYLE}</style></head>
<body>
<h1>${escapeXml(info.title)}</h1>
${info.notes.map((n) => `<p class="caption">${escapeXml(n)}</p>`).join('\n')}
<p>${summary.runs} runs; ${summary.failed > 0 ? `<span class="failed">${summary.failed} failed their expect block</span>` : 'none failed its expect block'}. Each cell: min / median / max over the seeds.</p>
${sections.join('\n')}
</body>
</html>
`;
}

function metricTable(summary: SweepSummary, metric: string): string {
  const head = ['mode', ...summary.paths, 'runs', 'failed', 'min', 'median', 'max']
    .map((h) => `<th>${escapeXml(h)}</th>`)
    .join('');
  const rows = summary.rows.map((row) => {
    const s = row.stats[metric];
    const cells = [
      row.mode,
      ...summary.paths.map((p) => valueText(row.vary[p])),
      String(row.runs),
      String(row.failed),
      ...(s === null ? ['–', '–', '–'] : [fmt(s.min), fmt(s.median), fmt(s.max)]),
    ];
    return `<tr>${cells.map((c) => `<td>${escapeXml(c)}</td>`).join('')}</tr>`;
  });
  return `<table><thead><tr>${head}</tr></thead><tbody>\n${rows.join('\n')}\n</tbody></table>`;
}

/** A chart needs exactly one varied path whose values are all numbers. */
function numericAxis(summary: SweepSummary): boolean {
  return (
    summary.paths.length === 1 &&
    summary.rows.length > 0 &&
    summary.rows.every((r) => typeof r.vary[summary.paths[0]] === 'number')
  );
}

const W = 720;
const H = 300;
const M = { left: 64, right: 16, top: 34, bottom: 40 };

function chartSvg(summary: SweepSummary, metric: string, id: string): string {
  const path = summary.paths[0];
  const modes = [...new Set(summary.rows.map((r) => r.mode))];
  const xOf = (r: SummaryRow) => r.vary[path] as number;
  const xs = summary.rows.map(xOf);
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  let yMax = 0;
  for (const r of summary.rows) yMax = Math.max(yMax, r.stats[metric]?.max ?? 0);
  const yTicks = niceTicks(yMax);
  const yTop = yTicks[yTicks.length - 1] || 1;
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  const r1 = (v: number) => Math.round(v * 10) / 10;
  const x = (v: number) => r1(M.left + (x1 === x0 ? plotW / 2 : ((v - x0) / (x1 - x0)) * plotW));
  const y = (v: number) => r1(M.top + plotH - (v / yTop) * plotH);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-labelledby="${id}-title">`,
    `<title id="${id}-title">${escapeXml(`${metric} against ${path}`)}</title>`,
  ];
  for (const t of yTicks) {
    parts.push(
      `<line x1="${M.left}" x2="${W - M.right}" y1="${y(t)}" y2="${y(t)}" stroke="#ddd"/><text x="${M.left - 6}" y="${y(t) + 4}" text-anchor="end" class="tick">${fmt(t)}</text>`,
    );
  }
  for (const v of [...new Set(xs)].sort((a, b) => a - b)) {
    parts.push(
      `<line x1="${x(v)}" x2="${x(v)}" y1="${M.top + plotH}" y2="${M.top + plotH + 4}" stroke="#555"/><text x="${x(v)}" y="${M.top + plotH + 16}" text-anchor="middle" class="tick">${fmt(v)}</text>`,
    );
  }
  parts.push(
    `<text x="${M.left + plotW / 2}" y="${H - 6}" text-anchor="middle" class="axis">${escapeXml(path)}</text>`,
  );
  modes.forEach((mode, i) => {
    const color = PALETTE[i % PALETTE.length];
    const points = summary.rows
      .filter((r) => r.mode === mode && r.stats[metric] !== null)
      .sort((a, b) => xOf(a) - xOf(b));
    if (points.length === 0) return;
    const stat = (r: SummaryRow) => r.stats[metric] as NonNullable<SummaryRow['stats'][string]>;
    const upper = points.map((r) => `${x(xOf(r))},${y(stat(r).max)}`);
    const lower = [...points].reverse().map((r) => `${x(xOf(r))},${y(stat(r).min)}`);
    parts.push(
      `<polygon points="${[...upper, ...lower].join(' ')}" fill="${color}" fill-opacity="0.12" stroke="${color}" stroke-opacity="0.3"/>`,
    );
    parts.push(
      `<polyline points="${points.map((r) => `${x(xOf(r))},${y(stat(r).median)}`).join(' ')}" fill="none" stroke="${color}" stroke-width="1.8"><title>${escapeXml(`${mode} median`)}</title></polyline>`,
    );
    for (const r of points) parts.push(`<circle cx="${x(xOf(r))}" cy="${y(stat(r).median)}" r="2.5" fill="${color}"/>`);
    parts.push(
      `<line x1="${M.left + 8 + i * 150}" x2="${M.left + 26 + i * 150}" y1="12" y2="12" stroke="${color}" stroke-width="2"/><text x="${M.left + 30 + i * 150}" y="16" class="legend">${escapeXml(`${mode}: median, min–max`)}</text>`,
    );
  });
  parts.push(
    `<rect x="${M.left}" y="${M.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#555"/>`,
    '</svg>',
  );
  return `<figure class="chart">${parts.join('')}<figcaption>${escapeXml(`${metric}: the median over the seeds as a line, min to max as a band, against ${path}.`)}</figcaption></figure>`;
}
