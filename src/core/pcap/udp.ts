// From a captured frame to its UDP datagram: the link layer
// (Ethernet with 802.1Q/802.1ad tags, raw IPv4, Linux cooked SLL and SLL2, BSD
// and OpenBSD loopback), then IPv4, then UDP. What is not a whole unfragmented
// IPv4 UDP datagram is a counted skip with its reason; nothing here throws,
// whatever the bytes.

export type FrameSkipReason =
  /** The frame ends inside the link, IPv4 or UDP header. */
  | 'short-frame'
  /** Not IPv4: ARP, IPv6, LLC, … */
  | 'not-ipv4'
  /** An IPv4 header with a bad version, header length or total length. */
  | 'bad-ip-header'
  /** An IPv4 fragment (BC datagrams are at most 512 bytes and never fragmented). */
  | 'ip-fragment'
  /** IPv4 but not UDP (TCP, ICMP, …). */
  | 'not-udp'
  /** A UDP header whose length field is impossible. */
  | 'bad-udp-header'
  /** The capture kept fewer bytes than the UDP datagram has (snap length). */
  | 'cut-by-snaplen'
  /** A link type this decoder does not know. */
  | 'unsupported-link-type';

export const FRAME_SKIP_TEXT: Readonly<Record<FrameSkipReason, string>> = {
  'short-frame': 'shorter than its headers',
  'not-ipv4': 'not IPv4',
  'bad-ip-header': 'bad IPv4 header',
  'ip-fragment': 'IPv4 fragment',
  'not-udp': 'not UDP',
  'bad-udp-header': 'bad UDP header',
  'cut-by-snaplen': 'UDP payload cut by the snap length',
  'unsupported-link-type': 'unsupported link type',
};

/** A UDP datagram found in a frame. Addresses are IPv4 as unsigned 32-bit numbers. */
export interface UdpDatagram {
  readonly srcIp: number;
  readonly srcPort: number;
  readonly dstIp: number;
  readonly dstPort: number;
  /** The UDP payload: a view into the frame. */
  readonly payload: Uint8Array;
}

export type UdpResult =
  | { readonly ok: true; readonly udp: UdpDatagram }
  | { readonly ok: false; readonly reason: FrameSkipReason };

const ETHERTYPE_IPV4 = 0x0800;
const VLAN_TAGS = new Set([0x8100, 0x88a8, 0x9100]);
const MAX_VLAN_TAGS = 8;
const IP_PROTOCOL_UDP = 17;

/** A UDP datagram's fields, filled in place by `udpInto` (no allocation per packet on the hot path). */
export interface MutableUdp {
  srcIp: number;
  srcPort: number;
  dstIp: number;
  dstPort: number;
  /** Where the payload lies in the frame. */
  payloadStart: number;
  payloadEnd: number;
}

export function newMutableUdp(): MutableUdp {
  return { srcIp: 0, srcPort: 0, dstIp: 0, dstPort: 0, payloadStart: 0, payloadEnd: 0 };
}

/** The UDP datagram in a frame of `linkType`, or why there is none. */
export function udpFromFrame(linkType: number, frame: Uint8Array): UdpResult {
  const out = newMutableUdp();
  const reason = udpInto(linkType, frame, out);
  if (reason !== null) return { ok: false, reason };
  return {
    ok: true,
    udp: {
      srcIp: out.srcIp,
      srcPort: out.srcPort,
      dstIp: out.dstIp,
      dstPort: out.dstPort,
      payload: frame.subarray(out.payloadStart, out.payloadEnd),
    },
  };
}

/** Fills `out` with the UDP datagram of the frame and returns null, or returns why there is none. */
export function udpInto(linkType: number, frame: Uint8Array, out: MutableUdp): FrameSkipReason | null {
  switch (linkType) {
    case 1: // Ethernet
      return afterEthertype(frame, 12, out);
    case 113: // Linux cooked: 14 bytes, then the protocol
      return afterEthertype(frame, 14, out);
    case 276: {
      // Linux cooked v2: protocol first, 20-byte header
      if (frame.length < 20) return 'short-frame';
      const protocol = be16(frame, 0);
      if (VLAN_TAGS.has(protocol)) return vlanThen(frame, 20, out);
      return protocol === ETHERTYPE_IPV4 ? ipv4(frame, 20, out) : 'not-ipv4';
    }
    case 12:
    case 14:
    case 101: // raw IP: IPv4 or IPv6 by the version nibble
    case 228: // raw IPv4
      if (frame.length < 1) return 'short-frame';
      return frame[0] >> 4 === 4 ? ipv4(frame, 0, out) : linkType === 228 ? 'bad-ip-header' : 'not-ipv4';
    case 0: {
      // BSD loopback: the address family in the capturing host's byte order
      if (frame.length < 4) return 'short-frame';
      const le = frame[0] | (frame[1] << 8) | (frame[2] << 16) | (frame[3] << 24);
      return le === 2 || le === 0x02000000 ? ipv4(frame, 4, out) : 'not-ipv4';
    }
    case 108: // OpenBSD loopback: network byte order
      if (frame.length < 4) return 'short-frame';
      return be16(frame, 0) === 0 && be16(frame, 2) === 2 ? ipv4(frame, 4, out) : 'not-ipv4';
    default:
      return 'unsupported-link-type';
  }
}

/** `at` is the offset of an ethertype (or of the first VLAN tag's TPID). */
function afterEthertype(frame: Uint8Array, at: number, out: MutableUdp): FrameSkipReason | null {
  if (frame.length < at + 2) return 'short-frame';
  const type = be16(frame, at);
  if (VLAN_TAGS.has(type)) return vlanThen(frame, at + 2, out);
  return type === ETHERTYPE_IPV4 ? ipv4(frame, at + 2, out) : 'not-ipv4';
}

/** After a VLAN TPID: `at` is its tag control info; skip it and any further tags. */
function vlanThen(frame: Uint8Array, at: number, out: MutableUdp): FrameSkipReason | null {
  let p = at;
  for (let tags = 0; tags < MAX_VLAN_TAGS; tags++) {
    if (frame.length < p + 4) return 'short-frame';
    const next = be16(frame, p + 2);
    p += 4;
    if (!VLAN_TAGS.has(next)) return next === ETHERTYPE_IPV4 ? ipv4(frame, p, out) : 'not-ipv4';
  }
  return 'not-ipv4';
}

function ipv4(frame: Uint8Array, at: number, out: MutableUdp): FrameSkipReason | null {
  if (frame.length < at + 20) return 'short-frame';
  const vihl = frame[at];
  if (vihl >> 4 !== 4) return 'bad-ip-header';
  const headerBytes = (vihl & 0x0f) * 4;
  if (headerBytes < 20) return 'bad-ip-header';
  const total = be16(frame, at + 2);
  if (total < headerBytes) return 'bad-ip-header';
  const flagsFragment = be16(frame, at + 6);
  // More-fragments set, or a non-zero fragment offset: part of a fragmented datagram.
  if ((flagsFragment & 0x2000) !== 0 || (flagsFragment & 0x1fff) !== 0) return 'ip-fragment';
  if (frame[at + 9] !== IP_PROTOCOL_UDP) return 'not-udp';
  const udp = at + headerBytes;
  if (frame.length < udp + 8) return frame.length >= at + total ? 'bad-ip-header' : 'short-frame';
  const udpLength = be16(frame, udp + 4);
  if (udpLength < 8 || udpLength > total - headerBytes) return 'bad-udp-header';
  const end = udp + udpLength;
  // Ethernet pads short frames and may carry an FCS: the UDP length says where the payload ends.
  if (end > frame.length) return 'cut-by-snaplen';
  out.srcIp = be32(frame, at + 12);
  out.dstIp = be32(frame, at + 16);
  out.srcPort = be16(frame, udp);
  out.dstPort = be16(frame, udp + 2);
  out.payloadStart = udp + 8;
  out.payloadEnd = end;
  return null;
}

function be16(b: Uint8Array, o: number): number {
  return (b[o] << 8) | b[o + 1];
}

function be32(b: Uint8Array, o: number): number {
  return ((b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]) >>> 0;
}

/** "10.10.10.1". */
function formatIpv4(ip: number): string {
  return `${ip >>> 24}.${(ip >>> 16) & 0xff}.${(ip >>> 8) & 0xff}.${ip & 0xff}`;
}

/** "10.10.10.1:22101". */
export function formatEndpoint(ip: number, port: number): string {
  return `${formatIpv4(ip)}:${port}`;
}

/** One number per address and port, for maps: ip * 65536 + port (below 2^48). */
export function endpointKey(ip: number, port: number): number {
  return ip * 65536 + port;
}
