// Chart legends: wrapped onto rows inside the SVG's width, checked on the SVG
// geometry of a 7-column (compare --causes) and a 2-column report.
import { describe, expect, it } from 'vitest';
import { METRICS } from '../../src/model/metrics/recorder.js';
import { modesWithCauses, runComparison, STOCK_AND_FIXED } from '../../src/analysis/report/compare.js';
import { reportHtml } from '../../src/analysis/report/html.js';
import { CHART_WIDTH, layoutLegend, renderChart } from '../../src/analysis/report/svg-chart.js';
import type { ChartSeries } from '../../src/analysis/report/svg-chart.js';
import { loadScenario } from '../../src/model/scenario/load.js';

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

const num = (tag: string, name: string): number => {
  const m = tag.match(new RegExp(`\\s${name}="([^"]*)"`));
  if (!m) throw new Error(`no ${name} in ${tag}`);
  return Number(m[1]);
};
const boxOf = (tag: string): Box => ({
  x: num(tag, 'x'),
  y: num(tag, 'y'),
  width: num(tag, 'width'),
  height: num(tag, 'height'),
});

/** The geometry of one rendered chart, read back from its SVG text. */
function parseChart(svg: string) {
  const open = svg.match(/^<svg [^>]*>/)?.[0] ?? '';
  const [vx, vy, width, height] = (open.match(/viewBox="([^"]+)"/)?.[1] ?? '').split(' ').map(Number);
  expect([vx, vy]).toEqual([0, 0]);
  expect(num(open, 'width')).toBe(width);
  expect(num(open, 'height')).toBe(height);
  const items = [...svg.matchAll(/<g class="legend-item">(.*?)<\/g>/g)].map((m) => {
    const inner = m[1];
    const box = boxOf(inner.match(/<rect class="legend-box"[^>]*>/)?.[0] ?? '');
    const lines = [...inner.matchAll(/<line [^>]*>/g)].map((l) => ({
      x1: num(l[0], 'x1'),
      x2: num(l[0], 'x2'),
      y: num(l[0], 'y1'),
    }));
    const textTag = inner.match(/<text [^>]*>/)?.[0] ?? '';
    const label = (inner.match(/<text [^>]*>(?:<title>[^<]*<\/title>)?([^<]*)<\/text>/)?.[1] ?? '')
      .replace(/&amp;/g, '&')
      .replace(/&lt;/g, '<');
    return {
      box,
      lines,
      textX: num(textTag, 'x'),
      textY: num(textTag, 'y'),
      label,
      title: inner.match(/<title>([^<]*)<\/title>/)?.[1],
    };
  });
  // The plot frame is the last full rect with a stroke; the unit label sits just above it.
  const frame = boxOf([...svg.matchAll(/<rect [^>]*fill="none" stroke="#555"\/>/g)].at(-1)?.[0] ?? '');
  // The unit label is the axis text with no text-anchor (the time label is centred).
  const unitY = num(svg.match(/<text x="[^"]*" y="[^"]*" class="axis">/)?.[0] ?? '', 'y');
  return { width, height, items, frame, unitY };
}

const overlaps = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** Every legend item inside [0, width], none overlapping another, all above the plot. */
function expectLegendInside(chart: ReturnType<typeof parseChart>) {
  expect(chart.width).toBe(CHART_WIDTH);
  for (const { box, lines, textX, label } of chart.items) {
    expect(box.x, label).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width, label).toBeLessThanOrEqual(chart.width);
    expect(box.y, label).toBeGreaterThanOrEqual(0);
    // What is drawn starts inside the box: line samples, then the label.
    for (const l of lines) {
      expect(l.x1).toBeGreaterThanOrEqual(box.x);
      expect(l.x2).toBeLessThan(textX);
      expect(l.y).toBeGreaterThan(box.y);
      expect(l.y).toBeLessThan(box.y + box.height);
    }
    expect(textX).toBeLessThan(box.x + box.width);
    // Below the legend: the unit label's row (11 px text), then the plot.
    expect(box.y + box.height, label).toBeLessThanOrEqual(chart.unitY - 11);
    expect(box.y + box.height, label).toBeLessThan(chart.frame.y);
  }
  for (let i = 0; i < chart.items.length; i++)
    for (let j = i + 1; j < chart.items.length; j++)
      expect(
        overlaps(chart.items[i].box, chart.items[j].box),
        `${chart.items[i].label} overlaps ${chart.items[j].label}`,
      ).toBe(false);
  expect(chart.frame.y + chart.frame.height).toBeLessThan(chart.height);
}

const scenario = loadScenario('fragment-ack-bug');
const svgsOf = (html: string) => html.match(/<svg [\s\S]*?<\/svg>/g) ?? [];

describe('chart legend, 7 columns (compare --causes)', () => {
  const comparison = runComparison(scenario, { durationUs: 5_000_000, modes: modesWithCauses() });
  const labels = comparison.runs.map((r) => r.spec.label);
  const svgs = svgsOf(reportHtml(comparison));

  it('is a comparison of 7 modes, one chart per metric', () => {
    expect(labels).toHaveLength(7);
    expect(svgs).toHaveLength(METRICS.length);
  });

  it('every legend item lies inside the SVG width, none overlap, all above the plot', () => {
    for (const svg of svgs) {
      const chart = parseChart(svg);
      expectLegendInside(chart);
      // A key for the two strokes, then every mode, each label whole.
      expect(chart.items.map((i) => i.label)).toEqual(['server', 'client', ...labels]);
      expect(chart.items.every((i) => i.title === undefined)).toBe(true);
    }
  });

  it('wraps onto more than one row, and the SVG grows to hold them', () => {
    const chart = parseChart(svgs[0] ?? '');
    const rows = new Set(chart.items.map((i) => i.box.y)).size;
    expect(rows).toBeGreaterThan(1);
    const two = parseChart(
      svgsOf(reportHtml(runComparison(scenario, { durationUs: 5_000_000, modes: STOCK_AND_FIXED })))[0] ?? '',
    );
    expect(new Set(two.items.map((i) => i.box.y)).size).toBe(1);
    expect(chart.height - two.height).toBe((rows - 1) * 16);
    expect(chart.frame.height).toBe(two.frame.height);
  });

  it('a chart left to its default legend (one entry per line, 14 here) also stays inside', () => {
    const series: ChartSeries[] = comparison.runs.flatMap((run, i) =>
      (['server', 'client'] as const).map((peer) => ({
        label: `${run.spec.label} ${peer}`,
        color: `#00000${i}`,
        dashed: peer === 'client',
        points: run.recorded.series[peer].ackOutbox.points(),
      })),
    );
    const chart = parseChart(renderChart({ id: 'c', title: 't', unit: 'entries', endS: 5, series, phases: [] }));
    expect(chart.items.map((i) => i.label)).toEqual(series.map((s) => s.label));
    expectLegendInside(chart);
  });
});

describe('chart legend, 2 columns', () => {
  it('every legend item lies inside the SVG width on one row', () => {
    const svgs = svgsOf(reportHtml(runComparison(scenario, { durationUs: 5_000_000 })));
    expect(svgs).toHaveLength(METRICS.length);
    for (const svg of svgs) {
      const chart = parseChart(svg);
      expectLegendInside(chart);
      expect(chart.items.map((i) => i.label)).toEqual(['server', 'client', 'stock', 'fixed']);
    }
  });
});

describe('layoutLegend', () => {
  it('cuts a label too long for any row, keeping the full text in a <title>', () => {
    const label = `cause:${'x'.repeat(200)}`;
    const { items, rows } = layoutLegend([
      { label: 'short', color: '#000', strokes: ['solid'] },
      { label, color: '#000', strokes: ['solid', 'dashed'] },
    ]);
    expect(rows).toBe(2);
    expect(items[1].text.endsWith('…')).toBe(true);
    expect(items[1].text.length).toBeLessThan(label.length);
    const chart = parseChart(
      renderChart({
        id: 'c',
        title: 't',
        unit: 'u',
        endS: 1,
        phases: [],
        series: [{ label, color: '#000', dashed: false, points: [] }],
      }),
    );
    expectLegendInside(chart);
    expect(chart.items[0].title).toBe(label);
  });

  it('is deterministic and starts a new row only when an item would cross the right edge', () => {
    const entries = Array.from({ length: 30 }, (_, i) => ({
      label: `mode-${'m'.repeat(i % 9)}`,
      color: '#000',
      strokes: ['solid', 'dashed'] as const,
    }));
    const a = layoutLegend(entries);
    expect(layoutLegend(entries)).toEqual(a);
    for (let i = 1; i < a.items.length; i++) {
      const prev = a.items[i - 1];
      const cur = a.items[i];
      if (cur.row === prev.row) expect(cur.x).toBeGreaterThan(prev.x + prev.width);
      else {
        expect(cur.row).toBe(prev.row + 1);
        // It did not fit after the previous item.
        expect(prev.x + prev.width + 10 + cur.width).toBeGreaterThan(CHART_WIDTH - 16);
      }
    }
  });
});
