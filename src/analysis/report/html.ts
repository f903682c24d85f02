// report.html: one self-contained file, inline CSS and SVG, no scripts and no
// network. One chart per metric, every mode on shared axes, phases shaded.
import { usToSeconds } from '../../core/engine/index.js';
import { METRICS } from '../../model/metrics/index.js';
import type { Metric } from '../../model/metrics/index.js';
import type { Comparison } from './compare.js';
import { PHASE_STYLE, phaseSwatchCss } from './chart-palette.js';
import { chartLegend, chartSeries, phaseBands, strokesNote } from './chart-series.js';
import { isMultiClient } from './connections.js';
import { anomaliesHtml, caption, phaseLine, worstConnectionsNote } from './documents.js';
import { escapeXml, textHtml } from '../../core/output/index.js';
import { allLowerIsBetter, cell, cellVerdict, rowsFor } from './metrics-table.js';
import { findings, headline, opening } from './narrative.js';
import { settingsHtml } from './settings.js';
import { joinZoomHtml } from './join-zoom.js';
import { renderChart } from './svg-chart.js';

export const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1000px;color:#222;padding:0 16px}
h1{font-size:22px;margin-bottom:4px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd;padding-bottom:4px}
.caption{color:#555;font-size:12px;margin-top:0}blockquote{color:#444;border-left:3px solid #ccc;margin:8px 0;padding:2px 12px}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ddd;padding:3px 8px;text-align:right}td:first-child,th:first-child{text-align:left}
.charts{display:grid;grid-template-columns:1fr;gap:18px}figure{margin:0}figure svg{width:100%;height:auto}figcaption{font-size:12px;color:#555}h3{font-size:15px;margin:0 0 4px}
code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace;background:#f3f3f3;padding:0 3px;border-radius:3px}
svg .tick{font-size:11px;fill:#444}svg .axis{font-size:11px;fill:#333}svg .legend{font-size:11px;fill:#222}
.settings td,.settings th{text-align:left}.wide{overflow-x:auto;max-width:100%}pre{background:#f6f8fa;border:1px solid #ddd;padding:8px;overflow-x:auto;font-size:12px}summary{cursor:pointer;color:#444}
.better{color:#1a7f37}.worse{color:#b42318}.key span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:middle;border:1px solid #bbb}
`;

export function reportHtml(comparison: Comparison): string {
  const endS = usToSeconds(comparison.durationUs);
  const phases = phaseBands(comparison, endS);
  const legend = chartLegend(comparison);
  const multi = isMultiClient(comparison);
  const charts = METRICS.map((metric) => {
    const { series, note } = chartSeries(comparison, metric.name, (s) => s.points());
    const svg = renderChart({
      id: `chart-${metric.name}`,
      title: metric.title,
      unit: metric.unit,
      endS,
      series,
      phases,
      legend,
    });
    return `<figure class="chart" data-metric="${metric.name}"><h3>${escapeXml(metric.title)}</h3>${svg}<figcaption>${escapeXml(
      `${note === null ? '' : `${note}. `}${upperFirst(lineAndBand(metric))}; ${strokesNote(comparison)}.`,
    )}</figcaption></figure>`;
  });
  const head = comparison.runs.map((r) => `<th>${escapeXml(r.spec.label)}</th>`).join('');
  const tableRows = rowsFor(comparison);
  const direction = allLowerIsBetter(tableRows)
    ? 'Lower is better on every row'
    : 'Each row is judged in its better direction (the counter schema’s)';
  const rows = tableRows
    .map((row) => {
      const cells = comparison.runs
        .map((run, i) => {
          const verdict = cellVerdict(row, run, comparison.runs[0], i === 0);
          const cls = verdict === null ? '' : ` class="${verdict}"`;
          return `<td${cls}>${escapeXml(cell(row, run))}</td>`;
        })
        .join('');
      return `<tr><td>${escapeXml(row.label)}</td>${cells}</tr>`;
    })
    .join('\n');
  const key = Object.entries(PHASE_STYLE)
    .map(([kind, style]) => `<span style="${phaseSwatchCss(style)}"></span>${kind}`)
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeXml(headline(comparison))}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>${escapeXml(headline(comparison))}</h1>
<p class="caption">${caption(comparison).map(escapeXml).join(' · ')}</p>
${comparison.scenario.description ? `<blockquote>${textHtml(comparison.scenario.description)}</blockquote>` : ''}
</header>
<section>
<h2>What this shows</h2>
${openingHtml(comparison)}<ul>
${findings(comparison)
  .map((s) => `<li>${textHtml(s)}</li>`)
  .join('\n')}
</ul>
</section>
<section>
<h2>Side by side</h2>
<div class="wide">
<table>
<thead><tr><th>metric</th>${head}</tr></thead>
<tbody>
${rows}
</tbody>
</table>
</div>
<p class="caption">${direction}; columns after the first are coloured against it.</p>
</section>
${anomaliesHtml(comparison)}
${joinZoomHtml(comparison)}<section>
<h2>Time series</h2>
<p class="key">Phases: ${key}. Traffic: ${escapeXml(phaseLine(comparison))}.</p>
${multi ? `<p class="worst">${textHtml(worstConnectionsNote(comparison))}</p>\n` : ''}<div class="charts">
${charts.join('\n')}
</div>
</section>
${settingsHtml(comparison)}
</body>
</html>
`;
}

/**
 * What a chart's line and band are. Every series is sampled once a simulated
 * second; the transport also tracks the highest value between two samples of
 * the gauges and of the two per-event ratios (transport interval-peaks.ts), so
 * their band reaches the peak the table shows.
 */
/** The opening sentences as one paragraph, or nothing. */
function openingHtml(comparison: Comparison): string {
  const sentences = opening(comparison);
  return sentences.length === 0 ? '' : `<p class="opening">${textHtml(sentences.join(' '))}</p>\n`;
}

function upperFirst(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function lineAndBand(metric: Metric): string {
  if (metric.kind === 'gauge')
    return 'sampled once a simulated second, the line the mean of each bucket’s samples, the band from the lowest sample to the highest value reached (between samples too)';
  const most =
    metric.name === 'ackBytesPerPacket'
      ? ' in one datagram'
      : metric.name === 'dedupPerMessage'
        ? ' in one lookup'
        : null;
  if (most !== null)
    return `each second’s ratio, the line its mean over the bucket, the band from the lowest second to the highest value${most}`;
  return 'each second’s count, the line its mean over the bucket, the band from the lowest second to the highest';
}
