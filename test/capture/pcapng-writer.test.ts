// The pcapng export's parts: the writer's blocks, parsed back
// with a tiny reader here and read by tshark; Ethernet/IPv4/UDP framing; the
// capture's AlbyRules against the codec's; packet comments; file names and the
// all-or-nothing file set.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { decrypt, encodeDatagram, encrypt, parseHex } from '../../src/core/codec/index.js';
import type { Message } from '../../src/core/codec/index.js';
import { SERVER_ENDPOINT, clientEndpoint, endpointsOf } from '../../src/analysis/capture/addresses.js';
import { captureTargetProblem, columnCapturePath } from '../../src/analysis/capture/capture-file.js';
import { CaptureRecorder, CAPTURE_EPOCH_US, PENDING_LIMIT } from '../../src/analysis/capture/capture-recorder.js';
import { CaptureSet } from '../../src/analysis/capture/capture-set.js';
import { decryptInto, encryptInto } from '../../src/core/codec/index.js';
import { CommentWriter, TransmissionCounter, commentText } from '../../src/analysis/capture/comments.js';
import { FRAME_HEADER_BYTES, buildFrame, formatMac, ipv4Checksum } from '../../src/core/pcap/frames.js';
import { PcapngWriter } from '../../src/core/pcap/pcapng-writer.js';
import { SendNote } from '../../src/model/transport/datagram-builder.js';

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `bcsim-${prefix}-`));
  made.push(dir);
  return dir;
}

// ---------------------------------------------------------------------------
// A tiny pcapng reader: every block's framing is checked as it is read.

interface Block {
  type: number;
  body: Buffer;
  /** Options after the fixed part of the body, as [code, value]. */
  options: Array<[number, Buffer]>;
}

interface Epb {
  interfaceId: number;
  timestamp: bigint;
  data: Buffer;
  originalLength: number;
  comments: string[];
}

function readBlocks(file: Buffer): Block[] {
  const blocks: Block[] = [];
  let at = 0;
  while (at < file.length) {
    expect(file.length - at).toBeGreaterThanOrEqual(12);
    const type = file.readUInt32LE(at);
    const total = file.readUInt32LE(at + 4);
    expect(total % 4, `block at ${at}: length ${total} is a multiple of 4`).toBe(0);
    expect(at + total).toBeLessThanOrEqual(file.length);
    expect(file.readUInt32LE(at + total - 4), `block at ${at}: trailing length`).toBe(total);
    const body = file.subarray(at + 8, at + total - 4);
    const fixed =
      type === 0x0a0d0d0a ? 16 : type === 1 ? 8 : type === 6 ? 20 + pad4(body.readUInt32LE(12)) : body.length;
    blocks.push({ type, body, options: readOptions(body.subarray(fixed)) });
    at += total;
  }
  return blocks;
}

function readOptions(bytes: Buffer): Array<[number, Buffer]> {
  const options: Array<[number, Buffer]> = [];
  let at = 0;
  while (at < bytes.length) {
    const code = bytes.readUInt16LE(at);
    const length = bytes.readUInt16LE(at + 2);
    if (code === 0) {
      expect(length).toBe(0);
      expect(at + 4, 'opt_endofopt ends the options').toBe(bytes.length);
      break;
    }
    const value = bytes.subarray(at + 4, at + 4 + length);
    // Padding is zeros.
    expect([...bytes.subarray(at + 4 + length, at + 4 + pad4(length))].every((b) => b === 0)).toBe(true);
    options.push([code, value]);
    at += 4 + pad4(length);
  }
  return options;
}

function packetsOf(blocks: Block[]): Epb[] {
  return blocks
    .filter((b) => b.type === 6)
    .map((b) => {
      const captured = b.body.readUInt32LE(12);
      const data = b.body.subarray(20, 20 + captured);
      expect(
        [...b.body.subarray(20 + captured, 20 + pad4(captured))].every((x) => x === 0),
        'packet padding is zeros',
      ).toBe(true);
      return {
        interfaceId: b.body.readUInt32LE(0),
        timestamp: (BigInt(b.body.readUInt32LE(4)) << 32n) | BigInt(b.body.readUInt32LE(8)),
        data,
        originalLength: b.body.readUInt32LE(16),
        comments: b.options.filter(([code]) => code === 1).map(([, v]) => v.toString('utf8')),
      };
    });
}

const pad4 = (n: number) => (n + 3) & ~3;

function writeWith(build: (w: PcapngWriter) => void, bufferBytes?: number): Buffer {
  const chunks: Buffer[] = [];
  const writer = new PcapngWriter((chunk) => chunks.push(Buffer.from(chunk)), bufferBytes);
  build(writer);
  writer.flush();
  return Buffer.concat(chunks);
}

function tshark(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('tshark', args, { encoding: 'utf8', maxBuffer: 256 << 20 });
  if (r.error)
    throw new Error(`tshark does not run (${r.error.message}): the pcapng tests need it (apt-get install tshark)`);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** tshark's stderr minus the warning it prints when run as root. */
function tsharkErrors(stderr: string): string {
  return stderr
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.includes('Running as user "root"'))
    .join('\n');
}

const hex = (text: string) => {
  const r = parseHex(text);
  if (!r.ok) throw new Error(r.reason);
  return r.bytes;
};

// ---------------------------------------------------------------------------

describe('pcapng writer', () => {
  it('writes a section header, an Ethernet interface in microseconds, and packets with comments', () => {
    const file = writeWith((w) => {
      w.sectionHeader({ application: 'bcsim test', comment: 'section' });
      expect(w.interfaceDescription({ name: 'bcsim', tsresolDecimals: 6 })).toBe(0);
      w.packet(1_000_000, Uint8Array.of(1, 2, 3), 'first');
      w.packet(2 ** 40 + 5, Uint8Array.of(4, 5, 6, 7, 8), '');
      w.packet(7, new Uint8Array(0), 'ünïcödé ✓');
    });
    const blocks = readBlocks(file);
    expect(blocks.map((b) => b.type)).toEqual([0x0a0d0d0a, 1, 6, 6, 6]);
    const shb = blocks[0];
    expect(shb.body.readUInt32LE(0)).toBe(0x1a2b3c4d);
    expect([shb.body.readUInt16LE(4), shb.body.readUInt16LE(6)]).toEqual([1, 0]);
    expect(shb.body.readBigInt64LE(8)).toBe(-1n);
    expect(shb.options.map(([c, v]) => [c, v.toString()])).toEqual([
      [1, 'section'],
      [4, 'bcsim test'],
    ]);
    const idb = blocks[1];
    expect(idb.body.readUInt16LE(0)).toBe(1); // LINKTYPE_ETHERNET
    expect(idb.body.readUInt32LE(4)).toBe(0xffff);
    expect(idb.options.find(([c]) => c === 9)?.[1]).toEqual(Buffer.of(6)); // if_tsresol: 10^-6
    expect(idb.options.find(([c]) => c === 2)?.[1].toString()).toBe('bcsim');
    const packets = packetsOf(blocks);
    expect(packets.map((p) => [p.interfaceId, p.timestamp, [...p.data], p.originalLength, p.comments])).toEqual([
      [0, 1_000_000n, [1, 2, 3], 3, ['first']],
      [0, 2n ** 40n + 5n, [4, 5, 6, 7, 8], 5, []],
      [0, 7n, [], 0, ['ünïcödé ✓']],
    ]);
    // A packet without a comment has no options at all.
    expect(blocks[3].options).toEqual([]);
  });

  it('streams through a small buffer: the same bytes in many chunks', () => {
    const build = (w: PcapngWriter) => {
      w.sectionHeader({ application: 'x' });
      w.interfaceDescription();
      for (let i = 0; i < 500; i++) w.packet(i, new Uint8Array(i % 97).fill(i & 0xff), 'c'.repeat(i % 13));
    };
    let chunks = 0;
    const small = new PcapngWriter(() => chunks++, 4096);
    build(small);
    small.flush();
    expect(chunks).toBeGreaterThan(10);
    expect(writeWith(build, 4096).equals(writeWith(build))).toBe(true);
    // A block bigger than the buffer still fits (the buffer grows for it).
    const big = writeWith((w) => {
      w.sectionHeader();
      w.interfaceDescription();
      w.packet(0, new Uint8Array(10_000).fill(9), 'big');
    }, 4096);
    expect(packetsOf(readBlocks(big))[0].data.length).toBe(10_000);
  });

  it('cuts a comment to the 65,535 bytes an option can hold', () => {
    const file = writeWith((w) => {
      w.sectionHeader();
      w.interfaceDescription();
      w.packet(0, Uint8Array.of(1), 'x'.repeat(70_000));
    });
    const [p] = packetsOf(readBlocks(file));
    expect(p.comments[0].length).toBeLessThanOrEqual(0xffff);
    expect(p.comments[0].endsWith('...')).toBe(true);
  });

  it('refuses packets before an interface and timestamps it cannot store', () => {
    const w = new PcapngWriter(() => {});
    expect(() => w.interfaceDescription()).toThrow(/section header first/);
    w.sectionHeader();
    expect(() => w.packet(0, Uint8Array.of(1))).toThrow(/no interface 0/);
    w.interfaceDescription();
    expect(() => w.packet(-1, Uint8Array.of(1))).toThrow(/bad timestamp/);
    expect(() => w.packet(2 ** 53, Uint8Array.of(1))).toThrow(/bad timestamp/);
  });

  it('tshark reads what it writes, comments and microsecond times included', () => {
    const dir = temp('pcapng');
    const path = join(dir, 'w.pcapng');
    const { source, destination } = endpointsOf('client', 1);
    writeFileSync(
      path,
      writeWith((w) => {
        w.sectionHeader({ application: 'bcsim test' });
        w.interfaceDescription({ tsresolDecimals: 6 });
        w.packet(
          CAPTURE_EPOCH_US + 47_000,
          buildFrame(source, destination, 0, hex('FF 01 03 0F C0 00 00 FF 54 B1 7C 00 4F B3 58 0B BE')),
          'hello ; world',
        );
        w.packet(CAPTURE_EPOCH_US + 55_123, buildFrame(destination, source, 7, hex('01 01 01 02 00 02')), 'second');
      }),
    );
    const r = tshark([
      '-r',
      path,
      '-o',
      'ip.check_checksum:TRUE',
      '-T',
      'fields',
      '-E',
      'separator=|',
      '-e',
      'frame.time_epoch',
      '-e',
      'eth.src',
      '-e',
      'ip.src',
      '-e',
      'udp.srcport',
      '-e',
      'ip.dst',
      '-e',
      'udp.dstport',
      '-e',
      'ip.checksum.status',
      '-e',
      'ip.ttl',
      '-e',
      'udp.length',
      '-e',
      'frame.comment',
    ]);
    expect(tsharkErrors(r.stderr)).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual([
      '1014854400.047000000|02:00:0a:0a:0a:ef|10.10.10.239|22102|10.10.10.1|22101|1|64|25|hello ; world',
      '1014854400.055123000|02:00:0a:0a:0a:01|10.10.10.1|22101|10.10.10.239|22102|1|64|14|second',
    ]);
  });
});

describe('frames', () => {
  it('computes the IPv4 header checksum (RFC 1071 style example)', () => {
    const header = hex('45 00 00 73 00 00 40 00 40 11 00 00 c0 a8 00 01 c0 a8 00 c7');
    expect(ipv4Checksum(header, 0)).toBe(0xb861);
    header[10] = 0xb8;
    header[11] = 0x61;
    expect(ipv4Checksum(header, 0)).toBe(0); // a correct header sums to 0xFFFF
  });

  it('frames every datagram as Ethernet II, IPv4 (correct checksum, TTL 64) and UDP, whatever its length and id', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 16 }),
        fc.boolean(),
        fc.integer({ min: 0, max: 0xffff }),
        fc.uint8Array({ maxLength: 512 }),
        (client, up, id, payload) => {
          const { source, destination } = endpointsOf(up ? 'client' : 'server', client);
          const frame = buildFrame(source, destination, id, payload);
          expect(frame.length).toBe(FRAME_HEADER_BYTES + payload.length);
          expect([...frame.subarray(0, 6)]).toEqual(destination.mac);
          expect([...frame.subarray(6, 12)]).toEqual(source.mac);
          expect((frame[12] << 8) | frame[13]).toBe(0x0800);
          expect(frame[14]).toBe(0x45);
          expect((frame[16] << 8) | frame[17]).toBe(28 + payload.length);
          expect((frame[18] << 8) | frame[19]).toBe(id);
          expect(frame[22]).toBe(64);
          expect(frame[23]).toBe(17);
          expect(ipv4Checksum(frame, 14)).toBe(0);
          expect([...frame.subarray(26, 30)]).toEqual(source.ip);
          expect([...frame.subarray(30, 34)]).toEqual(destination.ip);
          expect((frame[34] << 8) | frame[35]).toBe(source.port);
          expect((frame[36] << 8) | frame[37]).toBe(destination.port);
          expect((frame[38] << 8) | frame[39]).toBe(8 + payload.length);
          expect([...frame.subarray(42)]).toEqual([...payload]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('places the hosts: server 10.10.10.1:22101, client k 10.10.10.(238+k):(22101+k), MAC 02:00 + the address', () => {
    expect(SERVER_ENDPOINT).toEqual({ mac: [2, 0, 10, 10, 10, 1], ip: [10, 10, 10, 1], port: 22101 });
    expect(clientEndpoint(1)).toEqual({ mac: [2, 0, 10, 10, 10, 239], ip: [10, 10, 10, 239], port: 22102 });
    expect(clientEndpoint(16).ip).toEqual([10, 10, 10, 254]);
    expect(clientEndpoint(16).port).toBe(22117);
    expect(formatMac(clientEndpoint(3).mac)).toBe('02:00:0a:0a:0a:f1');
  });
});

describe("the capture's AlbyRules", () => {
  it.each([
    ['01 00 00 00 00 00', '01 D6 FE 17 F1 86'],
    ['01 01 01 02 00 02', '01 D7 31 78 DB 58'],
    ['02 01 32 07 80 05 00 2A 20', '02 D7 02 D4 22 78 8A B6 03'],
  ])('encrypts the spec vector %s to %s in place', (plain, wire) => {
    const out = new Uint8Array(20).fill(0xee);
    encryptInto(hex(plain), out, 3);
    expect([...out.subarray(3, 3 + hex(wire).length)]).toEqual([...hex(wire)]);
    expect(out[2]).toBe(0xee);
    const back = new Uint8Array(hex(wire).length);
    decryptInto(hex(wire), back, 0);
    expect([...back]).toEqual([...hex(plain)]);
  });

  it('equals the codec cipher on any datagram', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 700 }), (plain) => {
        const out = new Uint8Array(plain.length);
        encryptInto(plain, out, 0);
        expect([...out]).toEqual([...encrypt(plain)]);
        const back = new Uint8Array(plain.length);
        decryptInto(plain, back, 0);
        expect([...back]).toEqual([...decrypt(plain)]);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('packet comments', () => {
  const datagram = (peerId: number, messages: Message[]) => {
    const r = encodeDatagram({ peerId, messages });
    if (!r.ok) throw new Error(r.error.reason);
    return r.bytes;
  };
  const ack = (seq: number, flags = 0, fragIndex: number | null = null): Message => ({
    type: 1,
    seq,
    flags,
    fragIndex,
  });
  const game = (seq: number | null, fragIndex: number | null = null, fragCount: number | null = null): Message => ({
    type: 0x32,
    reliable: seq !== null,
    ordered: false,
    fragment: fragIndex !== null,
    seq,
    fragIndex,
    fragCount,
    payload: new Uint8Array(4),
  });
  const comment = (
    bytes: Uint8Array,
    notes: SendNote[],
    counter = new TransmissionCounter(),
    from: 'server' | 'client' = 'client',
  ) => commentText((w) => w.datagram(bytes, notes, from, 1, counter));

  it('names each message in the trace words, with its marks, and counts re-sends as the trace does', () => {
    const counter = new TransmissionCounter();
    const fragments = datagram(2, [game(2, 0, 3), game(2, 1), game(2, 2)]);
    expect(comment(fragments, [0, 0, 0], counter)).toBe(
      'game reliable+fragment seq=2 frag=0/3 ; game reliable+fragment seq=2 frag=1 ; game reliable+fragment seq=2 frag=2',
    );
    expect(comment(fragments, [1, 1, 1], counter)).toBe(
      'game reliable+fragment seq=2 frag=0/3 [RETRANSMIT #1] ; game reliable+fragment seq=2 frag=1 [RETRANSMIT #1] ; game reliable+fragment seq=2 frag=2 [RETRANSMIT #1]',
    );
    expect(comment(fragments, [1, 1, 1], counter)).toContain('frag=2 [RETRANSMIT #2]');
    // The other peer, and another connection, count their own.
    expect(comment(fragments, [0, 0, 0], counter, 'server')).not.toContain('RETRANSMIT');
    expect(comment(fragments, [1, 1, 1], counter, 'server')).toContain('frag=0/3 [RETRANSMIT #1]');
    expect(commentText((w) => w.datagram(fragments, [1, 1, 1], 'client', 2, counter))).toContain(
      'frag=0/3 [RETRANSMIT #0]',
    );
    // A first send starts the count again (after a u16 wrap the seq is a new message).
    expect(comment(fragments, [0, 0, 0], counter)).not.toContain('RETRANSMIT');
    expect(comment(fragments, [1, 1, 1], counter)).toContain('frag=1 [RETRANSMIT #1]');
    expect(comment(datagram(2, [ack(5, 0x02), ack(2, 0x01, 1), ack(9, 0x80)]), [2, 3, 2])).toBe(
      'ack seq=5 (low-type) ; ack seq=2 frag=1 (fragment) [DEAD-ZONE ACK, pass 2] ; ack seq=9 flags=0x80',
    );
  });

  it("names the client's type-0x03 connect request as the trace does, and other control types by byte", () => {
    const connect: Message = {
      type: 3,
      reliable: true,
      ordered: true,
      fragment: false,
      seq: 0,
      fragIndex: null,
      fragCount: null,
      payload: Uint8Array.of(1),
    };
    const bytes = datagram(0xff, [connect]);
    expect(comment(bytes, [0], undefined, 'client')).toBe('connect (type 0x03 as captured) reliable+ordered seq=0');
    expect(comment(bytes, [0], undefined, 'server')).toBe('connectAck (0x03) reliable+ordered seq=0');
  });

  it('writes three or more consecutive ACKs alike as a range, and unreliable runs once with a count', () => {
    const acks = datagram(2, [
      game(null),
      game(null),
      game(null),
      ack(10, 0, null),
      ack(11),
      ack(12),
      ack(13),
      ack(20),
      ack(21),
      game(7),
    ]);
    expect(comment(acks, [0, 0, 0, 3, 3, 3, 3, 3, 3, 0])).toBe(
      'game unreliable (x3) ; ack seq=10..13 [DEAD-ZONE ACK, pass 2] ; ack seq=20 [DEAD-ZONE ACK, pass 2] ; ack seq=21 [DEAD-ZONE ACK, pass 2] ; game reliable seq=7',
    );
    // Notes or flags that differ break a run; so does a gap in the seqs.
    expect(comment(datagram(2, [ack(1), ack(2), ack(3, 2), ack(4)]), [2, 2, 2, 2])).toBe(
      'ack seq=1 ; ack seq=2 ; ack seq=3 (low-type) ; ack seq=4',
    );
    expect(comment(datagram(2, [ack(1), ack(2), ack(3), ack(4)]), [2, 2, 3, 3])).toBe(
      'ack seq=1 ; ack seq=2 ; ack seq=3 [DEAD-ZONE ACK, pass 2] ; ack seq=4 [DEAD-ZONE ACK, pass 2]',
    );
    expect(comment(datagram(2, [ack(65534), ack(65535), ack(0)]), [2, 2, 2])).toBe('ack seq=65534..0');
  });

  it('quotes the codec for a malformed datagram', () => {
    expect(comment(hex('02 02 01 05 00 00 32 FF 0F'), [2, 0])).toBe(
      'ack seq=5 ; malformed at offset 6: length 4095 runs past the end (3 bytes remain)',
    );
    expect(comment(hex('02'), [])).toBe('malformed: datagram header needs 2 bytes, got 1');
  });

  it('names the messages a rule removed, by position', () => {
    const before = datagram(1, [ack(1, 2), game(4), ack(2)]);
    const after = datagram(1, [game(4)]);
    expect(commentText((w: CommentWriter) => w.rewritten(before, after, 'server'))).toBe(
      'REWRITTEN by link rule: removed #1 ack seq=1 (low-type), #3 ack seq=2',
    );
  });

  it('never writes past the room it was given', () => {
    const w = new CommentWriter();
    const buffer = new Uint8Array(20).fill(0xee);
    w.reset(buffer, 2, 12);
    w.text('0123456789abcdef');
    w.uint(12345);
    expect(w.pos).toBe(12);
    expect(buffer[1]).toBe(0xee);
    expect(buffer[12]).toBe(0xee);
  });
});

describe('the recorder', () => {
  it('attaches a drop or a rewrite to the packet already recorded, and writes every packet in send order', () => {
    const chunks: Buffer[] = [];
    const recorder = new CaptureRecorder((c) => chunks.push(Buffer.from(c)), { plaintext: true });
    const sent: Uint8Array[] = [];
    for (let i = 0; i < PENDING_LIMIT * 3; i++) {
      const bytes = hex(`01 01 01 ${(i & 0xff).toString(16).padStart(2, '0')} 00 00`);
      sent.push(bytes);
      recorder.datagramSent(i * 1000, 'server', bytes, [-1], [SendNote.Ack], 1);
      if (i % 7 === 3) recorder.datagramDropped(i * 1000, 'server', bytes, 'loss', 1);
    }
    recorder.finish();
    expect(recorder.unmatchedFates).toBe(0);
    const packets = packetsOf(readBlocks(Buffer.concat(chunks)));
    expect(packets).toHaveLength(PENDING_LIMIT * 3);
    packets.forEach((p, i) => {
      expect(p.timestamp).toBe(BigInt(CAPTURE_EPOCH_US + i * 1000));
      expect([...p.data.subarray(FRAME_HEADER_BYTES)]).toEqual([...sent[i]]);
      expect((p.data[18] << 8) | p.data[19]).toBe(i); // IPv4 identification counts the server's packets
      expect(p.comments).toEqual([`${i % 7 === 3 ? 'DROPPED by link: loss | ' : ''}ack seq=${i & 0xff}`]);
    });
  });

  it('counts a fate for a datagram it never saw instead of failing', () => {
    const recorder = new CaptureRecorder(() => {});
    recorder.datagramDropped(0, 'client', Uint8Array.of(1, 0), 'loss');
    expect(recorder.unmatchedFates).toBe(1);
  });
});

describe('capture files', () => {
  it('puts the column label before the extension', () => {
    expect(columnCapturePath('out.pcapng', 'stock')).toBe('out.stock.pcapng');
    expect(columnCapturePath('/tmp/a.b/out.pcapng', 'fixed')).toBe('/tmp/a.b/out.fixed.pcapng');
    expect(columnCapturePath('/tmp/a.b/out', 'fixed')).toBe('/tmp/a.b/out.fixed');
    expect(columnCapturePath('x.pcap', 'cause:partial-ack')).toBe('x.cause-partial-ack.pcap');
  });

  it('refuses a missing folder, a folder as the file and an unwritable place, creating nothing', () => {
    const dir = temp('target');
    expect(captureTargetProblem(join(dir, 'x.pcapng'), '/')).toBeUndefined();
    expect(captureTargetProblem(join(dir, 'missing', 'x.pcapng'), '/')).toMatch(/does not exist/);
    expect(captureTargetProblem(dir, '/')).toMatch(/is a folder/);
    expect(captureTargetProblem('', dir)).toMatch(/empty path/);
    expect(captureTargetProblem('/proc/x.pcapng', '/')).toMatch(/cannot write/);
    // Renaming over a device would replace it: refused.
    expect(captureTargetProblem('/dev/null', '/')).toMatch(/not a regular file/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a set appears whole on commit, and not at all on abort', () => {
    const dir = temp('set');
    const set = new CaptureSet();
    set.open(join(dir, 'a.pcapng'));
    set.open(join(dir, 'b.pcapng'));
    expect(readdirSync(dir).every((n) => n.startsWith('.bcsim-tmp-'))).toBe(true);
    expect(set.commit().map((p) => p.slice(dir.length + 1))).toEqual(['a.pcapng', 'b.pcapng']);
    expect(readdirSync(dir).sort()).toEqual(['a.pcapng', 'b.pcapng']);
    const failing = new CaptureSet();
    expect(() =>
      failing.guard(() => {
        failing.open(join(dir, 'c.pcapng'));
        failing.open(join(dir, 'd.pcapng'));
        throw new Error('the run failed');
      }),
    ).toThrow('the run failed');
    expect(readdirSync(dir).sort()).toEqual(['a.pcapng', 'b.pcapng']);
    expect(existsSync(join(dir, 'c.pcapng'))).toBe(false);
  });
});
