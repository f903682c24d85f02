// `bcsim proxy` as a command: bad input is one line and exit
// 2; a status line only on a terminal; and a spawned proxy stopped by SIGTERM
// writes its summary and capture whole. The spawned test runs the built CLI
// (dist/), as `npm test` builds it first.
import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import type { Socket } from 'node:dgram';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openCapture } from '../../src/core/pcap/index.js';
import { runCli } from '../../src/cli/program.js';
import type { CliIO } from '../../src/cli/io.js';
import { encodeDatagram, encrypt } from '../../src/core/codec/index.js';

const LOCAL = '127.0.0.1';
const sockets: Socket[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function cli(args: string[], stderrIsTTY = false): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    stdoutIsTTY: false,
    stderrIsTTY,
    env: {},
    cwd: process.cwd(),
  };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}

async function udp(): Promise<Socket> {
  const s = createSocket('udp4');
  sockets.push(s);
  await new Promise<void>((resolve) => s.bind(0, LOCAL, resolve));
  return s;
}

/** A port nothing listens on right now (bound, then released). */
async function freePort(): Promise<number> {
  const s = createSocket('udp4');
  await new Promise<void>((resolve) => s.bind(0, LOCAL, resolve));
  const port = s.address().port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

function reliable(seq: number): Uint8Array {
  const r = encodeDatagram({
    peerId: 0xff,
    messages: [
      {
        type: 0x32,
        reliable: true,
        ordered: true,
        fragment: false,
        seq,
        fragIndex: null,
        fragCount: null,
        payload: Uint8Array.of(1, 2, 3),
      },
    ],
  });
  if (!r.ok) throw new Error('encode');
  return encrypt(r.bytes);
}

describe('bcsim proxy flags', () => {
  const up = ['--upstream', `${LOCAL}:22101`];
  it.each([
    [['proxy', ...up], /^bcsim: --listen is required/],
    [['proxy', '--listen', `${LOCAL}:22102`], /^bcsim: --upstream is required/],
    [['proxy', '--listen', 'nohost', ...up], /^bcsim: --listen: "nohost" is not host:port/],
    [['proxy', '--listen', `${LOCAL}:70000`, ...up], /^bcsim: --listen: port 70000 is not in 1\.\.65535/],
    [
      ['proxy', '--listen', `${LOCAL}:22102`, ...up, '--scenario', 'no-such-scenario'],
      /^bcsim: .*no built-in scenario of that name/,
    ],
    [
      ['proxy', '--listen', `${LOCAL}:22102`, ...up, '--duration', 'soon'],
      /^bcsim: --duration: expected a duration of wall time/,
    ],
    [['proxy', '--listen', `${LOCAL}:22102`, ...up, '--loss', '2'], /^bcsim: --loss: expected a decimal number/],
    [['proxy', '--listen', `${LOCAL}:22102`, ...up, '--set', 'link.both.loss=7'], /^bcsim: /],
    [
      ['proxy', '--listen', `${LOCAL}:22102`, ...up, '--pcap', '/no/such/dir/p.pcapng'],
      /^bcsim: --pcap .*does not exist/,
    ],
    [
      ['proxy', '--listen', '[::1]:22102', '--upstream', '[::1]:22101', '--pcap', join(tmpdir(), 'p6.pcapng')],
      /^bcsim: --pcap: IPv4 addresses only/,
    ],
    [
      ['proxy', '--listen', `${LOCAL}:22102`, ...up, '--pcap', join(tmpdir(), 'same'), '--out', join(tmpdir(), 'same')],
      /^bcsim: --out and --pcap name the same file/,
    ],
    [
      ['proxy', '--listen', `${LOCAL}:22102`, ...up, '--upstream-bind', '::1'],
      /^bcsim: --upstream-bind: ::1 cannot reach 127\.0\.0\.1/,
    ],
  ])('%j exits 2 with one line', async (args, message) => {
    const r = await cli(args as string[]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message as RegExp);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toBe('');
  });

  it('a --listen port in use exits 2 with one line', async () => {
    const busy = await udp();
    const r = await cli(['proxy', '--listen', `${LOCAL}:${busy.address().port}`, ...up, '--duration', '1s']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^bcsim: --listen: cannot bind 127\.0\.0\.1:\d+: address already in use\n$/);
  });
});

describe('bcsim proxy run', () => {
  it('--duration stops it; --json prints bcsim.proxy/1; the status line only on a terminal', async () => {
    const server = await udp();
    const listen = await freePort();
    const client = await udp();
    let clientSent = 0;
    const sending = setInterval(() => {
      client.send(reliable(1), listen, LOCAL);
      clientSent++;
    }, 50);
    try {
      const tty = await cli(
        [
          'proxy',
          '--listen',
          `${LOCAL}:${listen}`,
          '--upstream',
          `${LOCAL}:${server.address().port}`,
          '--duration',
          '1.2s',
          '--json',
        ],
        true,
      );
      expect(tty.code).toBe(0);
      const summary = JSON.parse(tty.stdout);
      // --duration is honoured: the run lasts it, and ends within 1 s of it by its own clock (and a
      // busy machine's late timers: 0.5 s).
      expect(summary.wallSeconds).toBeGreaterThanOrEqual(1.2);
      expect(summary.wallSeconds).toBeLessThanOrEqual(1.2 + 1 + 0.5);
      expect(summary).toMatchObject({
        schema: 'bcsim.proxy/1',
        stoppedBy: 'duration',
        settings: { linkConfig: 'perfect', scenario: null },
      });
      // It relayed our datagrams: some, and none we did not send.
      expect(summary.clients[0].links.clientToServer.sent).toBeGreaterThan(0);
      expect(summary.clients[0].links.clientToServer.sent).toBeLessThanOrEqual(clientSent);
      expect(tty.stderr).toMatch(/\rproxy \d+s 1 cl fwd \d+ drop 0 \| C: unacked 1 resent \d+/);
      expect(tty.stderr.endsWith('\r\x1b[K')).toBe(true);

      const plain = await cli([
        'proxy',
        '--listen',
        `${LOCAL}:${listen}`,
        '--upstream',
        `${LOCAL}:${server.address().port}`,
        '--duration',
        '0.6s',
        '--scenario',
        'lossy-link',
        '--seed',
        '4',
      ]);
      expect(plain.code).toBe(0);
      // Not a terminal: no status line, only the one line saying where it listens.
      expect(plain.stderr).toMatch(
        /^bcsim proxy: listening on 127\.0\.0\.1:\d+, upstream 127\.0\.0\.1:\d+, seed 4, for 0\.6 s\n$/,
      );
      expect(plain.stdout).toMatch(
        /^bcsim proxy 127\.0\.0\.1:\d+ -> 127\.0\.0\.1:\d+: [\d.]+ s, stopped by duration, seed 4, links: scenario lossy-link/,
      );
      expect(plain.stdout).toMatch(/client 1 127\.0\.0\.1:\d+/);
    } finally {
      clearInterval(sending);
    }
  }, 15_000);

  it('warns (one line) when --listen is not loopback', async () => {
    // A non-loopback address of this machine, if it has one; otherwise nothing to test.
    const { networkInterfaces } = await import('node:os');
    const address = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
    if (address === undefined) return;
    const server = await udp();
    const r = await cli([
      'proxy',
      '--listen',
      `${address}:0`.replace(':0', `:${await freePort()}`),
      '--upstream',
      `${LOCAL}:${server.address().port}`,
      '--upstream-bind',
      LOCAL,
      '--duration',
      '0.2s',
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^bcsim: warning: --listen .* is not a loopback address.*\nbcsim proxy: listening on /);
  });
});

describe('bcsim proxy process', () => {
  it('SIGTERM stops a spawned proxy, which writes its summary and pcapng complete', async () => {
    const main = join(process.cwd(), 'dist/cli/main.js');
    expect(existsSync(main), 'build first: npx tsc -p tsconfig.json').toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'bcsim-proxy-sig-'));
    dirs.push(dir);
    const server = await udp();
    let serverGot = 0;
    server.on('message', (_m, rinfo) => {
      serverGot++;
      server.send(Buffer.from('\\final\\'), rinfo.port, LOCAL);
    });
    const listen = await freePort();
    const child = spawn(
      process.execPath,
      [
        main,
        'proxy',
        '--listen',
        `${LOCAL}:${listen}`,
        '--upstream',
        `${LOCAL}:${server.address().port}`,
        '--pcap',
        join(dir, 'p.pcapng'),
        '--out',
        join(dir, 's.json'),
        '--json',
        '--loss',
        '0.2',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const client = await udp();
    // Keep sending until the proxy is up and has relayed a few.
    for (let seq = 0; serverGot < 10 && seq < 2000; seq++) {
      client.send(reliable(seq), listen, LOCAL);
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(serverGot).toBeGreaterThanOrEqual(10);
    child.kill('SIGTERM');
    const code = await exited;
    clearTimeout(killer);
    expect(stderr).toMatch(/^bcsim proxy: listening on [^\n]*until SIGINT\/SIGTERM\n$/);
    expect(code).toBe(0);
    const summary = JSON.parse(stdout);
    expect(summary.stoppedBy).toBe('SIGTERM');
    expect(JSON.parse(readFileSync(join(dir, 's.json'), 'utf8'))).toEqual(summary);
    expect(readdirSync(dir).sort()).toEqual(['p.pcapng', 's.json']);
    const opened = openCapture(join(dir, 'p.pcapng'));
    if (!opened.ok) throw new Error(opened.error.reason);
    let packets = 0;
    for (let step = opened.reader.next(); step.kind !== 'end'; step = opened.reader.next()) {
      expect(step.kind).toBe('packet');
      packets++;
    }
    expect(packets).toBe(summary.totals.capturedPackets);
    expect(packets).toBeGreaterThan(10);
  }, 30_000);
});
