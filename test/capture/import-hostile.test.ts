// Hostile and broken captures: never an exception out of
// the reader; a fatal problem is a typed error naming the byte offset, a
// problem confined to one packet is a counted skip, and GameSpy is a label.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { scanCapture } from '../../src/analysis/capture/bc-packets.js';
import { classifyPayload } from '../../src/analysis/capture/payload-classifier.js';
import type { ScanStats } from '../../src/analysis/capture/bc-packets.js';
import { openCapture } from '../../src/core/pcap/index.js';
import { udpFromFrame } from '../../src/core/pcap/udp.js';
import { encrypt } from '../../src/core/codec/index.js';
import {
  EPOCH_US,
  ack,
  bc,
  ethernet,
  ipv4,
  pcap,
  pcapng,
  reliable,
  udpPackets,
  CLIENT_IP,
  SERVER_IP,
} from '../support/pcap-build.js';
import type { Packet, WirePacket } from '../support/pcap-build.js';
import { U64_MAX, pcapngClock } from '../support/pcapng-clock.js';
import type { ClockInterface } from '../support/pcapng-clock.js';

const dir = mkdtempSync(join(tmpdir(), 'bcsim-hostile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
function file(bytes: Uint8Array): string {
  const path = join(dir, `h${n++}.cap`);
  writeFileSync(path, bytes);
  return path;
}

const TRAFFIC: WirePacket[] = [
  { timeUs: 10_000, from: 'client', bytes: bc(0xff, [reliable(0, [0xff, 1, 2], 0x03)]) },
  { timeUs: 20_000, from: 'server', bytes: bc(0x01, [reliable(0, [2], 0x03)]) },
  { timeUs: 30_000, from: 'client', bytes: bc(0x02, [ack(0, 2)]) },
];
const GOOD = udpPackets(TRAFFIC);

function scanned(path: string): ScanStats {
  const result = scanCapture(path);
  if (!result.ok) throw new Error(`unexpected open failure: ${result.error.reason}`);
  return result.stats;
}

function openError(bytes: Uint8Array) {
  const result = scanCapture(file(bytes));
  if (result.ok) throw new Error('expected the file to be refused');
  return result.error;
}

const udpFrame = (payload: Uint8Array, sport = 22102, dport = 22101): Uint8Array =>
  ethernet(ipv4({ src: CLIENT_IP, dst: SERVER_IP, sport, dport, payload }));
const at = (i: number, data: Uint8Array): Packet => ({ timeUs: EPOCH_US + i * 1000, data });

describe('files that are not captures', () => {
  it('a text file: bad magic at offset 0, naming the bytes', () => {
    const error = openError(new TextEncoder().encode('01 02 03 06 C0 00 00 02\n'));
    expect(error).toMatchObject({ code: 'bad-magic', offset: 0 });
    expect(error.reason).toContain('not a pcap or pcapng file (starts with 30 31 20 30)');
  });

  it('an empty file, and one too short for its header', () => {
    expect(openError(new Uint8Array(0))).toMatchObject({ code: 'truncated', offset: 0 });
    expect(openError(Uint8Array.of(0xd4, 0xc3))).toMatchObject({ code: 'truncated' });
    expect(openError(pcap([]).subarray(0, 20))).toMatchObject({ code: 'truncated' });
    expect(openError(pcapng([{ interfaces: [], blocks: [] }]).subarray(0, 16))).toMatchObject({ code: 'truncated' });
  });

  it('a missing file and a directory', () => {
    const missing = scanCapture(join(dir, 'nope.pcap'));
    expect(missing.ok).toBe(false);
    if (!missing.ok)
      expect(missing.error).toMatchObject({ code: 'io', offset: 0, reason: 'cannot open (no such file)' });
    const folder = scanCapture(dir);
    expect(folder.ok).toBe(false);
    if (!folder.ok) expect(folder.error.code).toMatch(/io|not-a-file/);
  });

  it('an impossible pcap version and an impossible pcapng byte-order magic', () => {
    expect(openError(pcap(GOOD, { version: [7, 0] }))).toMatchObject({ code: 'bad-header', offset: 4 });
    const bytes = pcapng([{ interfaces: [{ linkType: 1 }], blocks: [] }]);
    bytes.set([1, 2, 3, 4], 8);
    expect(openError(bytes)).toMatchObject({ code: 'bad-header', offset: 8 });
  });

  it('a classic pcap of an unknown link type: one error naming it', () => {
    const error = openError(pcap(GOOD, { linkType: 147 }));
    expect(error).toMatchObject({ code: 'unsupported-link-type', offset: 20 });
    expect(error.reason).toContain('user-defined (DLT_USER0) is not supported');
  });
});

describe('files that break off', () => {
  it('a pcap cut inside a record: the packets before it, then an error at the record', () => {
    const whole = pcap(GOOD);
    const stats = scanned(file(whole.subarray(0, whole.length - 5)));
    expect(stats.bc).toBe(2);
    expect(stats.error).toMatchObject({ code: 'truncated' });
    // The third record starts after the 24-byte header and two records.
    const third = 24 + 16 + GOOD[0].data.length + 16 + GOOD[1].data.length;
    expect(stats.error?.offset).toBe(third);
    expect(stats.error?.reason).toContain('the file is cut short');
  });

  it('a pcap cut inside a record header', () => {
    const whole = pcap(GOOD);
    const cut = 24 + 16 + GOOD[0].data.length + 7;
    const stats = scanned(file(whole.subarray(0, cut)));
    expect(stats.bc).toBe(1);
    expect(stats.error).toMatchObject({ code: 'truncated', offset: cut - 7 });
  });

  it('a pcap record whose length lies (more than any packet)', () => {
    const bytes = pcap(GOOD);
    new DataView(bytes.buffer).setUint32(24 + 8, 0x7fffffff, true);
    const stats = scanned(file(bytes));
    expect(stats.bc).toBe(0);
    expect(stats.error).toMatchObject({ code: 'bad-length', offset: 32 });
  });

  it('a pcapng block whose length runs past the end, or does not match its trailing copy', () => {
    const blocks = GOOD.map((packet) => ({ kind: 'epb' as const, packet }));
    const good = pcapng([{ interfaces: [{ linkType: 1 }], blocks }]);
    const shb = 28;
    const idb = 20;
    const firstEpb = shb + idb;
    // Past the end.
    const past = good.slice();
    new DataView(past.buffer).setUint32(firstEpb + 4, 1 << 20, true);
    let stats = scanned(file(past));
    expect(stats.bc).toBe(0);
    expect(stats.error).toMatchObject({ code: 'truncated', offset: firstEpb + 4 });
    expect(stats.error?.reason).toContain('or the length lies');
    // Within the file, but the trailing copy disagrees.
    const lying = good.slice();
    const view = new DataView(lying.buffer);
    const length = view.getUint32(firstEpb + 4, true);
    view.setUint32(firstEpb + 4, length + 4, true);
    stats = scanned(file(lying));
    expect(stats.error).toMatchObject({ code: 'bad-length', offset: firstEpb + 4 });
    expect(stats.error?.reason).toContain('does not match its trailing copy');
    // Not a multiple of 4.
    const odd = good.slice();
    new DataView(odd.buffer).setUint32(firstEpb + 4, length + 1, true);
    stats = scanned(file(odd));
    expect(stats.error).toMatchObject({ code: 'bad-length' });
    // A file cut in the middle of its last block.
    stats = scanned(file(good.subarray(0, good.length - 3)));
    expect(stats.bc).toBe(2);
    expect(stats.error).toMatchObject({ code: 'truncated' });
  });
});

describe('packets that are skipped, counted', () => {
  it('a captured length overrunning its block, an undescribed interface, an unknown link type', () => {
    const bytes = pcapng([
      {
        interfaces: [{ linkType: 1 }, { linkType: 147 }],
        blocks: [
          { kind: 'epb', packet: GOOD[0] },
          { kind: 'epb', packet: GOOD[1], captured: 4000 }, // lies: longer than its block
          { kind: 'epb', interfaceId: 1, packet: GOOD[1] }, // DLT_USER0: not ours
          { kind: 'epb', interfaceId: 9, packet: GOOD[1] }, // no such interface
          { kind: 'epb', packet: GOOD[2] },
        ],
      },
    ]);
    const stats = scanned(file(bytes));
    expect(stats.error).toBeNull();
    expect(stats.packets).toBe(5);
    expect(stats.bc).toBe(2);
    expect(stats.skipped).toEqual({ 'bad packet block': 1, 'unsupported link type': 1, 'undescribed interface': 1 });
  });

  it('frames shorter than their headers, fragments, other protocols, ARP and IPv6', () => {
    const ip = ipv4({ src: CLIENT_IP, dst: SERVER_IP, sport: 22102, dport: 22101, payload: encrypt(TRAFFIC[2].bytes) });
    const fragment = ipv4({
      src: CLIENT_IP,
      dst: SERVER_IP,
      sport: 22102,
      dport: 22101,
      payload: encrypt(TRAFFIC[2].bytes),
      fragment: 0x2000,
    });
    const later = ipv4({
      src: CLIENT_IP,
      dst: SERVER_IP,
      sport: 22102,
      dport: 22101,
      payload: encrypt(TRAFFIC[2].bytes),
      fragment: 0x0010,
    });
    const tcp = ipv4({
      src: CLIENT_IP,
      dst: SERVER_IP,
      sport: 22102,
      dport: 22101,
      payload: new Uint8Array(20),
      protocol: 6,
    });
    const packets = [
      at(0, ethernet(ip).subarray(0, 10)), // shorter than the Ethernet header
      at(1, ethernet(ip).subarray(0, 30)), // ends inside the IPv4 header
      at(2, ethernet(ip).subarray(0, 40)), // ends inside the UDP header
      at(3, ethernet(fragment)),
      at(4, ethernet(later)),
      at(5, ethernet(tcp)),
      at(6, ethernet(new Uint8Array(28), { ethertype: 0x0806 })), // ARP
      at(7, ethernet(new Uint8Array(40), { ethertype: 0x86dd })), // IPv6
      at(8, ethernet(ip)),
    ];
    const stats = scanned(file(pcap(packets)));
    expect(stats.packets).toBe(9);
    expect(stats.bc).toBe(1);
    expect(stats.skipped).toEqual({ 'shorter than its headers': 3, 'IPv4 fragment': 2, 'not UDP': 1, 'not IPv4': 2 });
  });

  it('UDP payloads under 2 bytes are counted, not decoded', () => {
    const stats = scanned(
      file(
        pcap([
          at(0, udpFrame(new Uint8Array(0))),
          at(1, udpFrame(Uint8Array.of(0x01))),
          at(2, udpFrame(encrypt(TRAFFIC[2].bytes))),
        ]),
      ),
    );
    expect(stats.tooShort).toBe(2);
    expect(stats.bc).toBe(1);
  });

  it('a UDP payload cut by the snap length', () => {
    const frame = udpFrame(encrypt(TRAFFIC[2].bytes));
    const stats = scanned(
      file(
        pcap([{ timeUs: EPOCH_US, data: frame.subarray(0, frame.length - 2), originalLength: frame.length }], {
          snapLength: frame.length - 2,
        }),
      ),
    );
    expect(stats.skipped).toEqual({ 'UDP payload cut by the snap length': 1 });
  });
});

describe('what a UDP payload is', () => {
  it('GameSpy queries and replies are labelled, not errors', () => {
    const query = new TextEncoder().encode('\\status\\');
    const reply = new TextEncoder().encode('\\gamename\\bcommander\\gamever\\1.1\\hostname\\DS9\\final\\');
    const packets = [
      at(0, udpFrame(query, 51234, 22101)),
      at(1, ethernet(ipv4({ src: SERVER_IP, dst: CLIENT_IP, sport: 22101, dport: 51234, payload: reply }))),
      ...udpPackets(TRAFFIC).map((p, i) => at(2 + i, p.data)),
    ];
    const stats = scanned(file(pcap(packets)));
    expect(stats.gamespy).toEqual({ queries: 1, responses: 1 });
    expect(stats.bc).toBe(3);
    expect(stats.other).toEqual({});
    expect(classifyPayload(query, true).kind).toBe('gamespy');
  });

  it('other UDP: undecodable on a BC port, not BC elsewhere', () => {
    const dns = new Uint8Array(40).fill(0xab);
    const stats = scanned(file(pcap([at(0, udpFrame(dns, 40000, 53)), at(1, udpFrame(dns, 22102, 22101))])));
    expect(stats.other).toEqual({ 'not BC (other ports)': 1, 'undecodable on a BC port': 1 });
    const classified = classifyPayload(dns, true);
    expect(classified).toMatchObject({ kind: 'other', reason: 'undecodable' });
    if (classified.kind === 'other') expect(classified.detail).toMatch(/^decrypted, offset \d+: /);
  });

  it('a BC server on another port is found by its datagrams', () => {
    const packets = TRAFFIC.map((t, i) => {
      const server = t.from === 'server';
      const ip = ipv4({
        src: server ? SERVER_IP : CLIENT_IP,
        dst: server ? CLIENT_IP : SERVER_IP,
        sport: server ? 30000 : 30001,
        dport: server ? 30001 : 30000,
        payload: encrypt(t.bytes),
      });
      return at(i, ethernet(ip));
    });
    const stats = scanned(file(pcap(packets)));
    expect(stats.bc).toBe(3);
    expect(stats.connections[0].server.label).toBe('10.10.10.1:30000');
  });
});

describe('fuzzing: the reader and the scan never throw', () => {
  it('random bytes after a valid magic, and random corruptions of good files', () => {
    const good = [
      pcap(GOOD),
      pcap(GOOD, { order: 'be', nanosecond: true }),
      pcapng([
        {
          interfaces: [{ linkType: 1 }],
          blocks: GOOD.map((packet) => ({ kind: 'epb' as const, packet, comment: 'c' })),
        },
      ]),
      // Nanoseconds and an if_tsoffset: flips land in the clock's options too.
      pcapngClock({ tsresol: 9, tsoffsetS: 1_014_854_400n }, [10_000_000n, 20_000_000n, 30_000_000n]),
    ];
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: good.length - 1 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 8 }),
        fc.nat(),
        (which, flips, cutAt) => {
          const bytes = good[which].slice();
          for (const [pos, value] of flips) bytes[pos % bytes.length] = value;
          const cut = bytes.subarray(0, Math.max(0, bytes.length - (cutAt % 64)));
          const path = file(cut);
          const result = scanCapture(path, { onDatagram: (d) => void d.decode() });
          if (result.ok) expect(result.stats.packets).toBeGreaterThanOrEqual(0);
          else expect(typeof result.error.offset).toBe('number');
        },
      ),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        fc.constantFrom(0xa1b2c3d4, 0xd4c3b2a1, 0x0a0d0d0a, 0x4d3cb2a1),
        (tail, magic) => {
          const head = new Uint8Array(4);
          new DataView(head.buffer).setUint32(0, magic, true);
          const bytes = new Uint8Array(4 + tail.length);
          bytes.set(head);
          bytes.set(tail, 4);
          const opened = openCapture(file(bytes));
          if (!opened.ok) return;
          for (let i = 0; i < 1000; i++) {
            const step = opened.reader.next();
            if (step.kind === 'end' || step.kind === 'error') break;
            if (step.kind === 'packet') udpFromFrame(step.packet.linkType, step.packet.data);
          }
          opened.reader.close();
        },
      ),
      { numRuns: 300 },
    );
  });
});

/** 2^53 − 1 µs: the last time bcsim shows. */
const MAX_US = 9_007_199_254_740_991n;
const I64_MIN = -(1n << 63n);
const I64_MAX = (1n << 63n) - 1n;

/** The exact time of `units` on `iface`, in ns since 1970 (floored), worked out apart from the reader. */
function exactNs(iface: ClockInterface, units: bigint): bigint {
  const tsresol = iface.tsresol ?? 6;
  const k = BigInt(tsresol & 0x7f);
  const perSecond = (tsresol & 0x80) === 0 ? 10n ** k : 2n ** k;
  const total = (units + (iface.tsoffsetS ?? 0n) * perSecond) * 1_000_000_000n;
  const q = total / perSecond;
  return total < 0n && q * perSecond !== total ? q - 1n : q;
}

describe('hostile clocks: every timestamp is shown (to within 3 µs), or refused at its packet', () => {
  it('any if_tsresol, if_tsoffset and 64-bit timestamp (seeded)', () => {
    const edgeUnits = fc.constantFrom(0n, 1n, U64_MAX, MAX_US, MAX_US + 1n, 10n ** 16n, 1n << 63n, 1_014_854_400n);
    fc.assert(
      fc.property(
        fc.oneof(fc.constantFrom(0, 6, 9, 127, 0x80, 0x94, 0xff), fc.integer({ min: 0, max: 255 })),
        fc.option(fc.oneof(fc.constantFrom(I64_MIN, I64_MAX, -1n, 1n), fc.bigInt({ min: I64_MIN, max: I64_MAX }))),
        fc.array(
          fc.oneof(
            edgeUnits,
            fc.bigInt({ min: 0n, max: U64_MAX }),
            // A plausible time for the interface's units, up to just past the range.
            fc.tuple(fc.bigInt({ min: 0n, max: 9_100_000_000n }), fc.bigInt({ min: 0n, max: 1n << 127n })),
          ),
          { minLength: 1, maxLength: 4 },
        ),
        (tsresol, tsoffsetS, picks) => {
          const iface: ClockInterface = tsoffsetS === null ? { tsresol } : { tsresol, tsoffsetS };
          const k = BigInt(tsresol & 0x7f);
          const perSecond = (tsresol & 0x80) === 0 ? 10n ** k : 2n ** k;
          const units = picks.map((p) => {
            if (typeof p === 'bigint') return p;
            const u = p[0] * perSecond + (p[1] % perSecond);
            return u > U64_MAX ? U64_MAX : u;
          });
          const opened = openCapture(file(pcapngClock(iface, units)));
          if (!opened.ok) throw new Error(opened.error.reason);
          for (const u of units) {
            const ns = exactNs(iface, u);
            const inRange = ns >= 0n && ns <= MAX_US * 1000n;
            // Within 3 µs of an end of the range, the double arithmetic may decide either way.
            const nearEdge = (ns > -3000n && ns < 3000n) || (ns > (MAX_US - 3n) * 1000n && ns < (MAX_US + 3n) * 1000n);
            const step = opened.reader.next();
            if (step.kind === 'packet') {
              expect(inRange || nearEdge).toBe(true);
              expect(step.packet.timeUs).toBeGreaterThanOrEqual(0);
              expect(step.packet.timeUs).toBeLessThanOrEqual(Number(MAX_US));
              expect(Math.abs(step.packet.timeUs - Number(ns) / 1000)).toBeLessThanOrEqual(3);
            } else {
              expect(step.kind).toBe('error');
              expect(inRange && !nearEdge).toBe(false);
              if (step.kind === 'error') expect(step.error.code).toBe('bad-timestamp');
              break;
            }
          }
          opened.reader.close();
        },
      ),
      { numRuns: 500, seed: 2553 },
    );
  });

  // [name, interface, timestamps, shown: exit 0 | refused: exit 2]
  const S = 1_014_854_400n; // 2002-02-28 in seconds
  const US = S * 1_000_000n;
  const CASES: Array<[string, ClockInterface, bigint[], 0 | 2]> = [
    ['if_tsresol 10^0, µs written as seconds', { tsresol: 0 }, [US, US + 10_000n, US + 20_000n], 2],
    ['if_tsresol 10^0, seconds', { tsresol: 0 }, [S, S + 1n, S + 2n], 0],
    ['if_tsresol 10^0, the last packet 10^16 s later', { tsresol: 0 }, [S, S + 1n, S + 10n ** 16n], 2],
    ['if_tsresol 10^0, the last packet 8·10^15 s later', { tsresol: 0 }, [S, S + 1n, S + 8n * 10n ** 15n], 2],
    ['if_tsresol 2^0, the last packet 2^53 s later', { tsresol: 0x80 }, [S, S + 1n, S + (1n << 53n)], 2],
    ['a first timestamp of 0xFFFFFFFFFFFFFFFF', {}, [U64_MAX, US, US + 10_000n], 2],
    ['a last timestamp of 0xFFFFFFFFFFFFFFFF', {}, [US, US + 10_000n, U64_MAX], 2],
    ['every timestamp 0xFFFFFFFFFFFFFFFF in ns', { tsresol: 9 }, [U64_MAX, U64_MAX, U64_MAX], 2],
    ['the widest span: 0 and 2^53 − 1 µs', {}, [0n, MAX_US, MAX_US], 0],
    ['2^53 − 1 µs, then back to 0', {}, [MAX_US, 0n, 0n], 0],
    ['one µs past the range', {}, [US, US + 10_000n, MAX_US + 1n], 2],
    ['if_tsresol 2^-127, timestamps 0xFFFFFFFFFFFFFFFF', { tsresol: 0xff }, [U64_MAX, U64_MAX, U64_MAX], 0],
    ['if_tsresol 10^-127', { tsresol: 127 }, [0n, 1n << 63n, U64_MAX], 0],
    ['if_tsoffset −2^63 s', { tsoffsetS: I64_MIN }, [US, US + 10_000n, US + 20_000n], 2],
    ['if_tsoffset 2^63 − 1 s', { tsoffsetS: I64_MAX }, [US, US + 10_000n, US + 20_000n], 2],
    ['if_tsoffset −1 s at time 0', { tsoffsetS: -1n }, [0n, 10_000n, 20_000n], 2],
    [
      'if_tsoffset −2^63 s bringing 2^63 + 10^9 s back',
      { tsresol: 0, tsoffsetS: I64_MIN },
      [(1n << 63n) + S, (1n << 63n) + S + 1n, (1n << 63n) + S + 2n],
      0,
    ],
    ['if_tsoffset 10^9 s, timestamps from 0', { tsoffsetS: S }, [0n, 10_000n, 20_000n], 0],
  ];

  it.each(CASES)('%s: exit 0, or exit 2 with one line on stderr', async (_name, iface, units, expected) => {
    const path = file(pcapngClock(iface, units));
    for (const args of [['decode'], ['decode', '--json'], ['analyze'], ['analyze', '--json']]) {
      const r = await cli([...args, path]);
      const what = `${args.join(' ')}: ${r.stderr}`;
      expect(r.code, what).toBe(expected);
      if (expected === 2) {
        expect(r.stderr, what).toMatch(new RegExp(`^bcsim: ${path}: offset \\d+: packet \\d's timestamp, [^\\n]*\\n$`));
        expect(r.stderr).toContain('outside the range bcsim can show');
      } else if (args.includes('decode') && args.includes('--json')) {
        expect(r.stderr, what).toMatch(/^# 3 BC datagrams shown · [^\n]* · time 0 = [^\n]*Z\n$/);
      } else {
        expect(r.stderr, what).toBe('');
      }
    }
  });
});
