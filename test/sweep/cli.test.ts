// `bcsim sweep` and `bcsim sweep-merge` as commands: deterministic
// files (twice, --jobs 1 against 2, shards merged), verdicts and exit codes,
// bad input, the summary table and the HTML page.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PALETTE } from '../../src/analysis/report/chart-palette.js';
import { cli } from '../support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'bcsim-sweep-'));
const at = (name: string) => join(dir, name);
const read = (name: string) => readFileSync(at(name), 'utf8');
const lines = (name: string) =>
  read(name)
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));

// A scenario whose stock expectation holds only on a lossless link: --vary loss breaks it.
writeFileSync(
  at('probe.json'),
  JSON.stringify({
    name: 'sweep-probe',
    duration: '10s',
    seed: 1,
    mode: 'stock',
    traffic: { phases: ['join', { kind: 'combat', reliablePerSecond: 5 }] },
    expect: {
      stock: { 'links.clientToServer.droppedBy.loss': { eq: 0 } },
      fixed: { 'delivery.reliableLost': { eq: 0 } },
    },
  }),
);

/** 5 s of lossy-link's 10-minute plan, said once per sweep. */
const CUT =
  'bcsim: warning: the phase plan is cut: the run ends at 5s, and traffic.phases[1] (combat, 9m40s), traffic.phases[2] (disconnect) never run\n';
const GRID = [
  'sweep',
  'lossy-link',
  '--modes',
  'stock,fixed',
  '--vary',
  'link.both.latencyMs=20,80',
  '--seeds',
  '1..3',
  '--duration',
  '5s',
];

describe('bcsim sweep: the file', async () => {
  const one = await cli([...GRID, '--jobs', '1', '--out', at('one.jsonl')]);
  await cli([...GRID, '--jobs', '1', '--out', at('again.jsonl')]);
  const two = await cli([...GRID, '--jobs', '2', '--out', at('two.jsonl')]);

  it('writes one JSON line per run, in grid-index order, with the documented fields', () => {
    expect(one.stderr).toBe(CUT);
    const rows = lines('one.jsonl');
    expect(rows).toHaveLength(12);
    expect(rows.map((r) => r.index)).toEqual([...Array(12).keys()]);
    expect(Object.keys(rows[0])).toEqual([
      'index',
      'grid',
      'runs',
      'scenario',
      'mode',
      'seed',
      'vary',
      'traceHash',
      'simulatedSeconds',
      'figures',
      'verdict',
    ]);
    expect(rows.map((r) => `${r.mode}/${r.vary['link.both.latencyMs']}/${r.seed}`).slice(0, 7)).toEqual([
      'stock/20/1',
      'stock/20/2',
      'stock/20/3',
      'stock/80/1',
      'stock/80/2',
      'stock/80/3',
      'fixed/20/1',
    ]);
    expect(new Set(rows.map((r) => r.traceHash)).size).toBe(12);
    expect(rows[0].simulatedSeconds).toBe(5);
    expect(typeof rows[0].figures.peers.server.ackOutbox.max).toBe('number');
    expect(typeof rows[0].figures.peers.client.dedupComparisons.maxPerSecond).toBe('number');
    expect(typeof rows[0].figures.delivery.reliableLost).toBe('number');
    // No wall time anywhere in the file.
    expect(read('one.jsonl')).not.toMatch(/wall|elapsed|"ms"|time"/i);
  });

  it('the same command writes the same bytes, and --jobs 2 writes what --jobs 1 does', () => {
    expect(read('again.jsonl')).toBe(read('one.jsonl'));
    expect(two.stderr).toBe(CUT);
    expect(read('two.jsonl')).toBe(read('one.jsonl'));
  });

  it('a line reruns exactly: its traceHash is that of bcsim run with the same settings', async () => {
    const row = lines('one.jsonl')[4];
    const run = await cli([
      'run',
      'lossy-link',
      '--mode',
      row.mode,
      '--seed',
      String(row.seed),
      '--duration',
      '5s',
      '--set',
      `link.both.latencyMs=${row.vary['link.both.latencyMs']}`,
      '--json',
    ]);
    expect(JSON.parse(run.stdout).traceHash).toBe(row.traceHash);
  });

  it('--shard 1/2 + --shard 2/2, merged, is byte-identical to the unsharded file', async () => {
    const a = await cli([...GRID, '--jobs', '1', '--shard', '1/2', '--out', at('s1.jsonl')]);
    const b = await cli([...GRID, '--jobs', '2', '--shard', '2/2', '--out', at('s2.jsonl')]);
    expect([a.code, b.code]).toEqual([one.code, one.code]);
    expect(lines('s1.jsonl').map((r) => r.index)).toEqual([0, 2, 4, 6, 8, 10]);
    const merged = await cli(['sweep-merge', at('s2.jsonl'), at('s1.jsonl'), '--out', at('merged.jsonl')]);
    expect(merged.code).toBe(0);
    expect(read('merged.jsonl')).toBe(read('one.jsonl'));
    const toStdout = await cli(['sweep-merge', at('s1.jsonl'), at('s2.jsonl')]);
    expect(toStdout.stdout).toBe(read('one.jsonl'));
  });

  it('sweep-merge refuses a duplicate, a missing run and a mix of grids, naming file and line (exit 2)', async () => {
    const dup = await cli(['sweep-merge', at('s1.jsonl'), at('s2.jsonl'), at('s1.jsonl'), '--out', at('bad.jsonl')]);
    expect(dup.code).toBe(2);
    expect(dup.stderr).toMatch(/^bcsim: .*s1\.jsonl:1: run 0 is also at .*s1\.jsonl:1 \(a duplicate/);
    expect(dup.stderr.trim().split('\n')).toHaveLength(1);
    const missing = await cli(['sweep-merge', at('s1.jsonl')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^bcsim: sweep-merge: run 1 of 12 is in none of the files/);
    expect(missing.stdout).toBe(''); // checked before anything is written
    await cli([
      'sweep',
      'lossy-link',
      '--seeds',
      '1..2',
      '--duration',
      '5s',
      '--jobs',
      '1',
      '--out',
      at('other.jsonl'),
    ]);
    const mixed = await cli(['sweep-merge', at('one.jsonl'), at('other.jsonl')]);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(
      /^bcsim: .*other\.jsonl:1: a different sweep \(grid [0-9a-f]{16}, 2 runs\) than .*one\.jsonl:1/,
    );
    writeFileSync(at('junk.jsonl'), '{"index":0}\n');
    expect((await cli(['sweep-merge', at('junk.jsonl')])).stderr).toMatch(
      /junk\.jsonl:1: not a bcsim sweep result line/,
    );
    expect((await cli(['sweep-merge', at('nope.jsonl')])).stderr).toMatch(
      /^bcsim: .*nope\.jsonl: cannot read \(no such file\)\n$/,
    );
    expect(existsSync(at('bad.jsonl'))).toBe(false);
    expect(readdirSync(dir).filter((f) => f.startsWith('.bcsim-tmp-'))).toEqual([]);
  });

  it('to stdout without --out: the same lines, the summary on stderr', async () => {
    const r = await cli([...GRID, '--jobs', '1']);
    expect(r.stdout).toBe(read('one.jsonl'));
    expect(r.stderr).toContain('min / median / max');
  });

  it('with --html and no --out: the summary table on stdout, no JSON lines, the page written', async () => {
    const r = await cli([...GRID, '--jobs', '1', '--html', at('only.html')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('min / median / max');
    expect(r.stdout).not.toContain('{"index"');
    expect(r.stdout.endsWith(`wrote ${at('only.html')}; no JSON lines (--out FILE or --json for them)\n`)).toBe(true);
    expect(r.stderr).toBe(CUT);
    expect(read('only.html')).toContain('<section class="metric"');
  });

  it('on a terminal: the summary table on stdout, no JSON lines; --json puts the lines back', async () => {
    const tty = await cli([...GRID, '--jobs', '1'], { stdoutIsTTY: true });
    expect(tty.stdout).toContain('min / median / max');
    expect(tty.stdout).not.toContain('{"index"');
    for (const args of [['--json'], ['--out', '-'], ['--json', '--html', at('json.html')]]) {
      const r = await cli([...GRID, '--jobs', '1', ...args], { stdoutIsTTY: true });
      expect(r.stdout).toBe(read('one.jsonl'));
      expect(r.stderr).toContain('min / median / max');
    }
    expect(existsSync(at('json.html'))).toBe(true);
  });
});

describe('bcsim sweep: verdicts, exit codes, bad input', () => {
  it('a --vary that breaks an expectation fails those runs: verdict, exit 1', async () => {
    const r = await cli([
      'sweep',
      at('probe.json'),
      '--vary',
      'link.both.loss=0,0.3',
      '--seeds',
      '1..2',
      '--jobs',
      '1',
      '--out',
      at('probe.jsonl'),
    ]);
    expect(r.code).toBe(1);
    const rows = lines('probe.jsonl');
    expect(rows.map((x) => [x.vary['link.both.loss'], x.verdict.passed])).toEqual([
      [0, true],
      [0, true],
      [0.3, false],
      [0.3, false],
    ]);
    expect(rows[2].verdict.failed).toEqual(['links.clientToServer.droppedBy.loss']);
    expect(r.stdout).toContain('2 of 4 runs failed their expect block');
    const ok = await cli([
      'sweep',
      at('probe.json'),
      '--vary',
      'link.both.loss=0',
      '--modes',
      'stock,fixed',
      '--jobs',
      '1',
      '--out',
      at('probe-ok.jsonl'),
    ]);
    expect(ok.code).toBe(0);
  });

  it('verdict is null for a mode the expect block does not name, and such runs never fail the sweep', async () => {
    const only = JSON.parse(read('probe.json'));
    delete only.expect.fixed;
    writeFileSync(at('stock-only.json'), JSON.stringify(only));
    const r = await cli([
      'sweep',
      at('stock-only.json'),
      '--modes',
      'stock,fixed',
      '--vary',
      'link.both.loss=0.3',
      '--jobs',
      '1',
    ]);
    const rows = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((x) => [x.mode, x.verdict])).toEqual([
      ['stock', { passed: false, failed: ['links.clientToServer.droppedBy.loss'] }],
      ['fixed', null],
    ]);
    expect(r.code).toBe(1);
    const fixedOnly = await cli([
      'sweep',
      at('stock-only.json'),
      '--mode',
      'fixed',
      '--vary',
      'link.both.loss=0.3',
      '--jobs',
      '1',
    ]);
    expect(fixedOnly.code).toBe(0);
  });

  const bad: Array<[string[], RegExp]> = [
    [['--vary', 'link.both.loss'], /^bcsim: --vary link\.both\.loss: expected path=v1,v2/],
    [
      ['--vary', 'link.both.lossy=0.1,0.2'],
      /^bcsim: --vary link\.both\.lossy=0\.1: link\.both\.lossy: unknown key "lossy"/,
    ],
    [['--vary', 'link.both.latencyMs=20,-5'], /^bcsim: --vary link\.both\.latencyMs=-5: link\.both\.latencyMs: /],
    // lossy-link has Gilbert-Elliott loss: the value clashes with another field, and the flag is still named.
    [
      ['--vary', 'link.both.loss=0.1'],
      /^bcsim: --vary link\.both\.loss=0\.1: scenarios\/lossy-link\.json: link\.both\.gilbertElliott: give either loss/,
    ],
    [
      ['--vary', 'link.both.loss=0.3..0.1:0.1'],
      /^bcsim: --vary link\.both\.loss=0\.3\.\.0\.1:0\.1: the range runs backwards/,
    ],
    [['--shard', '3/2'], /^bcsim: --shard: i must be 1\.\.n/],
    [['--shard', 'half'], /^bcsim: --shard: expected i\/n/],
    [['--seeds', '9..1'], /^bcsim: --seeds: the range 9\.\.1 runs backwards/],
    [['--modes', 'stock,nope'], /^bcsim: --modes: expected stock, fixed/],
    [['--jobs', '0'], /^bcsim: --jobs: expected a whole number 1\.\.256/],
    [['--metrics', 'peers.server.nope'], /^bcsim: --metrics peers\.server\.nope: .*no summary field "nope"/],
    [['--out', '/proc/x.jsonl'], /^bcsim: --out \/proc\/x\.jsonl: /],
    [['--duration', 'soon'], /^bcsim: --duration: expected a duration/],
    [['--json', '--out', at('both.jsonl')], /^bcsim: --json: the lines go to stdout with --json and to FILE/],
  ];
  for (const [flags, message] of bad) {
    it(`bad ${flags.join(' ')}: one line, exit 2, nothing run`, async () => {
      const r = await cli(['sweep', 'lossy-link', '--duration', '5s', '--jobs', '1', ...flags]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stdout).toBe('');
    });
  }
});

describe('bcsim sweep: the summary', async () => {
  const r = await cli([
    'sweep',
    'lossy-link',
    '--mode',
    'fixed',
    '--vary',
    'link.both.latencyMs=20,80',
    '--seeds',
    '1..3',
    '--duration',
    '5s',
    '--jobs',
    '1',
    '--metrics',
    'peers.server.packetsSent,peers.client.ackOutbox.max',
    '--out',
    at('sum.jsonl'),
    '--html',
    at('sum.html'),
  ]);

  it("the table's min / median / max are those of the lines, per value", () => {
    const rows = lines('sum.jsonl');
    const table = r.stdout.split('\n');
    for (const latency of [20, 80]) {
      const mine = rows.filter((x) => x.vary['link.both.latencyMs'] === latency);
      const row = table.find((l) => l.includes(`│ fixed │ ${latency} `)) as string;
      const cells = row
        .split('│')
        .map((c) => c.trim())
        .filter((c) => c !== '');
      for (const [i, get] of [
        [4, (x: { figures: { peers: { server: { packetsSent: number } } } }) => x.figures.peers.server.packetsSent],
        [
          5,
          (x: { figures: { peers: { client: { ackOutbox: { max: number } } } } }) =>
            x.figures.peers.client.ackOutbox.max,
        ],
      ] as const) {
        const values = mine.map(get as (x: unknown) => number).sort((a, b) => a - b);
        const fmt = (n: number) => n.toLocaleString('en-US');
        expect(cells[i]).toBe(`${fmt(values[0])} / ${fmt(values[1])} / ${fmt(values[2])}`);
      }
      expect(cells[2]).toBe('3');
    }
    // The values differ between seeds, so the check above can tell min, median and max apart.
    expect(new Set(rows.map((x) => x.figures.peers.server.packetsSent)).size).toBeGreaterThan(2);
  });

  it('writes an HTML page: a table per metric, a chart of the numeric parameter', () => {
    const html = read('sum.html');
    expect((html.match(/<section class="metric"/g) ?? []).length).toBe(2);
    expect((html.match(/<svg /g) ?? []).length).toBe(2);
    expect(html).not.toMatch(/<script/);
    // The series take the compare report's colour-blind-safe palette (Okabe–Ito), and only it.
    const colours = new Set([...html.matchAll(/(?:stroke|fill)="(#[0-9a-f]{6})"/gi)].map((m) => m[1].toLowerCase()));
    const series = [...colours].filter((c) => !/^#(\w)\1\1\1\1\1$|^#([0-9a-f]{2})\2\2$/i.test(c));
    expect(series.length).toBeGreaterThan(0);
    for (const c of series) expect(PALETTE).toContain(c);
  });

  it('the HTML renders in headless Chromium without console errors', () => {
    const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
    expect(chromium, 'no /usr/bin/chromium').toBeDefined();
    const flags = [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ];
    const shot = at('sum.png');
    const probe = spawnSync(
      chromium as string,
      [
        ...flags,
        `--user-data-dir=${at('profile')}`,
        '--enable-logging=stderr',
        '--v=0',
        '--dump-dom',
        `file://${at('sum.html')}`,
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(probe.stderr.split('\n').filter((l) => l.includes(':CONSOLE'))).toEqual([]);
    expect((probe.stdout.match(/<polyline /g) ?? []).length).toBe(2);
    spawnSync(
      chromium as string,
      [
        ...flags,
        `--user-data-dir=${at('profile')}`,
        '--window-size=1000,1400',
        `--screenshot=${shot}`,
        `file://${at('sum.html')}`,
      ],
      { timeout: 60_000 },
    );
    expect(readFileSync(shot).subarray(1, 4).toString()).toBe('PNG');
  });
});
