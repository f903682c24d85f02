// `bcsim compare rtype-deaths` and `bcsim compare schemes-side-by-side`:
// the columns they run, the report set they write, determinism,
// and the one-line errors. Short durations keep each test to a second or two.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCHEME_REPORT_FILES } from '../../src/analysis/report/index.js';
import { cli } from '../support/cli.js';

const T = { timeout: 60_000 };
const fresh = (name: string) => join(mkdtempSync(join(tmpdir(), `bcsim-${name}-`)), 'out');
const files = (dir: string) => Object.fromEntries(SCHEME_REPORT_FILES.map((f) => [f, readFileSync(join(dir, f))]));

describe('bcsim compare rtype-deaths', () => {
  it('runs documented, implemented and repaired and writes the four report files as a set', T, async () => {
    const out = fresh('rtype');
    const r = await cli(['compare', 'rtype-deaths', '--duration', '30s', '--out-dir', out]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual([...SCHEME_REPORT_FILES].sort());
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(summary.schema).toBe('bcsim.rtype-compare/1');
    expect(summary.simulatedSeconds).toBe(30);
    expect(Object.keys(summary.runs)).toEqual(['documented', 'implemented', 'repaired']);
    for (const [preset, run] of Object.entries(summary.runs) as Array<
      [string, { schema: string; preset: string; clients: number; deaths: { pairs: number; perClient: unknown[] } }]
    >) {
      expect(run.schema).toBe('bcsim.rtype/1');
      expect(run.preset).toBe(preset);
      expect(run.deaths.perClient).toHaveLength(run.clients);
      expect(run.deaths.pairs).toBeGreaterThan(0);
    }
    // The presets' defining figures: the implemented code never re-sends; documented and repaired do.
    expect(summary.runs.implemented.resends.datagrams).toBe(0);
    expect(summary.runs.documented.resends.datagrams).toBeGreaterThan(0);
    expect(summary.runs.repaired.resends.datagrams).toBeGreaterThan(0);
    const csv = readFileSync(join(out, 'timeseries.csv'), 'utf8').split('\n');
    expect(csv[0]).toBe('time,preset,metric,value');
    for (const preset of ['documented', 'implemented', 'repaired']) {
      for (const metric of [
        'storeSize',
        'pendingTotal',
        'danglingEntries',
        'resendsPerSecond',
        'maxResendsPerFrame',
        'serverMemoryBytes',
      ]) {
        expect(
          csv.some((line) => line.includes(`,${preset},${metric},`)),
          `${preset} ${metric}`,
        ).toBe(true);
      }
    }
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html.match(/<svg /g)).toHaveLength(7);
    expect(html).not.toContain('<script');
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toContain('| lost per client |');
    // The terminal shows the table, its findings and where the report went.
    for (const text of [
      'documented',
      'implemented',
      'repaired',
      'lost per client',
      'implemented never re-sends',
      'report written to',
    ])
      expect(r.stdout).toContain(text);
  });

  it('--json prints summary.json; the same seed writes the same bytes, another seed other bytes', T, async () => {
    const [a, b, c] = [fresh('a'), fresh('b'), fresh('c')];
    const ra = await cli(['compare', 'rtype-deaths', '--duration', '15s', '--seed', '3', '--out-dir', a, '--json']);
    await cli(['compare', 'rtype-deaths', '--duration', '15s', '--seed', '3', '--out-dir', b]);
    await cli(['compare', 'rtype-deaths', '--duration', '15s', '--seed', '4', '--out-dir', c]);
    expect(ra.code).toBe(0);
    expect(ra.stdout).toBe(readFileSync(join(a, 'summary.json'), 'utf8'));
    const [fa, fb, fc] = [files(a), files(b), files(c)];
    for (const f of SCHEME_REPORT_FILES) expect(fa[f].equals(fb[f]), f).toBe(true);
    expect(fa['summary.json'].equals(fc['summary.json'])).toBe(false);
  });
});

describe('bcsim compare schemes-side-by-side', () => {
  it('runs the four columns and writes the report set; the same seed gives the same bytes', T, async () => {
    const [a, b] = [fresh('sbs-a'), fresh('sbs-b')];
    const r = await cli(['compare', 'schemes-side-by-side', '--duration', '20s', '--out-dir', a]);
    expect(r.code).toBe(0);
    await cli(['compare', 'schemes-side-by-side', '--duration', '20s', '--out-dir', b]);
    const summary = JSON.parse(readFileSync(join(a, 'summary.json'), 'utf8'));
    expect(summary.schema).toBe('bcsim.schemes/1');
    expect(summary.columns.map((c: { id: string }) => c.id)).toEqual([
      'bc-stock',
      'bc-fixed',
      'rtype-documented',
      'rtype-repaired',
    ]);
    expect(summary.runs['bc-stock'].schema).toBe('bcsim.summary/1');
    expect(summary.runs['rtype-repaired'].schema).toBe('bcsim.rtype/1');
    for (const text of [
      'BC stock',
      'BC fixed',
      'R-Type documented',
      'R-Type repaired',
      'latency p50 / p99 / max (ms)',
      'bytes per client per second',
      'server: peak / final',
    ])
      expect(r.stdout).toContain(text);
    const [fa, fb] = [files(a), files(b)];
    for (const f of SCHEME_REPORT_FILES) expect(fa[f].equals(fb[f]), f).toBe(true);
    expect(readFileSync(join(a, 'report.html'), 'utf8').match(/<svg /g)).toHaveLength(2);
  });
});

describe('scheme compares: bad input is one line and exit 2', () => {
  it('BC-only flags, a bad --duration, a bad field, a foreign --out', async () => {
    const causes = await cli(['compare', 'rtype-deaths', '--causes']);
    expect(causes.code).toBe(2);
    expect(causes.stderr).toBe(
      'bcsim: --causes: not available for rtype-deaths, a scheme scenario (it runs documented, implemented and repaired); it takes --duration, --seed, --out-dir and --json\n',
    );
    const set = await cli(['compare', 'schemes-side-by-side', '--set', 'clients=2']);
    expect(set.code).toBe(2);
    expect(set.stderr).toMatch(
      /^bcsim: --set: not available for schemes-side-by-side, a scheme scenario \(it runs BC stock, BC fixed, R-Type documented and R-Type repaired\)/,
    );
    const run = await cli(['run', 'rtype-deaths']);
    expect(run).toMatchObject({
      code: 2,
      stderr: 'bcsim: rtype-deaths: a scheme scenario, which only `bcsim compare rtype-deaths` runs\n',
    });
    const duration = await cli(['compare', 'rtype-deaths', '--duration', 'soon']);
    expect(duration.code).toBe(2);
    expect(duration.stderr).toBe(
      'bcsim: --duration: expected a duration of simulated time, like 30s, 10m or 4h, got "soon"\n',
    );

    const dir = mkdtempSync(join(tmpdir(), 'bcsim-bad-scheme-'));
    const write = (name: string, value: object) => {
      writeFileSync(join(dir, name), JSON.stringify(value));
      return join(dir, name);
    };
    const cases: Array<[object, string]> = [
      [
        { name: 'x', scheme: 'rtype', workload: { burstSize: 0 } },
        'rtype config: workload.burstSize is 0, expected an integer in [1, 10000]',
      ],
      [
        { name: 'x', scheme: 'side-by-side', link: { loss: 1.5 } },
        'link.loss: expected a number from 0 to 0.9, got 1.5',
      ],
      [
        { name: 'x', scheme: 'side-by-side', workload: { bursts: 3 } },
        'workload.bursts: unknown key "bursts" (known: criticalPerSecond, burstsPerMinute, burstSize, updatesPerFrame)',
      ],
      [{ name: 'x', scheme: 'tcp' }, 'scheme: expected "rtype" or "side-by-side", got "tcp"'],
      [{ name: 'x', scheme: 'rtype', clients: 0 }, 'clients: expected a whole number from 1 to 16, got 0'],
      [
        { name: 'x', scheme: 'rtype', duration: 'forever' },
        'duration: expected a duration from 1s to 24h like "30s", "10m" or "1h30m", got "forever"',
      ],
    ];
    for (const [i, [value, message]] of cases.entries()) {
      const file = write(`bad${i}.json`, value);
      const r = await cli(['compare', file]);
      expect(r.code, message).toBe(2);
      expect(r.stderr).toBe(`bcsim: ${file}: ${message}\n`);
    }

    const foreign = join(dir, 'busy');
    mkdirSync(foreign);
    writeFileSync(join(foreign, 'notes.txt'), 'mine');
    const out = await cli(['compare', 'rtype-deaths', '--duration', '10s', '--out-dir', foreign]);
    expect(out.code).toBe(2);
    expect(out.stderr).toBe(
      `bcsim: --out-dir ${foreign}: holds files that are not a bcsim report (notes.txt); choose an empty or new folder\n`,
    );
    expect(readdirSync(foreign)).toEqual(['notes.txt']);
  });
});
