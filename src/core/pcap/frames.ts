// Ethernet II + IPv4 + UDP framing for the capture. The IPv4
// header checksum is correct (Wireshark checks it when asked); the UDP checksum
// is 0, "not computed", which IPv4 allows (RFC 768). No options, no
// fragmentation (a BC datagram is at most 512 bytes), TTL 64.

/** One end of a frame: its MAC, IPv4 address and UDP port. */
export interface Endpoint {
  readonly mac: readonly number[];
  readonly ip: readonly number[];
  readonly port: number;
}

/** 02:00 and the four address bytes: unicast, locally administered, unique per host. */
export function macFor(ip: readonly number[]): number[] {
  return [0x02, 0x00, ip[0], ip[1], ip[2], ip[3]];
}

/** "10.10.10.239", for messages and tests. */
export function formatIp(ip: readonly number[]): string {
  return ip.join('.');
}

/** "02:00:0a:0a:0a:ef". */
export function formatMac(mac: readonly number[]): string {
  return mac.map((b) => b.toString(16).padStart(2, '0')).join(':');
}

const ETHERNET_HEADER_BYTES = 14;
const IPV4_HEADER_BYTES = 20;
const UDP_HEADER_BYTES = 8;
/** Bytes in front of the UDP payload. */
export const FRAME_HEADER_BYTES = ETHERNET_HEADER_BYTES + IPV4_HEADER_BYTES + UDP_HEADER_BYTES;

const ETHERTYPE_IPV4 = 0x0800;
const IP_PROTOCOL_UDP = 17;
const TTL = 64;

const IP = ETHERNET_HEADER_BYTES;
const UDP = ETHERNET_HEADER_BYTES + IPV4_HEADER_BYTES;

/** The one's-complement checksum of an IPv4 header at `offset` (its checksum field counted as it is). */
export function ipv4Checksum(bytes: Uint8Array, offset: number, length = IPV4_HEADER_BYTES): number {
  let sum = 0;
  for (let i = 0; i < length; i += 2) sum += (bytes[offset + i] << 8) | bytes[offset + i + 1];
  return ~fold(sum) & 0xffff;
}

function fold(sum: number): number {
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return sum;
}

/**
 * The 42 header bytes of every frame from `source` to `destination`, with the
 * fields that change per packet (IPv4 total length, identification and
 * checksum; UDP length) patched in by `write`. The checksum is the constant
 * words' sum, computed once, plus the two that change.
 */
export class FrameTemplate {
  private readonly header = new Uint8Array(FRAME_HEADER_BYTES);
  private readonly constantSum: number;

  constructor(source: Endpoint, destination: Endpoint) {
    const h = this.header;
    h.set(destination.mac, 0);
    h.set(source.mac, 6);
    put16(h, 12, ETHERTYPE_IPV4);
    h[IP] = 0x45; // version 4, 5 words of header
    h[IP + 1] = 0; // DSCP/ECN
    // IP + 2: total length, IP + 4: identification (per packet)
    put16(h, IP + 6, 0); // flags and fragment offset: none
    h[IP + 8] = TTL;
    h[IP + 9] = IP_PROTOCOL_UDP;
    // IP + 10: header checksum (per packet)
    h.set(source.ip, IP + 12);
    h.set(destination.ip, IP + 16);
    put16(h, UDP, source.port);
    put16(h, UDP + 2, destination.port);
    // UDP + 4: length (per packet); UDP + 6: checksum 0, not computed
    let sum = 0;
    for (let i = 0; i < IPV4_HEADER_BYTES; i += 2) sum += (h[IP + i] << 8) | h[IP + i + 1];
    this.constantSum = sum;
  }

  /** Writes the headers for a `payloadLength`-byte UDP payload at `offset`; the payload goes at offset + 42. */
  write(out: Uint8Array, offset: number, identification: number, payloadLength: number): void {
    out.set(this.header, offset);
    const totalLength = IPV4_HEADER_BYTES + UDP_HEADER_BYTES + payloadLength;
    const id = identification & 0xffff;
    put16(out, offset + IP + 2, totalLength);
    put16(out, offset + IP + 4, id);
    put16(out, offset + IP + 10, ~fold(this.constantSum + totalLength + id) & 0xffff);
    put16(out, offset + UDP + 4, UDP_HEADER_BYTES + payloadLength);
  }
}

/** One whole frame in a new array (tests and one-off use; the recorder writes in place). */
export function buildFrame(
  source: Endpoint,
  destination: Endpoint,
  identification: number,
  payload: Uint8Array,
): Uint8Array {
  const frame = new Uint8Array(FRAME_HEADER_BYTES + payload.length);
  new FrameTemplate(source, destination).write(frame, 0, identification, payload.length);
  frame.set(payload, FRAME_HEADER_BYTES);
  return frame;
}

function put16(out: Uint8Array, offset: number, value: number): void {
  out[offset] = value >>> 8;
  out[offset + 1] = value & 0xff;
}
