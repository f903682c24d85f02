// The comparison's table and verdict lines say what the numbers say: a cell is
// coloured better or worse only when the figures it shows differ from the
// first column's, and the verdict lines name latency when a column waits
// longer than the first (lossy-link: fixed's low-type p99 2,232 ms against stock's 330 ms).
import { terminalStyle } from '../../src/core/output/style.js';
import { describe, expect, it } from 'vitest';
import { runComparison } from '../../src/analysis/report/compare.js';
import { renderCompareTable } from '../../src/analysis/report/compare-table.js';
import { reportHtml } from '../../src/analysis/report/html.js';
import { cell, cellVerdict, rowsFor } from '../../src/analysis/report/metrics-table.js';
import { verdicts } from '../../src/analysis/report/verdict.js';
import { loadScenario } from '../../src/model/scenario/load.js';
import { cli } from '../support/cli.js';

const comparison = runComparison(loadScenario('lossy-link'), { durationUs: 120_000_000 });
const [stock, fixed] = comparison.runs;
const latencyMax = rowsFor(comparison).find((r) => r.label === 'send-to-delivery latency max, high types (ms)');
if (latencyMax === undefined) throw new Error('no latency max row');
// The table's own row and format, with two values that differ but both print as 6,490 (6,494.678 and
// 6,491.503 ms were measured once); no built-in run gives such a pair at every preset.
const maxRow = { ...latencyMax, value: (run: typeof stock) => (run === stock ? 6494.678 : 6491.503) };

describe('cell colours', () => {
  it('the case: values that differ, figures that do not', () => {
    expect(maxRow.value(fixed)).not.toBe(maxRow.value(stock));
    expect(cell(maxRow, fixed)).toBe(cell(maxRow, stock));
    expect(cell(maxRow, fixed)).toBe('6,490');
    expect(cellVerdict(maxRow, fixed, stock, false)).toBeNull();
    // Figures that differ are still judged.
    expect(
      cellVerdict({ ...maxRow, value: (run: typeof stock) => (run === stock ? 6494.678 : 5000) }, fixed, stock, false),
    ).toBe('better');
  });

  it('report.html: no coloured cell shows what the first column shows; differing cells are still coloured', () => {
    const rows = [...reportHtml(comparison).matchAll(/<tr><td>([^<]*)<\/td>(<td[^>]*>[^<]*<\/td>)+<\/tr>/g)].map((m) =>
      [...m[0].matchAll(/<td( class="(better|worse)")?>([^<]*)<\/td>/g)]
        .slice(1)
        .map((c) => ({ colour: c[2], text: c[3] })),
    );
    let coloured = 0;
    for (const [first, ...rest] of rows) {
      for (const c of rest) {
        if (c.colour !== undefined) coloured++;
        if (c.text === first.text) expect(c.colour).toBeUndefined();
      }
    }
    expect(coloured).toBeGreaterThan(10);
  });

  it('the terminal table alike', () => {
    const table = renderCompareTable(comparison, terminalStyle(false, { FORCE_COLOR: '1' }));
    // Each row's value cells, as printed (colour codes removed), and whether the row is coloured.
    const rows = table
      .split('\n')
      .filter((l) => l.startsWith('│'))
      .map((l) => ({
        cells: l
          .replace(/\u001b\[\d+m/g, '')
          .split('│')
          .slice(2, -1)
          .map((c) => c.trim()),
        coloured: l.includes('\u001b[3'),
      }))
      .filter((r) => r.cells.length === 2);
    const same = rows.filter((r) => r.cells[0] === r.cells[1]);
    expect(same.length).toBeGreaterThan(3);
    for (const r of same) expect(r).toMatchObject({ coloured: false });
    expect(rows.filter((r) => r.coloured).length).toBeGreaterThan(5);
  });
});

describe('verdict lines', () => {
  it('name latency when a column waits longer than the first', async () => {
    const full = runComparison(loadScenario('lossy-link'));
    expect(full.runs.map((r) => r.spec.label)).toEqual(['stock', 'fixed']);
    expect(full.runs[1].summary.delivery.latencyMs.low.p99).toBeGreaterThan(
      full.runs[0].summary.delivery.latencyMs.low.p99,
    );
    const line = verdicts(full).find((l) => l.startsWith('latency'));
    expect(line).toMatch(
      /^latency p99 \(ms\), low types: fixed is [\d.]+× higher \(2,232 vs 330\); high types: fixed is /,
    );
  });

  it('leave it out when no column waits longer', () => {
    const quiet = runComparison(loadScenario('fragment-ack-bug'), { durationUs: 60_000_000 });
    const worse = (['low', 'high'] as const).some(
      (c) => quiet.runs[1].summary.delivery.latencyMs[c].p99 > quiet.runs[0].summary.delivery.latencyMs[c].p99,
    );
    expect(worse).toBe(false);
    expect(verdicts(quiet).some((l) => l.startsWith('latency'))).toBe(false);
  });

  it('bcsim compare prints it', async () => {
    const r = await cli([
      'compare',
      'lossy-link',
      '--config',
      'A:stock',
      '--config',
      'B:fixed',
      '--out-dir',
      `${process.env.TMPDIR ?? '/tmp'}/bcsim-verdict-${process.pid}`,
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\nlatency p99 \(ms\), low types: B is 6\.76× higher \(2,232 vs 330\)/);
  });
});
