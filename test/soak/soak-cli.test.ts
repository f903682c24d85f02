// `bcsim soak` as a user runs it: bad flags refused before anything starts;
// a soak of two clients against `bcsim peer server`, stopped with Ctrl-C once
// both have joined, writes its report set, cut short, and the page renders in
// headless Chromium.
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SOAK_FIGURES } from '../../src/live/soak/index.js';
import { CHROMIUM, renderInChromium } from '../support/chromium.js';
import { cli } from '../support/cli.js';
import { bcsim, freeUdpPort } from '../support/live.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'bcsim-soak-'));

describe('bcsim soak: bad input is one line, exit 2, before anything starts', () => {
  const file = join(tmp(), 'a-file');
  writeFileSync(file, 'x');
  const cases: Array<[string[], RegExp]> = [
    [['soak', '--out-dir', 'x'], /--server: the server to soak is required/],
    [['soak', '--server', '127.0.0.1:22101'], /--out-dir DIR is required/],
    [['soak', '--server', 'localhost', '--out-dir', 'x'], /--server: "localhost" is not host:port/],
    [['soak', '--server', '127.0.0.1:22101', '--out-dir', file], /--out-dir .*a-file: is a file, not a folder/],
    [['soak', '--server', '127.0.0.1:22101', '--out-dir', 'x', '--loss', '2'], /--loss: expected a decimal number/],
    [
      ['soak', '--server', '127.0.0.1:22101', '--out-dir', 'x', '--clients', '17'],
      /--clients: "17" is not a whole number in 1\.\.16/,
    ],
    [
      ['soak', '--server', '127.0.0.1:22101', '--out-dir', 'x', '--duration', 'soon'],
      /--duration: expected a duration of wall time/,
    ],
    [
      ['soak', '--server', '127.0.0.1:22101', '--out-dir', 'x', '--scenario', 'nope'],
      /no built-in scenario of that name/,
    ],
    [['soak', '--server', '192.0.2.1:22101', '--out-dir', 'x'], /not loopback; say where to bind with --bind/],
  ];
  for (const [args, message] of cases) {
    it(`${args.slice(1).join(' ')}`, async () => {
      const r = await cli(args);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stdout).toBe('');
    });
  }
});

/** A stock `bcsim peer server` of `clients` places; stopped with SIGINT by `stop`. */
async function server(clients: number) {
  const port = await freeUdpPort();
  const run = bcsim(
    [
      'peer',
      'server',
      '--listen',
      `127.0.0.1:${port}`,
      '--scenario',
      'valentines',
      '--clients',
      String(clients),
      '--mode',
      'stock',
      '--duration',
      '300s',
    ],
    330_000,
  );
  await run.stderrSays('waiting for clients');
  return {
    port,
    stop: async () => {
      run.child.kill('SIGINT');
      await run.exited;
    },
  };
}

describe.concurrent('bcsim soak against bcsim peer server', () => {
  it('to the end of --duration: the report set of two clients, the server measured beside the models, the page renders', async () => {
    const s = await server(2);
    const out = join(tmp(), 'report');
    // 30 s by the soak's own clock: valentines' two joins end by ~10 s of it, however busy the machine.
    const soak = bcsim(
      ['soak', '--server', `127.0.0.1:${s.port}`, '--clients', '2', '--duration', '30s', '--out-dir', out, '--json'],
      120_000,
    );
    const done = await soak.exited;
    await s.stop();

    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toMatch(
      /^bcsim soak: 2 clients of valentines \(mode stock, seed 1\) -> 127\.0\.0\.1:\d+, 30 s; report in /,
    );
    expect(done.stderr).toMatch(/bcsim soak: done after 3\d\.\d s; running the stock and fixed models for as long/);
    expect(readdirSync(out).sort()).toEqual(['report.html', 'report.md', 'summary.json', 'timeseries.csv']);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(JSON.parse(done.stdout)).toEqual(summary);
    expect(summary.schema).toBe('bcsim.soak/1');
    expect(summary.measured).toMatchObject({ stopReason: 'duration', cutShort: false });
    expect(summary.measured.clients.map((c: { joinedAtS: number | null }) => c.joinedAtS !== null)).toEqual([
      true,
      true,
    ]);
    // The server read what we sent: it answered both clients' joins, and its datagrams were read.
    expect(summary.measured.wire.received).toBeGreaterThan(200);
    expect(summary.columns.map((c: { id: string; source: string }) => [c.id, c.source])).toEqual([
      ['server', 'measured'],
      ['stock', 'model'],
      ['fixed', 'model'],
    ]);
    expect(summary.columns[0].figures.serverDeadZonePeak.max).toBeGreaterThan(0);
    const csv = readFileSync(join(out, 'timeseries.csv'), 'utf8').trim().split('\n');
    expect(csv[0]).toMatch(/^source,start_s,seconds,connection,server_ack_behaviour,/);
    expect(new Set(csv.slice(1).map((l) => l.split(',')[0]))).toEqual(new Set(['server', 'stock', 'fixed']));

    expect(CHROMIUM, "no /usr/bin/chromium: install Debian's chromium (.ci/run does)").toBeDefined();
    const { dom, console } = renderInChromium(readFileSync(join(out, 'report.html'), 'utf8'));
    expect(console).toEqual([]);
    expect((dom.match(/<figure class="chart"/g) ?? []).length).toBe(SOAK_FIGURES.length);
    expect(dom).toContain('your server (measured)');
  }, 150_000);

  it('Ctrl-C: the report of what was measured until then, saying it was cut short', async () => {
    const s = await server(1);
    const out = join(tmp(), 'report');
    const soak = bcsim(
      ['soak', '--server', `127.0.0.1:${s.port}`, '--clients', '1', '--duration', '10m', '--out-dir', out],
      120_000,
    );
    await soak.stderrSays('bcsim soak: 1 client of valentines');
    soak.child.kill('SIGINT');
    const done = await soak.exited;
    await s.stop();

    expect(done.signal).toBeNull();
    expect(done.stderr).toMatch(/bcsim soak: cut short \(signal\) after \d+\.\d s/);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(summary.measured).toMatchObject({ stopReason: 'signal', cutShort: true });
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toMatch(/Cut short \(signal\)/);
    // However soon the signal came: exit 0 once the server had answered, 1 when nothing came from it.
    expect(done.code).toBe(summary.measured.wire.received > 0 ? 0 : 1);
    expect(done.stdout).toContain('report: ');
  }, 150_000);
});
