// Report files: shapes, determinism, self-containment and atomic writes.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync, readdirSync, closeSync, readSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { METRICS } from '../../src/metrics/recorder.js';
import { TEMP_PREFIX, sweepTemporaries, writeFileAtomic } from '../../src/report/atomic-write.js';
import { runComparison } from '../../src/report/compare.js';
import { reportHtml } from '../../src/report/html.js';
import { summaryJson, timeseriesCsv } from '../../src/report/documents.js';
import { REPORT_FILES, writeReport } from '../../src/report/write.js';
import { loadScenario } from '../../src/scenario/load.js';
import { cli } from '../support/cli.js';

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

  const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
  /** Loads a page headless; returns its DOM and every console line Chromium logged. */
  const render = (page: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'bcsim-html-'));
    const file = join(dir, 'page.html');
    writeFileSync(file, page);
    const flags = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update'];
    const r = spawnSync(chromium as string, [...flags, '--disable-sync', `--user-data-dir=${join(dir, 'profile')}`, '--enable-logging=stderr', '--v=0', '--dump-dom', `file://${file}`], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { dom: r.stdout, console: r.stderr.split('\n').filter((l) => l.includes(':CONSOLE')) };
  };

  // Never skipped: .ci/run installs Debian's chromium when it is missing.
  it('renders in headless Chromium without console errors', () => {
    expect(chromium, 'no /usr/bin/chromium: install Debian\'s chromium (.ci/run does)').toBeDefined();
    // The check itself can fail: a page that logs is caught.
    expect(render('<html><body><script>console.error("boom")</script></body></html>').console.join('\n')).toContain('boom');
    const { dom, console } = render(html);
    expect(console).toEqual([]);
    expect((dom.match(/<figure class="chart"/g) ?? []).length).toBe(METRICS.length);
    expect((dom.match(/<svg /g) ?? []).length).toBe(METRICS.length);
  });
});

describe('determinism', () => {
  it('regenerating the committed fragment-ack-bug report gives byte-identical files', async () => {
    const out = mkdtempSync(join(tmpdir(), 'bcsim-report-'));
    const r = await cli(['compare', 'fragment-ack-bug', '--out', out]);
    expect(r.code).toBe(0);
    for (const name of REPORT_FILES) {
      const fresh = readFileSync(join(out, name));
      const committed = readFileSync(join('reports', 'fragment-ack-bug', name));
      expect(fresh.equals(committed), `${name} differs from the committed report`).toBe(true);
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
        `import { writeFileAtomic } from ${JSON.stringify(new URL('../../dist/report/atomic-write.js', import.meta.url).href)};
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
