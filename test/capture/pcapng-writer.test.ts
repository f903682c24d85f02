// The pcapng writer's blocks, parsed back with the tiny reader in pcapng-reader.ts and read
// by tshark, and the Ethernet/IPv4/UDP framing.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { SERVER_ENDPOINT, clientEndpoint, endpointsOf } from '../../src/analysis/capture/addresses.js';
import { CAPTURE_EPOCH_US } from '../../src/analysis/capture/capture-recorder.js';
import { FRAME_HEADER_BYTES, buildFrame, formatMac, ipv4Checksum } from '../../src/core/pcap/frames.js';
import { PcapngWriter } from '../../src/core/pcap/pcapng-writer.js';
import { tempDirs } from '../support/temp-dirs.js';
import { hex, packetsOf, readBlocks } from './pcapng-reader.js';

const { temp, remove } = tempDirs('bcsim-');
afterAll(remove);

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
