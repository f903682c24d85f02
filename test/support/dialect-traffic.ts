// A short session in the wire forms real reimplementations send (docs/sources.md 30),
// written from the forms that item lists (no captured bytes): a test client's
// Connect with a one-byte length and flags byte 0x01, ACKs with flags 0x80, the
// server's two-byte keepalive alone and behind an ACK, and a type-0x06 Disconnect.
// Shared by the decode, analyze and dissector tests.
import { parseHex } from '../../src/core/codec/index.js';

export interface DialectPacket {
  /** Seconds from the start. */
  readonly t: number;
  readonly fromServer: boolean;
  /** Plaintext datagram. */
  readonly hex: string;
  /** The deviation codes a reader names, in order. */
  readonly codes: readonly string[];
}

export const DIALECT_SESSION: readonly DialectPacket[] = [
  {
    t: 0.1,
    fromServer: false,
    hex: 'FF 01 03 08 01 00 00 00 7F 00',
    codes: ['one-byte-length', 'connect-without-seq'],
  },
  { t: 0.11, fromServer: true, hex: '01 02 03 06 C0 00 00 02 32 07 80 00 00 20 00', codes: [] },
  { t: 0.2, fromServer: false, hex: '02 01 01 00 00 80', codes: ['ack-flag-bits'] },
  { t: 1.1, fromServer: true, hex: '01 01 00 02', codes: ['two-byte-message'] },
  { t: 2.1, fromServer: true, hex: '01 02 01 00 00 02 00 02', codes: ['two-byte-message'] },
  { t: 2.2, fromServer: false, hex: '02 01 06 02', codes: ['disconnect-type-06', 'two-byte-message'] },
];

export function dialectBytes(p: DialectPacket): Uint8Array {
  const parsed = parseHex(p.hex);
  if (!parsed.ok) throw new Error(`bad hex: ${p.hex}`);
  return parsed.bytes;
}
