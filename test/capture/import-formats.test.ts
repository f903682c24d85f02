// Capture import: every file format, byte order and link
// type the reader takes, built by hand, read back to the same BC datagrams.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scanCapture } from '../../src/analysis/capture/bc-packets.js';
import type { BcDatagram, ScanStats } from '../../src/analysis/capture/bc-packets.js';
import { openCapture } from '../../src/core/pcap/index.js';
import { toHex } from '../../src/core/codec/index.js';
import {
  EPOCH_US,
  ack,
  bc,
  ethernet,
  frameFor,
  ipv4,
  pcap,
  pcapng,
  reliable,
  udpPackets,
  unreliable,
  SERVER_IP,
  CLIENT_IP,
} from '../support/pcap-build.js';
import type { ByteOrder, Packet, WirePacket } from '../support/pcap-build.js';

const dir = mkdtempSync(join(tmpdir(), 'bcsim-import-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
function file(bytes: Uint8Array): string {
  const path = join(dir, `c${n++}.cap`);
  writeFileSync(path, bytes);
  return path;
}

/** A join in miniature: the client's connect (peer 0xFF), the server's reply, the client with its slot, ACKs. */
const TRAFFIC: WirePacket[] = [
  { timeUs: 47_000, from: 'client', bytes: bc(0xff, [reliable(0, [0xff, 1, 2], 0x03)]) },
  { timeUs: 55_250, from: 'server', bytes: bc(0x01, [reliable(0, [2], 0x03), reliable(0, [0x20, 0, 8])]) },
  { timeUs: 67_500, from: 'client', bytes: bc(0x02, [ack(0, 2), ack(0), unreliable()]) },
  { timeUs: 1_085_000, from: 'server', bytes: bc(0x01, [ack(1, 2)]) },
];

function scan(path: string): {
  stats: ScanStats;
  datagrams: Array<Omit<BcDatagram, 'wire' | 'plain' | 'decode'> & { hex: string; messages: number }>;
} {
  const datagrams: Array<Omit<BcDatagram, 'wire' | 'plain' | 'decode'> & { hex: string; messages: number }> = [];
  const result = scanCapture(path, {
    onDatagram: (d) => {
      // The object is refilled for every datagram: keep copies of what the test looks at.
      const { wire: _w, plain, ...rest } = d;
      datagrams.push({ ...rest, hex: toHex(plain), messages: d.decode().messages.length });
    },
  });
  if (!result.ok) throw new Error(`${result.error.code} at ${result.error.offset}: ${result.error.reason}`);
  return { stats: result.stats, datagrams };
}

function expectJoin(path: string, plaintext = false): ScanStats {
  const { stats, datagrams } = scan(path);
  expect(stats.error).toBeNull();
  expect(stats.bc).toBe(4);
  expect(plaintext ? stats.plaintext : stats.encrypted).toBe(4);
  expect(datagrams.map((d) => d.hex)).toEqual(TRAFFIC.map((t) => toHex(t.bytes)));
  expect(datagrams.map((d) => d.from)).toEqual(['client', 'server', 'client', 'server']);
  expect(datagrams.map((d) => d.reading)).toEqual(Array(4).fill(plaintext ? 'plaintext' : 'encrypted'));
  // Relative times count from the whole second of the first packet.
  expect(datagrams.map((d) => Math.round(d.timeUs))).toEqual(TRAFFIC.map((t) => t.timeUs));
  expect(stats.originUs).toBe(EPOCH_US);
  expect(stats.connections).toHaveLength(1);
  const c = stats.connections[0];
  expect(c.server.label).toBe('10.10.10.1:22101');
  expect(c.client.label).toBe('10.10.10.239:22102');
  expect(c.slot).toBe(2);
  expect(c.startSeen).toBe(true);
  return stats;
}

const LINK_TYPES = [1, 101, 228, 113, 276, 0, 108];

describe('classic pcap', () => {
  for (const order of ['le', 'be'] as ByteOrder[]) {
    for (const linkType of LINK_TYPES) {
      it(`${order === 'le' ? 'little' : 'big'}-endian, link type ${linkType}`, () => {
        expectJoin(file(pcap(udpPackets(TRAFFIC, { linkType }), { order, linkType })));
      });
    }
    it(`${order}: nanosecond magic keeps sub-microsecond times`, () => {
      const packets = udpPackets(TRAFFIC).map((p, i) => ({ ...p, timeUs: p.timeUs + (i === 1 ? 0.25 : 0) }));
      const { datagrams } = scan(file(pcap(packets, { order, nanosecond: true })));
      expect(datagrams[1].timeUs).toBeCloseTo(55_250.25, 3);
      expect(datagrams.map((d) => d.hex)).toEqual(TRAFFIC.map((t) => toHex(t.bytes)));
    });
  }

  it('reports the format, the byte order and the link type', () => {
    const opened = openCapture(file(pcap(udpPackets(TRAFFIC), { order: 'be', nanosecond: true, linkType: 1 })));
    if (!opened.ok) throw new Error(opened.error.reason);
    expect(opened.reader.format).toBe('pcap');
    expect(opened.reader.littleEndian).toBe(false);
    expect(opened.reader.nanosecond).toBe(true);
    expect(opened.reader.linkType).toBe(1);
    opened.reader.close();
  });

  it('reads a plaintext export (--pcap-plaintext) and says so', () => {
    expectJoin(file(pcap(udpPackets(TRAFFIC, { plaintext: true }))), true);
  });
});

describe('pcapng', () => {
  for (const order of ['le', 'be'] as ByteOrder[]) {
    for (const linkType of LINK_TYPES) {
      it(`${order === 'le' ? 'little' : 'big'}-endian section, link type ${linkType}`, () => {
        const packets = udpPackets(TRAFFIC, { linkType });
        expectJoin(
          file(
            pcapng([
              {
                order,
                interfaces: [{ linkType }],
                blocks: packets.map((packet) => ({ kind: 'epb' as const, packet, comment: 'a comment' })),
              },
            ]),
          ),
        );
      });
    }
  }

  it('takes if_tsresol: nanoseconds and a power of two', () => {
    const packets = udpPackets(TRAFFIC);
    expectJoin(
      file(
        pcapng([
          {
            interfaces: [{ linkType: 1, tsresol: 9 }],
            blocks: packets.map((packet) => ({ kind: 'epb' as const, packet })),
          },
        ]),
      ),
    );
    // 2^-20 s resolution: times within a microsecond.
    const { datagrams } = scan(
      file(
        pcapng([
          {
            interfaces: [{ linkType: 1, tsresol: 0x80 | 20 }],
            blocks: packets.map((packet) => ({ kind: 'epb' as const, packet })),
          },
        ]),
      ),
    );
    datagrams.forEach((d, i) => expect(Math.abs(d.timeUs - TRAFFIC[i].timeUs)).toBeLessThan(1.01));
  });

  it('reads several sections of both byte orders, each with its own interfaces', () => {
    const eth = udpPackets(TRAFFIC.slice(0, 2));
    const sll2 = udpPackets(TRAFFIC.slice(2), { linkType: 276 });
    expectJoin(
      file(
        pcapng([
          {
            order: 'be',
            interfaces: [{ linkType: 1 }],
            blocks: eth.map((packet) => ({ kind: 'epb' as const, packet })),
          },
          // The second section redefines interface 0 as Linux cooked v2.
          {
            order: 'le',
            interfaces: [{ linkType: 276 }],
            blocks: sll2.map((packet) => ({ kind: 'epb' as const, packet })),
          },
        ]),
      ),
    );
  });

  it('reads simple and obsolete packet blocks and skips unknown blocks', () => {
    const packets = udpPackets(TRAFFIC);
    const blocks = [
      { kind: 'raw' as const, type: 0x00000004, body: Uint8Array.of(0, 0, 0, 0) }, // name resolution: skipped
      { kind: 'opb' as const, packet: packets[0] },
      { kind: 'raw' as const, type: 0x0badf00d, body: new Uint8Array(40) }, // unknown: skipped
      { kind: 'epb' as const, packet: packets[1] },
      { kind: 'raw' as const, type: 0x00000005, body: new Uint8Array(20) }, // statistics: skipped
      { kind: 'epb' as const, packet: packets[2] },
      { kind: 'epb' as const, packet: packets[3] },
    ];
    expectJoin(file(pcapng([{ interfaces: [{ linkType: 1 }], blocks }])));
    // A simple packet block has no timestamp: it belongs to interface 0.
    const { stats, datagrams } = scan(
      file(pcapng([{ interfaces: [{ linkType: 1 }], blocks: [{ kind: 'spb', data: packets[1].data }] }])),
    );
    expect(stats.bc).toBe(1);
    expect(datagrams[0].from).toBe('server');
  });

  it('hands packet comments over when asked', () => {
    const packets = udpPackets(TRAFFIC.slice(0, 1));
    const opened = openCapture(
      file(
        pcapng([
          {
            interfaces: [{ linkType: 1 }],
            blocks: [{ kind: 'epb', packet: packets[0], comment: 'game reliable seq=2 [RETRANSMIT #1]' }],
          },
        ]),
      ),
      { comments: true },
    );
    if (!opened.ok) throw new Error(opened.error.reason);
    const step = opened.reader.next();
    expect(step.kind).toBe('packet');
    if (step.kind === 'packet') expect(step.packet.comment).toBe('game reliable seq=2 [RETRANSMIT #1]');
    opened.reader.close();
  });
});

describe('link layers', () => {
  const udp = (payload: Uint8Array) => ipv4({ src: SERVER_IP, dst: CLIENT_IP, sport: 22101, dport: 22102, payload });
  const datagram = TRAFFIC[1].bytes;
  const encrypted = udpPackets([TRAFFIC[1]])[0].data.subarray(14 + 28);

  it('Ethernet with one 802.1Q tag and with 802.1ad + 802.1Q (QinQ)', () => {
    const packets: Packet[] = [
      { timeUs: EPOCH_US, data: ethernet(udp(encrypted), { vlans: [[0x8100, 5]] }) },
      {
        timeUs: EPOCH_US + 1,
        data: ethernet(udp(encrypted), {
          vlans: [
            [0x88a8, 100],
            [0x8100, 5],
          ],
        }),
      },
    ];
    const { stats, datagrams } = scan(file(pcap(packets)));
    expect(stats.bc).toBe(2);
    expect(datagrams.every((d) => d.hex === toHex(datagram))).toBe(true);
  });

  it('Ethernet padding and a trailing FCS are not payload: the UDP length decides', () => {
    const ip = udp(Uint8Array.of(0x01, ...encrypted.subarray(1, 3)).subarray(0, 2)); // a 2-byte payload, padded to 60
    const framed = ethernet(ip, { padTo: 64 });
    const { stats } = scan(file(pcap([{ timeUs: EPOCH_US, data: framed }])));
    expect(stats.udp).toBe(1);
    expect(stats.bc + stats.tooShort + Object.values(stats.other).reduce((a, b) => a + b, 0)).toBe(1);
  });

  it('raw IP (101) takes IPv4 and skips IPv6 by the version nibble', () => {
    const v6 = new Uint8Array(48);
    v6[0] = 0x60;
    const { stats } = scan(
      file(
        pcap(
          [
            { timeUs: EPOCH_US, data: udp(encrypted) },
            { timeUs: EPOCH_US + 1, data: v6 },
          ],
          { linkType: 101 },
        ),
      ),
    );
    expect(stats.bc).toBe(1);
    expect(stats.skipped).toEqual({ 'not IPv4': 1 });
  });

  it('every supported link type frames the same datagram', () => {
    for (const linkType of LINK_TYPES) {
      const { datagrams } = scan(
        file(pcap([{ timeUs: EPOCH_US, data: frameFor(linkType, udp(encrypted)) }], { linkType })),
      );
      expect(
        datagrams.map((d) => d.hex),
        `link type ${linkType}`,
      ).toEqual([toHex(datagram)]);
    }
  });
});
