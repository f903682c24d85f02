// `bcsim peer` as a user meets it (issue 14): bad input is one line and exit 2;
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
    [['peer', 'server', '--listen', '127.0.0.1:22101', '--clients', '0'], /--clients: "0" is not a whole number in 1\.\.16/],
    [['peer', 'client', '--connect', '127.0.0.1:22101', '--clients', '2'], /--clients is for a server/],
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
    const run = bcsim(['peer', 'server', '--listen', `127.0.0.1:${port}`, '--duration', '60s', '--out', join(dir, 'summary.json'), '--junit', join(dir, 'junit.xml')]);
    await run.stderrSays('waiting for clients');
    await new Promise((r) => setTimeout(r, 300));
    run.child.kill('SIGTERM');
    const done = await run.exited;
    expect(done.signal).toBeNull();
    expect(done.code).toBe(1); // nobody joined: the join rule fails, and says so
    expect(done.stdout).toContain('stopped: signal');
    expect(done.stdout).toMatch(/FAIL join-completes/);
    expect(readdirSync(dir).sort()).toEqual(['junit.xml', 'summary.json']);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(summary.schema).toBe('bcsim.live/1');
    expect(summary.stopReason).toBe('signal');
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toContain('</testsuites>');
  }, 20_000);

  it('a second SIGINT skips the client\'s goodbye and exits at once', async () => {
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
    // Without the second signal the goodbye may take up to 4 s (DISCONNECT_GRACE_US).
    expect(performance.now() - t0).toBeLessThan(2_000);
  }, 20_000);
});
