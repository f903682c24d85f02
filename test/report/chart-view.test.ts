// What a reader sees in the committed reports, rendered in headless Chromium:
// the join zoomed so stock's fragment re-sends show, every series' peak marked
// with its value, and Okabe–Ito series colours that stand out on every phase.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fmt } from '../../src/core/output/format.js';
import { CHROMIUM, renderInChromium } from '../support/chromium.js';

/** Okabe–Ito without its yellow, as computed style writes it. */
const OKABE_ITO = [
  [213, 94, 0],
  [0, 114, 178],
  [0, 158, 115],
  [0, 0, 0],
  [204, 121, 167],
  [230, 159, 0],
  [86, 180, 233],
].map(([r, g, b]) => `rgb(${r}, ${g}, ${b})`);

interface Probe {
  zoom: { axis: string[]; text: string; lines: { label: string; raised: number }[] } | null;
  charts: {
    metric: string;
    join: boolean;
    hasData: boolean;
    dots: number;
    labels: { text: string; x: number; y: number; w: number; h: number }[];
    width: number;
    height: number;
  }[];
  phases: string[];
  strokes: string[];
}

// Reads the rendered page: polyline points, text boxes and computed colours.
const PROBE = `<script>
const out = { zoom: null, charts: [], phases: [], strokes: [] };
const pts = (p) => Array.from({ length: p.points.numberOfItems }, (_, i) => p.points.getItem(i));
const bottomOf = (svg) => {
  const f = [...svg.querySelectorAll('rect')].filter((r) => r.getAttribute('fill') === 'none' && r.getAttribute('stroke') === '#555').at(-1);
  return f.y.baseVal.value + f.height.baseVal.value;
};
const zoom = document.querySelector('figure.join-chart[data-metric="fragmentRetransmits"] svg');
if (zoom) {
  const bottom = bottomOf(zoom);
  out.zoom = {
    axis: [...zoom.querySelectorAll('text.axis')].map((t) => t.textContent),
    text: zoom.closest('section').querySelector('p').textContent,
    lines: [...zoom.querySelectorAll('polyline')].map((p) => ({
      label: p.querySelector('title').textContent,
      raised: pts(p).filter((q) => q.y < bottom - 1).length,
    })),
  };
}
for (const fig of document.querySelectorAll('figure.chart, figure.join-chart')) {
  const svg = fig.querySelector('svg');
  const bottom = bottomOf(svg);
  out.charts.push({
    metric: fig.dataset.metric,
    join: fig.classList.contains('join-chart'),
    hasData: [...svg.querySelectorAll('polyline')].some((p) => pts(p).some((q) => q.y < bottom - 0.05)),
    dots: svg.querySelectorAll('.peak-mark circle').length,
    labels: [...svg.querySelectorAll('.peak-label')].map((t) => {
      const b = t.getBBox();
      return { text: t.textContent, x: b.x, y: b.y, w: b.width, h: b.height };
    }),
    width: svg.viewBox.baseVal.width,
    height: svg.viewBox.baseVal.height,
  });
}
for (const r of document.querySelectorAll('figure svg rect')) if (r.querySelector('title')) out.phases.push(getComputedStyle(r).fill);
for (const p of document.querySelectorAll('figure svg polyline')) out.strokes.push(getComputedStyle(p).stroke);
const pre = document.createElement('pre'); pre.id = 'view-probe'; pre.textContent = JSON.stringify(out); document.body.append(pre);
</script>`;

function probe(report: string): Probe {
  expect(CHROMIUM, "no /usr/bin/chromium: install Debian's chromium (.ci/run does)").toBeDefined();
  const html = readFileSync(`reports/${report}/report.html`, 'utf8');
  const { dom } = renderInChromium(html.replace('</body>', `${PROBE}</body>`));
  const json = dom.match(/<pre id="view-probe">([^<]*)<\/pre>/)?.[1];
  expect(json, 'the probe did not run').toBeDefined();
  return JSON.parse((json as string).replace(/&quot;/g, '"').replace(/&amp;/g, '&')) as Probe;
}

const rgb = (css: string) => (css.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map(Number);
/** WCAG 2 relative luminance and contrast ratio. */
const luminance = (css: string) => {
  const [r, g, b] = rgb(css).map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};
const contrast = (a: string, b: string) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
};

describe("long-session's report.html in Chromium", () => {
  const view = probe('long-session');
  const summary = JSON.parse(readFileSync('reports/long-session/summary.json', 'utf8'));
  const peers = (mode: string) => summary.runs[mode].peers;

  it('zooms on the join: a seconds axis, stock’s fragment re-sends as raised steps, fixed’s flat', () => {
    expect(view.zoom, 'no zoom on the join').not.toBeNull();
    const zoom = view.zoom as NonNullable<Probe['zoom']>;
    expect(zoom.axis).toContain('simulated time (s)');
    const raised = (label: string) => zoom.lines.find((l) => l.label === label)?.raised ?? 0;
    expect(raised('stock server') + raised('stock client')).toBeGreaterThan(10);
    expect(raised('fixed server') + raised('fixed client')).toBe(0);
    const resends = (mode: string) => peers(mode).server.fragmentRetransmits + peers(mode).client.fragmentRetransmits;
    expect(resends('stock')).toBeGreaterThan(0);
    // Every one of the run's re-sends falls inside the zoom's window.
    expect(zoom.text).toContain(`stock ${fmt(resends('stock'))}, fixed ${fmt(resends('fixed'))}`);
  });

  it('marks the memory peak with its value, on the run’s chart and on the join’s', () => {
    const peak = Math.max(
      ...['stock', 'fixed'].flatMap((m) => [peers(m).server, peers(m).client].map((p) => p.memoryBytes.max)),
    );
    for (const join of [false, true]) {
      const chart = view.charts.find((c) => c.metric === 'memoryBytes' && c.join === join);
      expect(chart?.labels.map((l) => l.text).join(' | '), `join ${join}`).toContain(`peak ${fmt(peak)} at `);
    }
  });
});

describe.each(['long-session', 'schemes-side-by-side', 'rtype-deaths'])(
  '%s: marks and colours in Chromium',
  (report) => {
    const view = probe(report);

    it('every chart with data marks its peaks, labels inside the chart and apart', () => {
      expect(view.charts.length).toBeGreaterThan(0);
      for (const c of view.charts) {
        if (!c.hasData) continue;
        expect(c.dots, c.metric).toBeGreaterThan(0);
        expect(c.labels.length, c.metric).toBe(c.dots);
        for (const l of c.labels) {
          expect(l.x, l.text).toBeGreaterThanOrEqual(0);
          expect(l.x + l.w, l.text).toBeLessThanOrEqual(c.width);
          expect(l.y + l.h, l.text).toBeLessThanOrEqual(c.height);
        }
        for (const [i, a] of c.labels.entries())
          for (const b of c.labels.slice(i + 1)) {
            const apart = a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y + 1 || b.y + b.h <= a.y + 1;
            expect(apart, `${c.metric}: "${a.text}" overlaps "${b.text}"`).toBe(true);
          }
      }
    });

    it('draws series in Okabe–Ito, on hueless phases they keep 3:1 contrast against', () => {
      const strokes = [...new Set(view.strokes)];
      expect(strokes.length).toBeGreaterThan(1);
      for (const s of strokes) expect(OKABE_ITO, s).toContain(s);
      for (const fill of new Set(view.phases)) {
        const [r, g, b] = rgb(fill);
        expect([g, b], `phase ${fill} is grey`).toEqual([r, r]);
        // The two colours of every stock/fixed report: the ones the reader compares.
        for (const s of OKABE_ITO.slice(0, 2)) expect(contrast(s, fill), `${s} on ${fill}`).toBeGreaterThanOrEqual(3);
      }
    });
  },
);
