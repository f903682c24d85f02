// The join, second by second. The main charts squeeze a long run into 720 px,
// where the join and the fragment re-sends right after it fill one pixel. These
// charts draw each series' head window (the recorder's first HEAD_SECONDS, one
// sample a second) as steps, so each second's re-sends show as a bar.
import { usToSeconds } from '../../core/engine/index.js';
import { HEAD_SECONDS, METRICS } from '../../model/metrics/index.js';
import type { Bucket, MetricName } from '../../model/metrics/index.js';
import { chartLegend, chartSeries, phaseBands, strokesNote } from './chart-series.js';
import type { Comparison } from './compare.js';
import { escapeXml, fmt } from '../../core/output/index.js';
import { renderChart } from './svg-chart.js';

/** The figures the join moves: the re-sends, and what waits on them. */
const JOIN_FIGURES: readonly MetricName[] = ['fragmentRetransmits', 'retransmits', 'ackOutbox', 'memoryBytes'];

/** How many a rate's per-second buckets add up to. */
const total = (points: readonly Bucket[]) => Math.round(points.reduce((n, p) => n + p.mean * p.width, 0));

/** The section, or nothing when the main charts already show the join at one bucket a second. */
export function joinZoomHtml(comparison: Comparison): string {
  const probe = comparison.runs[0]?.recorded.series.server.fragmentRetransmits;
  if (probe === undefined || probe.bucketWidth <= 1 || probe.head().length === 0) return '';
  const runEndS = usToSeconds(comparison.durationUs);
  const endS = Math.min(HEAD_SECONDS, runEndS);
  const phases = phaseBands(comparison, runEndS).filter((b) => b.startS < endS);
  const legend = chartLegend(comparison);
  const figures = JOIN_FIGURES.map((name) => {
    const metric = METRICS.find((m) => m.name === name);
    if (metric === undefined) throw new Error(`join zoom: no metric ${name}`);
    const { series, note } = chartSeries(comparison, name, (s) => s.head());
    const svg = renderChart({
      id: `join-${name}`,
      title: `${metric.title}, first ${endS} s`,
      unit: metric.unit,
      endS,
      series,
      phases,
      legend,
      steps: true,
    });
    const caption = `${note === null ? '' : `${note}. `}One step a simulated second; ${strokesNote(comparison)}.`;
    return `<figure class="join-chart" data-metric="${name}"><h3>${escapeXml(metric.title)}, first ${endS} s</h3>${svg}<figcaption>${escapeXml(caption)}</figcaption></figure>`;
  });
  const resends = comparison.runs
    .map((run) => {
      const s = run.recorded.series;
      return `${run.spec.label} ${fmt(total(s.server.fragmentRetransmits.head()) + total(s.client.fragmentRetransmits.head()))}`;
    })
    .join(', ');
  return `<section class="join-zoom">
<h2>The join, second by second</h2>
<p>The charts below span the whole run, where the join is a pixel wide. Here are its first ${endS} s at one step a second. Fragment re-sends in these ${endS} s, both ends together: ${escapeXml(resends)}.</p>
<div class="charts">
${figures.join('\n')}
</div>
</section>
`;
}
