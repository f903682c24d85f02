// The options of pcapng blocks the capture reader (capture-reader.ts) has in its
// buffer: the walk over them (code, length, value padded to 4 bytes), an
// interface description with its clock (if_tsresol, if_tsoffset), and a
// packet's opt_comment. The reader has checked the block's bounds; a malformed
// option only ends the walk, so hostile options cost a packet nothing more.
import { secondsToUsUnrounded, usPerEvent } from '../engine/index.js';

export const TWO_POW_32 = 0x1_0000_0000;

const OPT_ENDOFOPT = 0;
const OPT_COMMENT = 1;
const IF_TSRESOL = 9;
const IF_TSOFFSET = 14;

export interface PcapngInterface {
  readonly linkType: number;
  readonly snapLength: number;
  /** Multiplier from timestamp units to microseconds. */
  readonly usPerUnit: number;
  /** if_tsoffset in microseconds (a double: exact within ±2^53 µs). */
  readonly offsetUs: number;
  /** if_tsresol as written (6, microseconds, when absent): for the exact reckoning of timestamps.ts. */
  readonly tsresol: number;
  /** if_tsoffset in seconds, exactly (signed 64 bits). */
  readonly offsetS: bigint;
}

const decoder = new TextDecoder('utf-8', { fatal: false });

/** The Interface Description Block at buffer offset `o`, of `length` bytes (20 at least, checked by the reader). */
export function describeInterface(buf: Buffer, littleEndian: boolean, o: number, length: number): PcapngInterface {
  const linkType = u16(buf, littleEndian, o + 8);
  const snapLength = u32(buf, littleEndian, o + 12);
  let tsresol = 6; // default resolution: microseconds
  let offsetS = 0n;
  forOptions(buf, littleEndian, o + 16, o + length - 4, (code, start, len) => {
    if (code === IF_TSRESOL && len >= 1) tsresol = buf[start];
    else if (code === IF_TSOFFSET && len >= 8)
      offsetS = littleEndian ? buf.readBigInt64LE(start) : buf.readBigInt64BE(start);
  });
  // MSB clear: 10^-v seconds; set: 2^-(v & 0x7F) seconds. Both finite and positive for every byte.
  const usPerUnit = (tsresol & 0x80) === 0 ? usPerEvent(10 ** tsresol) : usPerEvent(2 ** (tsresol & 0x7f));
  const offsetUs = secondsToUsUnrounded(Number(offsetS));
  return { linkType, snapLength, usPerUnit, offsetUs, tsresol, offsetS };
}

/** The first opt_comment among the options between buffer offsets [from, to), or null. */
export function firstComment(buf: Buffer, littleEndian: boolean, from: number, to: number): string | null {
  let comment: string | null = null;
  forOptions(buf, littleEndian, from, to, (code, start, len) => {
    if (code === OPT_COMMENT && comment === null) comment = decoder.decode(buf.subarray(start, start + len));
  });
  return comment;
}

/** Calls `each(code, start, length)` for each option between buffer offsets [from, to), stopping at opt_endofopt or a malformed one. */
function forOptions(
  buf: Buffer,
  littleEndian: boolean,
  from: number,
  to: number,
  each: (code: number, start: number, length: number) => void,
): void {
  let p = from;
  while (p + 4 <= to) {
    const code = u16(buf, littleEndian, p);
    const len = u16(buf, littleEndian, p + 2);
    if (code === OPT_ENDOFOPT) return;
    if (p + 4 + len > to) return;
    each(code, p + 4, len);
    p += 4 + ((len + 3) & ~3);
  }
}

function u16(buf: Buffer, littleEndian: boolean, o: number): number {
  return littleEndian ? buf.readUInt16LE(o) : buf.readUInt16BE(o);
}

function u32(buf: Buffer, littleEndian: boolean, o: number): number {
  return littleEndian ? buf.readUInt32LE(o) : buf.readUInt32BE(o);
}
