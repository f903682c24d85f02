// `--pcap FILE` on run, trace and compare, end to end: tshark
// reads the files with no error, every datagram is one packet at its send time,
// hosts and ports as documented, payloads that decrypt to exactly the bytes the
// trace reports, comments with the trace's marks and the link's drops, byte-
// identical files from two runs, and no file (and no leftover) when a run fails
// or is interrupted. tshark is required: these tests never skip.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/program.js';
import type { CliIO } from '../../src/cli/io.js';
import { decrypt, toHex } from '../../src/core/codec/index.js';
import { CAPTURE_EPOCH_US } from '../../src/analysis/capture/capture-recorder.js';
import { TEMP_PREFIX } from '../../src/core/output/atomic-write.js';
import { cli, withoutPlanCut } from '../support/cli.js';
import { withCpuMs } from '../support/cpu.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const FRAME_HEADER_BYTES = 42;
/** 2002-02-28T00:00:00Z, simulated time 0 in every capture. */
const EPOCH_SECONDS = 1014854400;

// ---------------------------------------------------------------------------
// helpers

function tshark(args: string[]): string {
  const r = spawnSync('tshark', args, { encoding: 'utf8', maxBuffer: 512 << 20 });
  if (r.error)
    throw new Error(`tshark does not run (${r.error.message}): the pcapng tests need it (apt-get install tshark)`);
  const errors = r.stderr
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.includes('Running as user "root"'))
    .join('\n');
  expect(errors, `tshark ${args.join(' ')}: stderr`).toBe('');
  expect(r.status, `tshark ${args.join(' ')}: exit status`).toBe(0);
  return r.stdout;
}

/** One row per packet, the fields split on |. */
function fields(file: string, names: string[], extra: string[] = []): string[][] {
  const out = tshark([
    '-r',
    file,
    ...extra,
    '-T',
    'fields',
    '-E',
    'separator=|',
    '-E',
    'occurrence=f',
    ...names.flatMap((n) => ['-e', n]),
  ]);
  return out === ''
    ? []
    : out
        .replace(/\n$/, '')
        .split('\n')
        .map((l) => l.split('|'));
}

interface Packet {
  timestampUs: number;
  frame: Buffer;
  payload: Buffer;
  comment: string | null;
}

/** The Enhanced Packet Blocks of a pcapng file, read directly (the writer's own tests check the framing). */
function packets(file: string): Packet[] {
  const bytes = readFileSync(file);
  const out: Packet[] = [];
  for (let at = 0; at < bytes.length; ) {
    const type = bytes.readUInt32LE(at);
    const total = bytes.readUInt32LE(at + 4);
    if (type === 6) {
      const captured = bytes.readUInt32LE(at + 20);
      const frame = bytes.subarray(at + 28, at + 28 + captured);
      let opt = at + 28 + ((captured + 3) & ~3);
      let comment: string | null = null;
      while (opt < at + total - 4) {
        const code = bytes.readUInt16LE(opt);
        const length = bytes.readUInt16LE(opt + 2);
        if (code === 0) break;
        if (code === 1) comment = bytes.subarray(opt + 4, opt + 4 + length).toString('utf8');
        opt += 4 + ((length + 3) & ~3);
      }
      out.push({
        timestampUs: bytes.readUInt32LE(at + 12) * 2 ** 32 + bytes.readUInt32LE(at + 16),
        frame,
        payload: frame.subarray(FRAME_HEADER_BYTES),
        comment,
      });
    }
    at += total;
  }
  return out;
}

interface TraceMessage {
  type: number;
  note: string;
  transmission: number;
  seq: number | null;
  fragIndex: number | null;
}
interface TraceLine {
  t: number;
  event: string;
  client: number;
  from: 'server' | 'client';
  hex: string;
  cause?: string;
  messages: TraceMessage[];
}

async function traceLines(args: string[]): Promise<TraceLine[]> {
  const r = await cli(['trace', ...args, '--json']);
  expect(r.code).toBe(0);
  return r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as TraceLine);
}

const sends = (lines: TraceLine[]) => lines.filter((l) => l.event === 'send');
const usOf = (t: number) => Math.round(t * 1e6);
const hexOf = (bytes: Uint8Array) => toHex(bytes, '');

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `bcsim-pcap-${prefix}-`));
  made.push(dir);
  return dir;
}

async function runWithPcap(
  args: string[],
  file: string,
): Promise<{ datagrams: number; summary: Record<string, unknown> }> {
  const r = await cli(['run', ...args, '--json', '--pcap', file]);
  expect(withoutPlanCut(r.stderr)).toBe('');
  expect(r.code).toBe(0);
  const summary = JSON.parse(r.stdout);
  return { datagrams: summary.datagrams, summary };
}

/** "1014854400.047000000": tshark's frame.time_epoch for a simulated time. */
function epochText(us: number): string {
  return `${EPOCH_SECONDS + Math.floor(us / 1e6)}.${String(us % 1e6).padStart(6, '0')}000`;
}

/** Each packet's comment has the retransmit marks (with the trace's numbers) and dead-zone marks of its trace line. */
function expectTraceMarks(comments: readonly string[], trace: readonly TraceLine[]): void {
  expect(comments).toHaveLength(trace.length);
  const retransmits = (text: string) => [...text.matchAll(/\[RETRANSMIT #(\d+)\]/g)].map((m) => Number(m[1]));
  comments.forEach((comment, i) => {
    const expected = trace[i].messages.filter((m) => m.note === 'retransmit').map((m) => m.transmission);
    expect(retransmits(comment), `packet ${i + 1}: ${comment}`).toEqual(expected);
    expect(comment.includes('[DEAD-ZONE ACK, pass 2]'), `packet ${i + 1}: ${comment}`).toBe(
      trace[i].messages.some((m) => m.note === 'dead-zone-ack'),
    );
  });
}

// ---------------------------------------------------------------------------

describe('bcsim run --pcap', () => {
  const dir = temp('run');
  const file = join(dir, 'fa.pcapng');
  let datagrams = 0;
  let trace: TraceLine[] = [];

  it('writes a capture tshark reads without an error, one packet per datagram of the run', async () => {
    ({ datagrams } = await runWithPcap(['fragment-ack-bug', '--mode', 'stock'], file));
    expect(datagrams).toBeGreaterThan(100);
    const rows = fields(file, ['frame.number']);
    expect(rows).toHaveLength(datagrams);
    expect(readdirSync(dir)).toEqual(['fa.pcapng']); // no temporary left
    trace = sends(await traceLines(['fragment-ack-bug', '--mode', 'stock']));
    expect(trace).toHaveLength(datagrams);
  });

  it('puts the server at 10.10.10.1:22101 and the client at 10.10.10.239:22102, MACs 02:00:0a:0a:0a:xx, IPv4 checksums right', () => {
    const rows = fields(
      file,
      [
        'eth.src',
        'eth.dst',
        'ip.src',
        'udp.srcport',
        'ip.dst',
        'udp.dstport',
        'ip.ttl',
        'ip.checksum.status',
        'udp.length',
        'frame.len',
      ],
      ['-o', 'ip.check_checksum:TRUE'],
    );
    const server = ['02:00:0a:0a:0a:01', '10.10.10.1', '22101'];
    const client = ['02:00:0a:0a:0a:ef', '10.10.10.239', '22102'];
    rows.forEach((row, i) => {
      const [from, to] = trace[i].from === 'server' ? [server, client] : [client, server];
      const length = trace[i].hex.length / 2;
      expect(row).toEqual([
        from[0],
        to[0],
        from[1],
        from[2],
        to[1],
        to[2],
        '64',
        '1',
        String(8 + length),
        String(FRAME_HEADER_BYTES + length),
      ]);
    });
  });

  it('numbers IPv4 identification per sending host', () => {
    const ids = { server: 0, client: 0 };
    packets(file).forEach((p, i) => {
      const from = trace[i].from;
      expect(p.frame.readUInt16BE(18)).toBe(ids[from]++ & 0xffff);
    });
  });

  it('stamps each packet with its simulated send time after 2002-02-28T00:00:00Z', () => {
    const rows = fields(file, ['frame.time_epoch']);
    rows.forEach(([epoch], i) => expect(epoch).toBe(epochText(usOf(trace[i].t))));
    packets(file).forEach((p, i) => expect(p.timestampUs).toBe(CAPTURE_EPOCH_US + usOf(trace[i].t)));
    expect(tshark(['-r', file, '-c', '1', '-t', 'ud', '-T', 'fields', '-e', '_ws.col.Time']).trim()).toBe(
      '2002-02-28 00:00:00.047000',
    );
  });

  it('carries the payload encrypted as the game sends it: decrypting it gives the bytes the trace reports', () => {
    packets(file).forEach((p, i) => {
      expect(hexOf(decrypt(p.payload))).toBe(trace[i].hex);
      expect(hexOf(p.payload)).not.toBe(trace[i].hex); // byte 1 on is encrypted (its keystream byte is always 0xD6)
    });
    // and tshark sees the same UDP payloads
    const payloads = fields(file, ['udp.payload'], ['-d', 'udp.port==22101,data']).map(([hex]) => hex);
    packets(file).forEach((p, i) => expect(payloads[i]).toBe(hexOf(p.payload).toLowerCase()));
  });

  it("comments each packet with the trace's marks: the three fragments' retransmits, dead-zone ACKs", () => {
    const comments = fields(file, ['frame.comment']).map(([c]) => c);
    expectTraceMarks(comments, trace);
    for (const frag of ['frag=0/3', 'frag=1', 'frag=2']) {
      const marks = comments.filter((c) => c.startsWith(`game reliable+fragment seq=2 ${frag} [RETRANSMIT #`));
      expect(marks.length, frag).toBeGreaterThanOrEqual(10);
      expect(marks[0]).toContain('[RETRANSMIT #1]');
      expect(marks[9]).toContain('[RETRANSMIT #10]');
    }
  });

  it('two runs write byte-identical files', async () => {
    const again = join(dir, 'again.pcapng');
    await runWithPcap(['fragment-ack-bug', '--mode', 'stock'], again);
    expect(readFileSync(again).equals(readFileSync(file))).toBe(true);
  });

  it('--pcap-plaintext carries exactly the bytes the trace reports', async () => {
    const plain = join(dir, 'plain.pcapng');
    const { datagrams: n } = await runWithPcap(['fragment-ack-bug', '--mode', 'stock', '--pcap-plaintext'], plain);
    expect(n).toBe(datagrams);
    const ps = packets(plain);
    expect(ps).toHaveLength(datagrams);
    ps.forEach((p, i) => expect(hexOf(p.payload)).toBe(trace[i].hex));
    expect(fields(plain, ['frame.comment'])).toEqual(fields(file, ['frame.comment']));
  });
});

describe('what the link did, in the comments', () => {
  it('a lossy run keeps every datagram the link dropped, commented DROPPED by link: loss', async () => {
    const dir = temp('loss');
    const file = join(dir, 'lossy.pcapng');
    const lossy = ['fragment-ack-bug', '--mode', 'stock', '--set', 'link.both.loss=0.2'];
    const { datagrams, summary } = await runWithPcap(lossy, file);
    const lines = await traceLines(lossy);
    const ps = packets(file);
    expect(ps).toHaveLength(datagrams);
    expect(fields(file, ['frame.number'])).toHaveLength(datagrams);
    const dropped = ps.filter((p) => p.comment?.startsWith('DROPPED by link: loss | '));
    const links = summary.links as Record<string, { dropped: number }>;
    expect(dropped.length).toBe(links.clientToServer.dropped + links.serverToClient.dropped);
    expect(dropped.length).toBeGreaterThan(10);
    // The same datagrams as the trace's drops, at their send times.
    const drops = lines.filter((l) => l.event === 'drop');
    expect(dropped.map((p) => [p.timestampUs - CAPTURE_EPOCH_US, hexOf(decrypt(p.payload))])).toEqual(
      drops.map((d) => [usOf(d.t), d.hex]),
    );
    expect(fields(file, ['frame.comment']).filter(([c]) => c.includes('DROPPED')).length).toBe(dropped.length);
  });

  it('a message-scope rule: the datagram as sent, and the messages the rule removed', async () => {
    const dir = temp('rule');
    const file = join(dir, 'rule.pcapng');
    const rule = ['--set', 'link.serverToClient.drop=[{"scope":"message","match":{"type":"ack"},"first":2}]'];
    await runWithPcap(['fragment-ack-bug', ...rule, '--duration', '10s'], file);
    const trace = sends(await traceLines(['fragment-ack-bug', ...rule, '--until', '10s']));
    const ps = packets(file);
    ps.forEach((p, i) => expect(hexOf(decrypt(p.payload))).toBe(trace[i].hex));
    // The first ACK is the Connect's, alone in its datagram (docs/sources.md 26): removing it leaves nothing
    // to send, so that datagram is dropped whole; the second shares one with the keepalive echo.
    const byRule = ps.filter((p) => /by link:? rule/.test(p.comment ?? '')).map((p) => p.comment);
    expect(byRule).toEqual([
      'DROPPED by link: rule | ack seq=0 (low-type)',
      'REWRITTEN by link rule: removed #1 ack seq=1 (low-type) | ack seq=1 (low-type) ; data (0x00) reliable+ordered seq=1',
    ]);
  });
});

describe("the trace's marks, on busier runs", () => {
  it.each([
    ['lossy-link', ['--mode', 'stock'], '60s'],
    ['lossy-link', ['--mode', 'fixed'], '60s'],
    ['valentines', ['--mode', 'stock'], '30s'],
  ])('%s %j: every packet carries the marks of its trace line', async (scenario, mode, until) => {
    const file = join(temp('marks'), 'm.pcapng');
    await runWithPcap([scenario, ...mode, '--duration', until], file);
    const trace = sends(await traceLines([scenario, ...mode, '--until', until]));
    const ps = packets(file);
    expectTraceMarks(
      ps.map((p) => p.comment ?? ''),
      trace,
    );
    expect(ps.some((p) => p.comment?.includes('[RETRANSMIT #'))).toBe(true);
  });
});

describe('several clients', () => {
  it('each client at 10.10.10.(238+k):(22101+k), the server at 22101, IPv4 ids counted per host', async () => {
    const dir = temp('multi');
    const file = join(dir, 'v.pcapng');
    const { datagrams } = await runWithPcap(['valentines', '--duration', '15s'], file);
    const trace = sends(await traceLines(['valentines', '--until', '15s']));
    expect(trace).toHaveLength(datagrams);
    expect(new Set(trace.map((l) => l.client))).toEqual(new Set([1, 2, 3]));
    const rows = fields(file, ['ip.src', 'udp.srcport', 'ip.dst', 'udp.dstport', 'ip.id']);
    const ids = new Map<string, number>();
    rows.forEach(([src, sport, dst, dport, id], i) => {
      const { client, from } = trace[i];
      const c = [`10.10.10.${238 + client}`, String(22101 + client)];
      const s = ['10.10.10.1', '22101'];
      expect([src, sport, dst, dport]).toEqual(from === 'server' ? [...s, ...c] : [...c, ...s]);
      const n = ids.get(src) ?? 0;
      expect(Number(id)).toBe(n);
      ids.set(src, n + 1);
    });
    packets(file).forEach((p, i) => expect(hexOf(decrypt(p.payload))).toBe(trace[i].hex));
  });
});

describe('bcsim trace --pcap and compare --pcap', () => {
  it('trace writes the same packets as run, whatever the printed window', async () => {
    const dir = temp('trace');
    await runWithPcap(['fragment-ack-bug', '--duration', '30s'], join(dir, 'run.pcapng'));
    const r = await cli([
      'trace',
      'fragment-ack-bug',
      '--until',
      '30s',
      '--from',
      '20s',
      '--filter',
      'fragment',
      '--pcap',
      join(dir, 'trace.pcapng'),
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('RETRANSMIT');
    const strip = (ps: Packet[]) => ps.map((p) => [p.timestampUs, p.frame.toString('hex'), p.comment]);
    expect(strip(packets(join(dir, 'trace.pcapng')))).toEqual(strip(packets(join(dir, 'run.pcapng'))));
  });

  it('trace --pcap finishes the capture when the reader of stdout goes away', async () => {
    const dir = temp('closed');
    const { datagrams } = await runWithPcap(['fragment-ack-bug'], join(dir, 'run.pcapng'));
    let writes = 0;
    const io: CliIO = {
      stdout: () => {
        writes++;
      },
      stderr: () => {},
      stdoutIsTTY: false,
      stderrIsTTY: false,
      env: {},
      cwd: dir,
      stdoutClosed: () => writes > 0, // gone after the first write
    };
    expect(await runCli(['trace', 'fragment-ack-bug', '--pcap', 'trace.pcapng'], io)).toBe(0);
    expect(writes).toBe(1);
    expect(packets(join(dir, 'trace.pcapng'))).toHaveLength(datagrams);
  });

  it('compare writes one file per column, the label before the extension', async () => {
    const dir = temp('compare');
    const r = await cli([
      'compare',
      'fragment-ack-bug',
      '--duration',
      '30s',
      '--out-dir',
      join(dir, 'report'),
      '--json',
      '--pcap',
      join(dir, 'out.pcapng'),
    ]);
    expect(withoutPlanCut(r.stderr)).toBe('');
    expect(r.code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['out.fixed.pcapng', 'out.stock.pcapng', 'report']);
    const doc = JSON.parse(r.stdout);
    for (const label of ['stock', 'fixed']) {
      const file = join(dir, `out.${label}.pcapng`);
      expect(fields(file, ['frame.number'])).toHaveLength(doc.runs[label].datagrams);
      expect(tshark(['-r', file, '-T', 'fields', '-e', 'frame.comment']).includes('[RETRANSMIT #')).toBe(
        label === 'stock',
      );
    }
    // The stock column is the stock run: the same packets as `run --mode stock`.
    await runWithPcap(['fragment-ack-bug', '--duration', '30s', '--mode', 'stock'], join(dir, 'run.pcapng'));
    const strip = (ps: Packet[]) => ps.map((p) => [p.timestampUs, p.frame.toString('hex'), p.comment]);
    expect(strip(packets(join(dir, 'out.stock.pcapng')))).toEqual(strip(packets(join(dir, 'run.pcapng'))));
  });
});

describe('refusals, failures and interruptions', () => {
  it.each([
    ['run', ['run', 'fragment-ack-bug']],
    ['trace', ['trace', 'fragment-ack-bug']],
    ['compare', ['compare', 'fragment-ack-bug']],
  ])(
    '%s: a missing folder, a folder, an unwritable place or a lone --pcap-plaintext exit 2 with one line, before running',
    async (_name, args) => {
      const dir = temp('bad');
      const cases: Array<[string[], RegExp]> = [
        [
          ['--pcap', join(dir, 'missing', 'x.pcapng')],
          /^bcsim: --pcap .*missing\/x\.pcapng: .*the folder .*missing does not exist\n$/,
        ],
        [['--pcap', dir], /^bcsim: --pcap .*: is a folder, not a file\n$/],
        [['--pcap', '/proc/x.pcapng'], /^bcsim: --pcap \/proc\/x\.pcapng: .*cannot write/],
        [['--pcap', '/dev/null'], /^bcsim: --pcap \/dev\/null: is not a regular file/],
        [['--pcap', ''], /^bcsim: --pcap '': .*empty path/],
        [['--pcap-plaintext'], /^bcsim: --pcap-plaintext: only with --pcap FILE\n$/],
      ];
      for (const [flags, message] of cases) {
        const out = args[0] === 'compare' ? ['--out-dir', join(dir, 'report')] : [];
        const { value: r, cpuMs } = await withCpuMs(() => cli([...args, ...out, ...flags]));
        expect(r.code, flags.join(' ')).toBe(2);
        expect(r.stderr).toMatch(message);
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        expect(r.stdout).toBe('');
        // Refused before the run: little CPU (not wall time, which a busy machine stretches).
        expect(cpuMs).toBeLessThan(5000);
      }
      expect(readdirSync(dir)).toEqual([]);
    },
  );

  it('compare refuses a capture inside its report folder, which it replaces whole', async () => {
    const dir = temp('inside');
    const r = await cli([
      'compare',
      'fragment-ack-bug',
      '--out-dir',
      join(dir, 'r'),
      '--pcap',
      join(dir, 'r', 'x.pcapng'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^bcsim: --pcap .*: is inside the report folder .*, which is replaced whole; write the capture elsewhere\n$/,
    );
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a run that fails leaves no file and no temporary', async () => {
    const dir = temp('fail');
    const file = join(dir, 'x.pcapng');
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{ "name": "bad", "duration": "forever" }');
    for (const args of [
      ['run', 'no-such-scenario', '--pcap', file],
      ['run', bad, '--pcap', file],
      ['trace', bad, '--pcap', file],
      ['compare', bad, '--pcap', file, '--out-dir', join(dir, 'r')],
    ]) {
      const r = await cli(args);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(readdirSync(dir)).toEqual(['bad.json']);
    // A run that stops with a limit error after it has captured thousands of datagrams.
    const sets = [
      'tickMs=1',
      'transport.datagramsPerUpdate=64',
      'transport.peerTimeoutMs=86400000',
      'link.both.latencyMs=3600000',
      'traffic.phases=[{"kind":"lull","stateUpdatesPerSecond":10000,"stateUpdateBytes":[400,400],"arrival":"periodic"}]',
    ];
    const r = await cli([
      'run',
      join(ROOT, 'test/scenarios/minimal.json'),
      ...sets.flatMap((x) => ['--set', x]),
      '--pcap',
      file,
    ]);
    expect(r.stderr).toMatch(/^bcsim: limit: simulator: more than 150,000 pending events/);
    expect(r.code).toBe(2);
    expect(readdirSync(dir)).toEqual(['bad.json']);
  });

  it('a run killed outright leaves no file at the target; the next capture there sweeps the temporary', async () => {
    const dir = temp('sigint');
    const file = join(dir, 'long.pcapng');
    const child = spawn(process.execPath, [join(ROOT, 'dist/cli/main.js'), 'run', 'long-session', '--pcap', file], {
      stdio: 'ignore',
    });
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((done) =>
      child.once('exit', (code, signal) => done([code, signal])),
    );
    // Wait until the capture is being written (its temporary has grown), then interrupt.
    const tempName = `${TEMP_PREFIX}${child.pid}-long.pcapng`;
    for (let i = 0; i < 600; i++) {
      const path = join(dir, tempName);
      if (existsSync(path) && statSync(path).size > 1 << 20) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(existsSync(join(dir, tempName))).toBe(true);
    // SIGKILL: no handler runs (Ctrl-C removes the temporary itself, pcapng-interrupt.test.ts).
    child.kill('SIGKILL');
    const [, signal] = await exited;
    expect(signal).toBe('SIGKILL');
    expect(existsSync(file)).toBe(false);
    expect(existsSync(join(dir, tempName))).toBe(true);
    // The next capture into the folder removes the dead run's temporary.
    const r = await cli(['run', 'fragment-ack-bug', '--duration', '5s', '--pcap', join(dir, 'next.pcapng')]);
    expect(r.code).toBe(0);
    const next = await cli(['run', 'fragment-ack-bug', '--duration', '5s', '--pcap', file]);
    expect(next.code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['long.pcapng', 'next.pcapng']);
  }, 60_000);
});
