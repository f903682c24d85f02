// Builds little-endian pcapng files whose clock is written raw: one Ethernet
// interface with the if_tsresol and if_tsoffset given, and each packet's
// 64-bit timestamp in that interface's units, for the tests of timestamps at
// the edges of what a capture can hold (pcapng: the IDB options 9 and 14, the
// EPB's two 32-bit timestamp words). Nothing here shares code with src/.
import { ack, bc, reliable, udpPackets } from './pcap-build.js';

/** A join's first datagrams, as Ethernet frames: Connect, the server's answer, the client's ACK. */
const FRAMES = udpPackets([
  { timeUs: 0, from: 'client', bytes: bc(0xff, [reliable(0, [0xff, 1, 2], 0x03)]) },
  { timeUs: 0, from: 'server', bytes: bc(0x01, [reliable(0, [2], 0x03)]) },
  { timeUs: 0, from: 'client', bytes: bc(0x02, [ack(0, 2)]) },
]).map((p) => p.data);

export interface ClockInterface {
  /** if_tsresol byte (absent: 10^-6 s): MSB clear 10^-n s, set 2^-(n & 0x7F) s. */
  readonly tsresol?: number;
  /** if_tsoffset in seconds, a signed 64-bit value (absent: none). */
  readonly tsoffsetS?: bigint;
}

/** `units.length` packets of a short BC join (client, server, client, …) at the raw timestamps given. */
export function pcapngClock(iface: ClockInterface, units: readonly bigint[]): Uint8Array {
  const blocks: Buffer[] = [shb(), idb(iface)];
  units.forEach((u, i) => blocks.push(epb(u, FRAMES[i % FRAMES.length])));
  return Buffer.concat(blocks);
}

/** The largest unsigned 64-bit timestamp: 0xFFFFFFFFFFFFFFFF. */
export const U64_MAX = (1n << 64n) - 1n;

/** The file offsets of the Enhanced Packet Blocks of a file `pcapngClock` built. */
export function packetOffsets(bytes: Uint8Array): number[] {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const offsets: number[] = [];
  for (let at = 0; at < b.length; at += b.readUInt32LE(at + 4)) if (b.readUInt32LE(at) === 6) offsets.push(at);
  return offsets;
}

function block(type: number, body: Buffer): Buffer {
  const b = Buffer.alloc(12 + body.length);
  b.writeUInt32LE(type, 0);
  b.writeUInt32LE(b.length, 4);
  body.copy(b, 8);
  b.writeUInt32LE(b.length, b.length - 4);
  return b;
}

function shb(): Buffer {
  const body = Buffer.alloc(16);
  body.writeUInt32LE(0x1a2b3c4d, 0);
  body.writeUInt16LE(1, 4);
  body.writeBigInt64LE(-1n, 8); // section length unknown
  return block(0x0a0d0d0a, body);
}

function idb(iface: ClockInterface): Buffer {
  const parts = [Buffer.from([1, 0, 0, 0, 0xff, 0xff, 0, 0])]; // Ethernet, snap length 65535
  if (iface.tsresol !== undefined) parts.push(Buffer.from([9, 0, 1, 0, iface.tsresol, 0, 0, 0]));
  if (iface.tsoffsetS !== undefined) {
    const option = Buffer.alloc(12);
    option.writeUInt16LE(14, 0);
    option.writeUInt16LE(8, 2);
    option.writeBigInt64LE(iface.tsoffsetS, 4);
    parts.push(option);
  }
  parts.push(Buffer.alloc(4)); // opt_endofopt
  return block(1, Buffer.concat(parts));
}

function epb(units: bigint, frame: Uint8Array): Buffer {
  const padded = (frame.length + 3) & ~3;
  const body = Buffer.alloc(20 + padded);
  body.writeUInt32LE(0, 0);
  body.writeUInt32LE(Number(units >> 32n), 4);
  body.writeUInt32LE(Number(units & 0xffffffffn), 8);
  body.writeUInt32LE(frame.length, 12);
  body.writeUInt32LE(frame.length, 16);
  body.set(frame, 20);
  return block(6, body);
}
