// Lines that coincide: the later series would hide the earlier one entirely,
// so the chart says so and draws the covering line with gaps the other shows through.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { markSameLines } from '../../src/analysis/report/same-lines.js';
import type { ChartSeries } from '../../src/analysis/report/svg-chart.js';
import { CHROMIUM, renderInChromium } from '../support/chromium.js';

const line = (label: string, values: number[]): ChartSeries => ({
  label,
  color: '#000',
  dashed: false,
  points: values.map((v, t) => ({ t, width: 1, min: v, max: v, mean: v, count: 1 })),
});

describe('markSameLines', () => {
  it('groups the runs whose series coincide, per role, and leaves the others alone', () => {
    const runs = [
      { label: 'stock', series: [line('s', [1, 2, 3]), line('c', [0, 0, 1])] },
      { label: 'fixed', series: [line('s', [1, 2, 3]), line('c', [0, 0, 2])] },
      { label: 'other', series: [line('s', [1, 2, 3]), line('c', [0, 0, 2])] },
    ];
    const { series, note } = markSameLines(runs, ['server', 'client']);
    expect(note).toBe(
      'Identical series, one line in alternating colours: stock = fixed = other (server); fixed = other (client)',
    );
    expect(series.map((s) => s.interleave)).toEqual([
      { index: 0, of: 3 },
      undefined,
      { index: 1, of: 3 },
      { index: 0, of: 2 },
      { index: 2, of: 3 },
      { index: 1, of: 2 },
    ]);
    expect(markSameLines(runs.slice(0, 1), ['server', 'client']).note).toBeNull();
  });
});

describe("long-session's report.html", () => {
  const html = readFileSync('reports/long-session/report.html', 'utf8');
  const figures = [...html.matchAll(/<figure class="chart" data-metric="(\w+)">(.*?)<\/figure>/gs)];
  const polylines = (figure: string) =>
    [...figure.matchAll(/<polyline points="([^"]*)"([^>]*)><title>([^<]*)<\/title>/g)].map((m) => ({
      points: m[1],
      attrs: m[2],
      label: m[3],
    }));

  it('says where stock and fixed coincide, and only there', () => {
    const claimed = new Set<string>();
    for (const [, metric, body] of figures) {
      const lines = polylines(body);
      const same =
        lines.find((l) => l.label === 'stock server')?.points === lines.find((l) => l.label === 'fixed server')?.points;
      if (body.includes('stock = fixed (server')) claimed.add(metric);
      expect(body.includes('stock = fixed (server'), metric).toBe(same);
    }
    // The two the report's readers could not see: the stock line lay under the fixed one.
    expect([...claimed]).toEqual(expect.arrayContaining(['retransmitQueue', 'packetsSent']));
  });

  it('draws the covering line with gaps the hidden one shows through, in Chromium', () => {
    expect(CHROMIUM, "no /usr/bin/chromium: install Debian's chromium (.ci/run does)").toBeDefined();
    const probe = `<script>const out = {};
for (const f of document.querySelectorAll('figure.chart[data-metric="retransmitQueue"] polyline'))
  out[f.querySelector('title').textContent] = getComputedStyle(f).strokeDasharray;
const p = document.createElement('pre'); p.id = 'dash-probe'; p.textContent = JSON.stringify(out); document.body.append(p);</script>`;
    const { dom } = renderInChromium(html.replace('</body>', `${probe}</body>`));
    const json = dom.match(/<pre id="dash-probe">([^<]*)<\/pre>/)?.[1];
    expect(json, 'the probe did not run').toBeDefined();
    const dashes = JSON.parse((json as string).replace(/&quot;/g, '"')) as Record<string, string>;
    expect(dashes['stock server']).toBe('none');
    expect(dashes['fixed server']).toBe('6px, 6px');
    expect(dashes['stock client']).not.toBe('none');
  });
});

describe("rtype-deaths' report.html (a scheme report)", () => {
  it('says where lines coincide, and only there', () => {
    const html = readFileSync('reports/rtype-deaths/report.html', 'utf8');
    const figures = [...html.matchAll(/<figure class="chart" data-metric="[^"]+">(.*?)<\/figure>/gs)].map((m) => m[1]);
    expect(figures.length).toBeGreaterThan(0);
    let claimed = 0;
    for (const body of figures) {
      const points = [...body.matchAll(/<polyline points="([^"]*)"/g)].map((m) => m[1]);
      const repeated = new Set(points).size < points.length;
      const says = /<figcaption>Identical series, one line in alternating colours: /.test(body);
      expect(says, body.slice(0, 80)).toBe(repeated);
      if (says) claimed++;
    }
    // Its documented and repaired R-Type draw the same lines on some charts.
    expect(claimed).toBeGreaterThan(0);
  });
});
