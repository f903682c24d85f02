// Builds small pcap and pcapng files by hand for the capture-import tests:
// every link type and byte order the reader takes, and the broken files it
// must refuse cleanly. Nothing here shares code with src/analysis/capture.
import { encodeDatagram, encrypt } from '../../src/core/codec/index.js';
import type { DataMessage, Message } from '../../src/core/codec/index.js';

export type ByteOrder = 'le' | 'be';

export interface Packet {
  /** µs since 1970 (fractions allowed for ns files). */
  readonly timeUs: number;
  readonly data: Uint8Array;
  /** Default data.length. */
  readonly originalLength?: number;
}

class Bytes {
  private parts: number[] = [];
  constructor(private readonly order: ByteOrder) {}
  u8(v: number): this {
    this.parts.push(v & 0xff);
    return this;
  }
  u16(v: number): this {
    if (this.order === 'le') this.parts.push(v & 0xff, (v >>> 8) & 0xff);
    else this.parts.push((v >>> 8) & 0xff, v & 0xff);
    return this;
  }
  u32(v: number): this {
    const b = [v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, (v >>> 24) & 0xff];
    this.parts.push(...(this.order === 'le' ? b : b.reverse()));
    return this;
  }
  bytes(data: Uint8Array | readonly number[]): this {
    for (const b of data) this.parts.push(b);
    return this;
  }
  pad4(): this {
    while (this.parts.length % 4 !== 0) this.parts.push(0);
    return this;
  }
  get length(): number {
    return this.parts.length;
  }
  done(): Uint8Array {
    return Uint8Array.from(this.parts);
  }
}

// ---- classic pcap -------------------------------------------------------

export interface PcapOptions {
  readonly order?: ByteOrder;
  readonly nanosecond?: boolean;
  readonly linkType?: number;
  readonly snapLength?: number;
  readonly version?: [number, number];
}

export function pcap(packets: readonly Packet[], options: PcapOptions = {}): Uint8Array {
  const order = options.order ?? 'le';
  const b = new Bytes(order);
  b.u32(options.nanosecond ? 0xa1b23c4d : 0xa1b2c3d4);
  const [major, minor] = options.version ?? [2, 4];
  b.u16(major)
    .u16(minor)
    .u32(0)
    .u32(0)
    .u32(options.snapLength ?? 65535)
    .u32(options.linkType ?? 1);
  for (const p of packets) {
    const seconds = Math.floor(p.timeUs / 1e6);
    const fraction = options.nanosecond
      ? Math.round((p.timeUs - seconds * 1e6) * 1000)
      : Math.round(p.timeUs - seconds * 1e6);
    b.u32(seconds)
      .u32(fraction)
      .u32(p.data.length)
      .u32(p.originalLength ?? p.data.length)
      .bytes(p.data);
  }
  return b.done();
}

// ---- pcapng -------------------------------------------------------------

interface Interface {
  readonly linkType: number;
  readonly snapLength?: number;
  /** if_tsresol byte: 6 = µs (default, written only when given), 9 = ns, 0x80|n = 2^-n. */
  readonly tsresol?: number;
}

type Block =
  | {
      readonly kind: 'epb';
      readonly interfaceId?: number;
      readonly packet: Packet;
      readonly comment?: string;
      readonly captured?: number;
    }
  | { readonly kind: 'spb'; readonly data: Uint8Array; readonly originalLength?: number }
  | { readonly kind: 'opb'; readonly interfaceId?: number; readonly packet: Packet }
  | { readonly kind: 'raw'; readonly type: number; readonly body: Uint8Array };

export interface Section {
  readonly order?: ByteOrder;
  readonly interfaces: readonly Interface[];
  readonly blocks: readonly Block[];
}

function block(order: ByteOrder, type: number, body: Uint8Array): Uint8Array {
  const total = 12 + body.length;
  return new Bytes(order).u32(type).u32(total).bytes(body).u32(total).done();
}

function option(b: Bytes, code: number, value: Uint8Array): void {
  b.u16(code).u16(value.length).bytes(value).pad4();
}

function units(timeUs: number, tsresol: number | undefined): number {
  if (tsresol === undefined || tsresol === 6) return Math.round(timeUs);
  if ((tsresol & 0x80) === 0) return Math.round(timeUs * 10 ** (tsresol - 6));
  return Math.round((timeUs / 1e6) * 2 ** (tsresol & 0x7f));
}

export function pcapng(sections: readonly Section[]): Uint8Array {
  const out: Uint8Array[] = [];
  for (const section of sections) {
    const order = section.order ?? 'le';
    // SHB: byte-order magic, version 1.0, section length -1.
    out.push(
      block(order, 0x0a0d0d0a, new Bytes(order).u32(0x1a2b3c4d).u16(1).u16(0).u32(0xffffffff).u32(0xffffffff).done()),
    );
    for (const iface of section.interfaces) {
      const b = new Bytes(order)
        .u16(iface.linkType)
        .u16(0)
        .u32(iface.snapLength ?? 65535);
      if (iface.tsresol !== undefined) {
        option(b, 9, Uint8Array.of(iface.tsresol));
        b.u16(0).u16(0);
      }
      out.push(block(order, 1, b.done()));
    }
    for (const blk of section.blocks) {
      if (blk.kind === 'raw') {
        out.push(block(order, blk.type, blk.body));
      } else if (blk.kind === 'spb') {
        out.push(
          block(
            order,
            3,
            new Bytes(order)
              .u32(blk.originalLength ?? blk.data.length)
              .bytes(blk.data)
              .pad4()
              .done(),
          ),
        );
      } else {
        const id = blk.interfaceId ?? 0;
        const ts = units(blk.packet.timeUs, section.interfaces[id]?.tsresol);
        const high = Math.floor(ts / 2 ** 32);
        const low = ts - high * 2 ** 32;
        const b = new Bytes(order);
        if (blk.kind === 'epb') b.u32(id);
        else b.u16(id).u16(0);
        b.u32(high)
          .u32(low)
          .u32(blk.kind === 'epb' ? (blk.captured ?? blk.packet.data.length) : blk.packet.data.length);
        b.u32(blk.packet.originalLength ?? blk.packet.data.length)
          .bytes(blk.packet.data)
          .pad4();
        if (blk.kind === 'epb' && blk.comment !== undefined) {
          option(b, 1, new TextEncoder().encode(blk.comment));
          b.u16(0).u16(0);
        }
        out.push(block(order, blk.kind === 'epb' ? 6 : 2, b.done()));
      }
    }
  }
  return concat(out);
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

// ---- frames -------------------------------------------------------------

export interface UdpSpec {
  readonly src: readonly [number, number, number, number];
  readonly dst: readonly [number, number, number, number];
  readonly sport: number;
  readonly dport: number;
  readonly payload: Uint8Array;
  /** IPv4 protocol (default 17). */
  readonly protocol?: number;
  /** Flags and fragment offset word (default 0; 0x2000 = more fragments). */
  readonly fragment?: number;
}

const be16 = (v: number) => [(v >>> 8) & 0xff, v & 0xff];

export function ipv4(spec: UdpSpec): Uint8Array {
  const udpLength = 8 + spec.payload.length;
  const total = 20 + udpLength;
  const header = [
    0x45,
    0,
    ...be16(total),
    0,
    1,
    ...be16(spec.fragment ?? 0),
    64,
    spec.protocol ?? 17,
    0,
    0,
    ...spec.src,
    ...spec.dst,
  ];
  const udp = [...be16(spec.sport), ...be16(spec.dport), ...be16(udpLength), 0, 0];
  return Uint8Array.from([...header, ...udp, ...spec.payload]);
}

/** Ethernet II with optional VLAN tags (each [TPID, VID]) around an IPv4 packet (or any ethertype). */
export function ethernet(
  payload: Uint8Array,
  options: { vlans?: ReadonlyArray<readonly [number, number]>; ethertype?: number; padTo?: number } = {},
): Uint8Array {
  const head = [2, 0, 10, 10, 10, 1, 2, 0, 10, 10, 10, 239];
  for (const [tpid, vid] of options.vlans ?? []) head.push(...be16(tpid), ...be16(vid));
  head.push(...be16(options.ethertype ?? 0x0800));
  const frame = Uint8Array.from([...head, ...payload]);
  if (options.padTo === undefined || frame.length >= options.padTo) return frame;
  const padded = new Uint8Array(options.padTo);
  padded.set(frame);
  return padded;
}

/** Linux cooked v1: packet type, ARPHRD, address length, 8 address bytes, protocol. */
export function sll(payload: Uint8Array, protocol = 0x0800): Uint8Array {
  return Uint8Array.from([0, 0, 0, 1, 0, 6, 2, 0, 10, 10, 10, 1, 0, 0, ...be16(protocol), ...payload]);
}

/** Linux cooked v2: protocol, reserved, interface index, ARPHRD, packet type, address length, 8 address bytes. */
export function sll2(payload: Uint8Array, protocol = 0x0800): Uint8Array {
  return Uint8Array.from([...be16(protocol), 0, 0, 0, 0, 0, 2, 0, 1, 0, 6, 2, 0, 10, 10, 10, 1, 0, 0, ...payload]);
}

/** BSD loopback: the address family in host byte order (AF_INET = 2). */
function nullLoopback(payload: Uint8Array, order: ByteOrder = 'le'): Uint8Array {
  return Uint8Array.from([...(order === 'le' ? [2, 0, 0, 0] : [0, 0, 0, 2]), ...payload]);
}

/** The frame for `linkType` around an IPv4 packet. */
export function frameFor(linkType: number, ip: Uint8Array): Uint8Array {
  switch (linkType) {
    case 1:
      return ethernet(ip);
    case 101:
    case 228:
      return ip;
    case 113:
      return sll(ip);
    case 276:
      return sll2(ip);
    case 0:
      return nullLoopback(ip);
    case 108:
      return Uint8Array.from([0, 0, 0, 2, ...ip]);
    default:
      throw new Error(`no frame builder for link type ${linkType}`);
  }
}

// ---- BC traffic ---------------------------------------------------------

export const SERVER_IP = [10, 10, 10, 1] as const;
export const CLIENT_IP = [10, 10, 10, 239] as const;

/** A plaintext BC datagram from messages (throws on a codec refusal: tests build valid ones). */
export function bc(peerId: number, messages: readonly Message[]): Uint8Array {
  const r = encodeDatagram({ peerId, messages });
  if (!r.ok) throw new Error(r.error.reason);
  return r.bytes;
}

export const ack = (seq: number, flags = 0, fragIndex: number | null = null): Message => ({
  type: 0x01,
  seq,
  flags: fragIndex === null ? flags : flags | 1,
  fragIndex,
});

export const reliable = (
  seq: number,
  payload: number[] = [0x20, 1, 2],
  type: 0x32 | 0x00 | 0x02 | 0x03 | 0x05 | 0x04 = 0x32,
): DataMessage => ({
  type,
  reliable: true,
  ordered: type !== 0x32,
  fragment: false,
  seq,
  fragIndex: null,
  fragCount: null,
  payload: Uint8Array.from(payload),
});

export const unreliable = (payload: number[] = [0x1c, 1, 2, 3]): DataMessage => ({
  type: 0x32,
  reliable: false,
  ordered: false,
  fragment: false,
  seq: null,
  fragIndex: null,
  fragCount: null,
  payload: Uint8Array.from(payload),
});

export const fragment = (seq: number, index: number, count: number, payload: number[] = [1, 2, 3, 4]): DataMessage => ({
  type: 0x32,
  reliable: true,
  ordered: false,
  fragment: true,
  seq,
  fragIndex: index,
  fragCount: index === 0 ? count : null,
  payload: Uint8Array.from(payload),
});

export interface WirePacket {
  readonly timeUs: number;
  readonly from: 'server' | 'client';
  readonly bytes: Uint8Array;
}

/** A datagram of the client (peer id 0x02) at `timeUs`. */
export const fromClient = (timeUs: number, ...messages: Message[]): WirePacket => ({
  timeUs,
  from: 'client',
  bytes: bc(0x02, messages),
});
/** A datagram of the server (peer id 0x01) at `timeUs`. */
export const fromServer = (timeUs: number, ...messages: Message[]): WirePacket => ({
  timeUs,
  from: 'server',
  bytes: bc(0x01, messages),
});
/** The join's first datagram, the client's Connect: a capture that holds it holds the connection from its start. */
export const CONNECT_PACKET: WirePacket = {
  timeUs: 10_000,
  from: 'client',
  bytes: bc(0xff, [reliable(0, [0xff, 1], 0x03)]),
};

export const EPOCH_US = Date.UTC(2002, 1, 28) * 1000;

/**
 * UDP packets between the server (10.10.10.1:22101) and one client
 * (10.10.10.239:22102), encrypted unless `plaintext`, at EPOCH_US + timeUs.
 */
export function udpPackets(
  traffic: readonly WirePacket[],
  options: {
    plaintext?: boolean;
    linkType?: number;
    clientPort?: number;
    clientIp?: readonly [number, number, number, number];
  } = {},
): Packet[] {
  const linkType = options.linkType ?? 1;
  const clientIp = options.clientIp ?? CLIENT_IP;
  const clientPort = options.clientPort ?? 22102;
  return traffic.map((w) => {
    const payload = options.plaintext ? w.bytes : encrypt(w.bytes);
    const server = w.from === 'server';
    const ip = ipv4({
      src: server ? SERVER_IP : clientIp,
      dst: server ? clientIp : SERVER_IP,
      sport: server ? 22101 : clientPort,
      dport: server ? clientPort : 22101,
      payload,
    });
    return { timeUs: EPOCH_US + w.timeUs, data: frameFor(linkType, ip) };
  });
}
