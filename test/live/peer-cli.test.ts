// `bcsim peer` as a user meets it: bad input is one line and exit 2;
// SIGTERM stops a run and still writes its files, whole.
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createSocket } from 'node:dgram';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { bcsim, freeUdpPort } from '../support/live.js';

describe('bcsim peer: bad input', () => {
  const cases: Array<[string[], RegExp]> = [
    [['peer', 'middle'], /the side is "client" or "server", not "middle"/],
    [['peer', 'client'], /--connect HOST:PORT is required/],
    [['peer', 'server'], /--listen HOST:PORT is required/],
    [['peer', 'client', '--connect', 'localhost'], /--connect: "localhost" is not host:port/],
    [['peer', 'client', '--connect', '127.0.0.1:70000'], /--connect: port 70000 is not in 1\.\.65535/],
    [['peer', 'client', '--connect', 'example.org:22101'], /"example.org" is not an IP address/],
    [['peer', 'client', '--connect', '192.0.2.1:22101'], /not loopback; say where to bind with --bind/],
    [
      ['peer', 'server', '--listen', '127.0.0.1:22101', '--clients', '0'],
      /--clients: "0" is not a whole number in 1\.\.16/,
    ],
    [
      ['peer', 'client', '--connect', '127.0.0.1:22101', '--clients', '17'],
      /--clients: "17" is not a whole number in 1\.\.16/,
    ],
    [
      ['peer', 'client', '--connect', '127.0.0.1:22101', '--bind', '127.0.0.1:65534', '--clients', '3'],
      /--bind: 3 clients from port 65534 run past port 65535; give a lower port/,
    ],
    [['peer', 'client', '--connect', '127.0.0.1:22101', '--scenario', 'nope'], /no built-in scenario of that name/],
    [['peer', 'client', '--connect', '127.0.0.1:22101', '--duration', 'soon'], /--duration/],
    [['peer', 'client', '--connect', '127.0.0.1:22101', '--expect', '/nonexistent/rules.json'], /rules\.json/],
  ];
  for (const [args, message] of cases) {
    it(`${args.slice(1).join(' ')} -> exit 2, one line`, async () => {
      const r = await cli(args);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).not.toMatch(/\bat .*\.js:\d+/);
    });
  }

  it('a port in use is one line naming the address', async () => {
    const port = await freeUdpPort();
    const holder = createSocket('udp4');
    await new Promise<void>((r) => holder.bind(port, '127.0.0.1', () => r()));
    try {
      const r = await cli(['peer', 'server', '--listen', `127.0.0.1:${port}`, '--duration', '1s']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`--listen: cannot bind 127.0.0.1:${port}: address already in use`);
    } finally {
      holder.close();
    }
  });

  it('a bad rules file names the file, the JSON path and the reason', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bcsim-peer-rules-'));
    const rules = join(dir, 'rules.json');
    writeFileSync(rules, JSON.stringify({ rules: [{ rule: 'ack-within', ms: -5 }] }));
    const r = await cli(['peer', 'client', '--connect', '127.0.0.1:22101', '--expect', rules]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/rules\.json: rules\[0\]\.ms: /);
  });
});

describe('bcsim peer: signals', () => {
  it('SIGTERM stops a server with no client; the summary and JUnit file appear whole, and join-completes fails', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bcsim-peer-sig-'));
    const port = await freeUdpPort();
    const run = bcsim([
      'peer',
      'server',
      '--listen',
      `127.0.0.1:${port}`,
      '--duration',
      '60s',
      '--out',
      join(dir, 'summary.json'),
      '--junit',
      join(dir, 'junit.xml'),
    ]);
    await run.stderrSays('waiting for clients');
    await new Promise((r) => setTimeout(r, 300));
    run.child.kill('SIGTERM');
    const done = await run.exited;
    expect(done.signal).toBeNull();
    expect(done.code).toBe(1); // nobody joined: the join rule fails, and says so
    expect(done.stdout).toContain('stopped: signal');
    expect(done.stdout).toMatch(/FAIL join-completes/);
    expect(done.stdout.split('\n')[0]).toMatch(/^bcsim peer server: no client connected to /);
    expect(readdirSync(dir).sort()).toEqual(['junit.xml', 'summary.json']);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(summary.schema).toBe('bcsim.live/1');
    expect(summary.stopReason).toBe('signal');
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toContain('</testsuites>');
  }, 20_000);

  it('a second SIGINT ends a client at once, its summary written (the exact times: test/live/goodbye.test.ts)', async () => {
    const port = await freeUdpPort(); // nobody listens: the client keeps trying to connect
    const run = bcsim(['peer', 'client', '--connect', `127.0.0.1:${port}`, '--duration', '60s']);
    await run.stderrSays('bcsim peer client');
    await new Promise((r) => setTimeout(r, 300));
    const t0 = performance.now();
    run.child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 100));
    run.child.kill('SIGINT');
    const done = await run.exited;
    expect(done.signal).toBeNull();
    expect(done.stdout).toContain('stopped: signal');
    // At once: before the goodbye the first SIGINT began, which lasts up to 4 s (exit included, on a busy machine).
    expect(performance.now() - t0).toBeLessThan(3_500);
  }, 20_000);
});

describe('bcsim peer: nobody there', () => {
  /**
   * The run, killed if it is still there `durationS + EXIT_GRACE_S` after it started: a run that
   * stopped by itself has no signal, however slow the machine's start-up and exit were.
   */
  const EXIT_GRACE_S = 15;
  async function timed(args: string[], durationS: number) {
    const done = await bcsim(args, (durationS + EXIT_GRACE_S) * 1000).exited;
    expect(done.signal, 'it did not stop by itself').toBeNull();
    return done;
  }

  it('a client with no server says so first, judges no rule but the join, and exits 1 within 1 s of --duration', async () => {
    const port = await freeUdpPort();
    const dir = mkdtempSync(join(tmpdir(), 'bcsim-peer-silent-'));
    const junit = join(dir, 'junit.xml');
    const [text, json] = await Promise.all([
      timed(['peer', 'client', '--connect', `127.0.0.1:${port}`, '--duration', '3s', '--junit', junit], 3),
      timed(['peer', 'client', '--connect', `127.0.0.1:${port}`, '--duration', '3s', '--json'], 3),
    ]);
    expect(text.code).toBe(1);
    const lines = text.stdout.split('\n');
    expect(lines[0]).toMatch(
      new RegExp(
        `^bcsim peer client: no answer from 127\\.0\\.0\\.1:${port} in 4\\.0 s — is a server listening there\\?$`,
      ),
    );
    expect(lines.filter((l) => l.startsWith('FAIL '))).toEqual([expect.stringMatching(/^FAIL join-completes: /)]);
    expect(lines.filter((l) => l.startsWith('NOT EXERCISED '))).toHaveLength(6);
    for (const line of lines.filter((l) => l.startsWith('NOT EXERCISED ')))
      expect(line).toMatch(/\(checked 0 events: the counterpart sent no datagram\)$/);
    expect(lines.filter((l) => l.startsWith('PASS '))).toEqual([]);
    expect(text.stdout).toContain('\nconformance: 0 passed, 1 failed, 6 not exercised (7 rules)\n');
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('<testsuites name="bcsim peer conformance" tests="7" failures="1" skipped="6">');
    expect(
      xml.match(/<skipped message="not exercised: checked 0 events: the counterpart sent no datagram"\/>/g),
    ).toHaveLength(6);

    expect(json.code).toBe(1);
    const summary = JSON.parse(json.stdout);
    expect(summary.noAnswer).toMatch(/^bcsim peer client: no answer from /);
    expect(json.stderr).toContain(summary.noAnswer);
    expect(summary.conformanceCounts).toEqual({ rules: 7, passed: 0, failed: 1, notExercised: 6 });
    expect(summary.conformance.map((r: { status: string; passed: boolean }) => [r.status, r.passed])).toEqual([
      ['fail', false],
      ...Array.from({ length: 6 }, () => ['not-exercised', false]),
    ]);
    // --duration bounds the run, goodbye included: 1 s after it at the latest, by the run's clock (with 0.5 s
    // for a busy machine's late timers).
    expect(summary.wallSeconds).toBeGreaterThanOrEqual(3);
    expect(summary.wallSeconds).toBeLessThanOrEqual(3 + 1 + 0.5);
  }, 45_000);

  it('a server no client reached says so first, fails the join, and stops at --duration', async () => {
    const port = await freeUdpPort();
    const run = await timed(['peer', 'server', '--listen', `127.0.0.1:${port}`, '--duration', '2s'], 2);
    expect(run.code).toBe(1);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(
      `bcsim peer server: no client connected to 127.0.0.1:${port} in 2.0 s — is a client pointed at this address?`,
    );
    expect(lines[1]).toMatch(/^bcsim peer server · live · mode \w+ · seed 1 · 2\.0 s · stopped: duration$/);
    expect(run.stdout).toMatch(/\nFAIL join-completes: .*\n {4}t=2\.000 s conn 0 seq 0: no client connected\n/);
    expect(run.stdout).toContain('\nconformance: 0 passed, 1 failed, 6 not exercised (7 rules)\n');
  }, 45_000);
});
