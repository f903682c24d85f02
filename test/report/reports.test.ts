// Report files: shapes, determinism, self-containment and atomic writes.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, readdirSync, closeSync, readSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { METRICS } from '../../src/model/metrics/recorder.js';
import { TEMP_PREFIX, sweepTemporaries, writeFileAtomic } from '../../src/core/output/atomic-write.js';
import { modesWithCauses, runComparison } from '../../src/analysis/report/compare.js';
import { reportHtml } from '../../src/analysis/report/html.js';
import { summaryJson, timeseriesCsv } from '../../src/analysis/report/documents.js';
import { CHROMIUM, renderInChromium } from '../support/chromium.js';
import { REPORT_FILES, writeReport } from '../../src/analysis/report/write.js';
import { loadScenario } from '../../src/model/scenario/load.js';

const comparison = runComparison(loadScenario('fragment-ack-bug'), { durationUs: 60_000_000 });

describe('summary.json', () => {
  it('holds both runs under runs.stock and runs.fixed, with trends and findings', () => {
    const doc = JSON.parse(summaryJson(comparison));
    expect(doc.schema).toBe('bcsim.compare/1');
    expect(Object.keys(doc.runs)).toEqual(['stock', 'fixed']);
    expect(doc.runs.stock.schema).toBe('bcsim.summary/1');
    expect(doc.runs.stock.mode).toBe('stock');
    expect(doc.runs.fixed.mode).toBe('fixed');
    expect(doc.simulatedSeconds).toBe(60);
    expect(doc.findings.length).toBeGreaterThanOrEqual(5);
    expect(doc.findings[0]).toContain(`peaked at ${doc.runs.stock.peers.server.ackOutbox.max} entries on the server`);
    expect(doc.trends.stock.map((t: { metric: string }) => t.metric)).toContain('ackOutbox');
  });
});

describe('timeseries.csv', () => {
  const lines = timeseriesCsv(comparison).trimEnd().split('\n');
  it('is long format: time,mode,peer,metric,value, one row per bucket', () => {
    expect(lines[0]).toBe('time,mode,peer,metric,value');
    const rows = lines.slice(1).map((l) => l.split(','));
    for (const r of rows) {
      expect(r).toHaveLength(5);
      expect(Number.isFinite(Number(r[0]))).toBe(true);
      expect(['stock', 'fixed']).toContain(r[1]);
      expect(['server', 'client']).toContain(r[2]);
      expect(Number.isFinite(Number(r[4]))).toBe(true);
    }
    // 60 one-second buckets per (mode, peer, metric).
    expect(rows.length).toBe(2 * 2 * METRICS.length * 60);
    const outbox = rows.filter((r) => r[1] === 'stock' && r[2] === 'server' && r[3] === 'ackOutbox');
    expect(outbox.map((r) => Number(r[0]))).toEqual(Array.from({ length: 60 }, (_, i) => i));
  });
});

describe('report.html', () => {
  const html = reportHtml(comparison);
  it('is self-contained: no scripts, no external resources', () => {
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/\b(src|href)=/i);
    expect(html.replace(/xmlns="http:\/\/www\.w3\.org\/2000\/svg"/g, '')).not.toMatch(/https?:\/\//);
  });

  it('has one chart per metric, each one inline SVG with stock and fixed on shared axes', () => {
    const figures = html.match(/<figure class="chart" data-metric="[^"]+">/g) ?? [];
    expect(figures.map((f) => f.match(/data-metric="([^"]+)"/)?.[1])).toEqual(METRICS.map((m) => m.name));
    expect((html.match(/<svg /g) ?? []).length).toBe(METRICS.length);
    const first = html.slice(html.indexOf('<figure'), html.indexOf('</figure>'));
    expect(first).toContain('stock server');
    expect(first).toContain('fixed client');
  });

  it('carries the caption: scenario, seed, version and trace hashes', () => {
    expect(html).toContain('scenario fragment-ack-bug');
    expect(html).toContain('seed 1');
    expect(html).toMatch(/bcsim \d+\.\d+\.\d+/);
    for (const run of comparison.runs) expect(html).toContain(run.summary.traceHash.slice(0, 16));
  });

  const chromium = CHROMIUM;
  const render = renderInChromium;

  // Never skipped: .ci/run installs Debian's chromium when it is missing.
  it('renders in headless Chromium without console errors', () => {
    expect(chromium, "no /usr/bin/chromium: install Debian's chromium (.ci/run does)").toBeDefined();
    // The check itself can fail: a page that logs is caught.
    expect(render('<html><body><script>console.error("boom")</script></body></html>').console.join('\n')).toContain(
      'boom',
    );
    const { dom, console } = render(html);
    expect(console).toEqual([]);
    expect((dom.match(/<figure class="chart"/g) ?? []).length).toBe(METRICS.length);
    expect((dom.match(/<svg /g) ?? []).length).toBe(METRICS.length);
  });

  // The legends as Chromium lays them out, in the window sizes below:
  // a probe appended to a copy of the report (the report itself has no
  // scripts) reads the rendered boxes and writes them into the DOM as JSON.
  const PROBE = `<script>
const r = (e) => { const b = e.getBoundingClientRect(); return { left: b.left, right: b.right, top: b.top, bottom: b.bottom }; };
const charts = [...document.querySelectorAll('figure.chart svg')].map((svg) => ({
  svg: r(svg),
  frame: r([...svg.querySelectorAll('rect[stroke="#555"]')].at(-1)),
  items: [...svg.querySelectorAll('g.legend-item')].map((g) => ({
    label: g.querySelector('text').textContent,
    box: r(g.querySelector('rect.legend-box')),
    text: r(g.querySelector('text')),
    lines: [...g.querySelectorAll('line')].map(r),
  })),
}));
const pre = document.createElement('pre');
pre.id = 'legend-probe';
pre.textContent = JSON.stringify({ innerWidth, clientWidth: document.documentElement.clientWidth, charts });
document.body.append(pre);
</script>`;
  interface Rect {
    left: number;
    right: number;
    top: number;
    bottom: number;
  }
  interface Probe {
    innerWidth: number;
    clientWidth: number;
    charts: { svg: Rect; frame: Rect; items: { label: string; box: Rect; text: Rect; lines: Rect[] }[] }[];
  }
  const causes = runComparison(loadScenario('fragment-ack-bug'), { durationUs: 20_000_000, modes: modesWithCauses() });
  const reports = { 2: html, 7: reportHtml(causes) } as const;
  const EPS = 0.5; // CSS px of rounding slack
  it.each([
    [2, 1400],
    [7, 1400],
    [2, 800],
    [7, 800],
  ] as const)('with %i columns at %i px, every legend lies inside its chart in headless Chromium', (columns, width) => {
    expect(chromium, "no /usr/bin/chromium: install Debian's chromium (.ci/run does)").toBeDefined();
    const page = reports[columns];
    const { dom, console } = render(page.replace('</body>', `${PROBE}</body>`), width);
    expect(console).toEqual([]);
    const json = dom.match(/<pre id="legend-probe">([^<]*)<\/pre>/)?.[1];
    expect(json, 'the probe did not run').toBeDefined();
    const probe = JSON.parse(
      (json as string)
        .replace(/&quot;/g, '"')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&amp;/g, '&'),
    ) as Probe;
    expect(probe.innerWidth).toBe(width);
    expect(probe.charts).toHaveLength(METRICS.length);
    const labels = [
      'server',
      'client',
      ...(columns === 2 ? ['stock', 'fixed'] : causes.runs.map((run) => run.spec.label)),
    ];
    expect(labels).toHaveLength(columns + 2);
    const inside = (inner: Rect, outer: Rect) =>
      inner.left >= outer.left - EPS &&
      inner.right <= outer.right + EPS &&
      inner.top >= outer.top - EPS &&
      inner.bottom <= outer.bottom + EPS;
    const overlap = (a: Rect, b: Rect) =>
      a.left < b.right - EPS && b.left < a.right - EPS && a.top < b.bottom - EPS && b.top < a.bottom - EPS;
    for (const chart of probe.charts) {
      // The chart fits the window, and nothing of its legend is clipped or hidden.
      expect(chart.svg.left).toBeGreaterThanOrEqual(0);
      expect(chart.svg.right).toBeLessThanOrEqual(probe.clientWidth + EPS);
      expect(chart.items.map((i) => i.label)).toEqual(labels);
      const drawn = chart.items.map((item) => {
        const all = [item.text, ...item.lines];
        const extent = {
          left: Math.min(...all.map((b) => b.left)),
          right: Math.max(...all.map((b) => b.right)),
          top: Math.min(...all.map((b) => b.top)),
          bottom: Math.max(...all.map((b) => b.bottom)),
        };
        expect(inside(extent, chart.svg), `${item.label} outside its SVG at ${width} px`).toBe(true);
        // The text drawn in the real font stays within the width estimated from its characters.
        expect(item.text.right, `${item.label} overruns its estimated box`).toBeLessThanOrEqual(item.box.right + EPS);
        expect(extent.bottom, `${item.label} runs into the plot`).toBeLessThanOrEqual(chart.frame.top);
        return extent;
      });
      for (let i = 0; i < drawn.length; i++)
        for (let j = i + 1; j < drawn.length; j++)
          expect(overlap(drawn[i], drawn[j]), `${labels[i]} overlaps ${labels[j]} at ${width} px`).toBe(false);
    }
  });
});

describe('atomic writes', () => {
  it('writes all four files and leaves no temporaries', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bcsim-write-'));
    const written = writeReport(dir, comparison);
    expect(written.map((p) => p.slice(dir.length + 1))).toEqual([...REPORT_FILES]);
    expect(readdirSync(dir).sort()).toEqual([...REPORT_FILES].sort());
  });

  it('a writer killed mid-write leaves the previous file intact, and its temporary is swept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bcsim-kill-'));
    writeFileAtomic(dir, 'summary.json', '{"version":1}\n');
    // The child waits for a go-ahead, then writes 4 MB through writeFileAtomic.
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { writeFileAtomic } from ${JSON.stringify(new URL('../../dist/core/output/atomic-write.js', import.meta.url).href)};
         process.stdin.once('data', () => writeFileAtomic(${JSON.stringify(dir)}, 'summary.json', 'x'.repeat(4 << 20)));`,
      ],
      { stdio: ['pipe', 'inherit', 'inherit'] },
    );
    // Its temporary is a FIFO: the write blocks once the pipe is full, so the
    // kill lands while the file is half written, every time.
    const temp = join(dir, `${TEMP_PREFIX}${child.pid}-summary.json`);
    execFileSync('mkfifo', [temp]);
    child.stdin.write('go\n');
    const fd = openSync(temp, 'r');
    const chunk = Buffer.alloc(4096);
    expect(readSync(fd, chunk, 0, chunk.length, null)).toBeGreaterThan(0); // writing has begun
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    closeSync(fd);
    expect(readFileSync(join(dir, 'summary.json'), 'utf8')).toBe('{"version":1}\n');
    expect(readdirSync(dir).some((n) => n.startsWith(TEMP_PREFIX))).toBe(true);
    sweepTemporaries(dir);
    expect(readdirSync(dir)).toEqual(['summary.json']);
  });
});
