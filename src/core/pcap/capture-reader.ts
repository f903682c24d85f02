// A streaming reader of packet captures: classic pcap (both
// byte orders, microsecond and nanosecond magic, and the "modified" 24-byte
// record variant) and pcapng (each section's byte order, several sections,
// interfaces with their link type and if_tsresol/if_tsoffset, Enhanced, Simple
// and obsolete Packet Blocks; every other block is skipped).
//
// The file is read by position through one bounded buffer (file-window.ts), so
// a capture of any size streams through bounded memory. Hostile input never
// throws out of the reader: `openCapture` and `next()` return typed results.
// A problem that makes the rest of the file unreadable (bad magic, a truncated
// record, a block length that lies) is an `error` naming the byte offset;
// so is a packet stamped outside the range bcsim can show (timestamps.ts);
// a problem confined to one packet (a packet block on an interface of an
// unsupported link type, a captured length that overruns its block) is a
// `skip` the caller counts, and reading goes on.
import { secondsToUsUnrounded } from '../engine/index.js';
import type {
  CaptureError,
  CaptureErrorCode,
  CaptureFormat,
  ReadStep,
  ReaderOptions,
  ReaderSkipReason,
} from './capture-packet.js';
import {
  BYTE_ORDER_MAGIC,
  CLASSIC_MAGICS,
  PCAPNG_EPB,
  PCAPNG_IDB,
  PCAPNG_OPB,
  PCAPNG_SHB,
  PCAPNG_SPB,
  SUPPORTED_LINK_TYPES,
  hexBytes,
  linkTypeName,
  supportedList,
} from './formats.js';
import { FileWindow } from './file-window.js';
import { describeInterface, firstComment } from './pcapng-options.js';
import type { PcapngInterface } from './pcapng-options.js';
import { pcapngTimeUs, timestampRefusal } from './timestamps.js';

/** The default read buffer. */
export const BUFFER_BYTES = 1 << 20;
/**
 * The largest record or packet block the reader buffers. libpcap's own ceiling on
 * a packet is 256 KiB; anything past 16 MiB is a length that lies.
 */
export const MAX_RECORD_BYTES = 16 << 20;

export class CaptureReader extends FileWindow {
  /** 'pcap' or 'pcapng', once the header is read. */
  format: CaptureFormat = 'pcap';
  /** Classic pcap: nanosecond timestamps. */
  nanosecond = false;
  /** pcapng sections seen so far. */
  sections = 0;
  /** The link type of a classic pcap file. */
  linkType = -1;

  /** File offset of the next record or block. */
  private pos = 0;
  private packetNumber = 0;
  private readonly comments: boolean;

  // classic pcap
  private snapLength = 0;
  private recordHeaderBytes = 16;
  private pcapUsPerFrac = 1;

  // pcapng
  private interfaces: PcapngInterface[] = [];

  constructor(fd: number, size: number, options: ReaderOptions = {}) {
    super(fd, size, options.bufferBytes ?? BUFFER_BYTES);
    this.comments = options.comments === true;
  }

  /** Reads the file header; null when it is a capture this reader can go on with. */
  start(): CaptureError | null {
    if (this.size === 0) return { code: 'truncated', offset: 0, reason: 'the file is empty' };
    const have = this.ensure(0, Math.min(4, this.size));
    if (have === null) return this.failed;
    if (this.size < 4)
      return {
        code: 'truncated',
        offset: 0,
        reason: `the file is only ${this.size} bytes, too short for a capture header`,
      };
    const b = this.buf;
    const magicLE = b.readUInt32LE(0);
    if (magicLE === PCAPNG_SHB) {
      this.format = 'pcapng';
      return this.readSectionHeader(0);
    }
    const classic = CLASSIC_MAGICS.get(magicLE);
    if (classic === undefined) {
      return {
        code: 'bad-magic',
        offset: 0,
        reason: `not a pcap or pcapng file (starts with ${hexBytes(b.subarray(0, 4))})`,
      };
    }
    this.format = 'pcap';
    this.littleEndian = classic.littleEndian;
    this.nanosecond = classic.nanosecond;
    this.recordHeaderBytes = classic.modified ? 24 : 16;
    this.pcapUsPerFrac = classic.nanosecond ? 1e-3 : 1;
    if (this.ensure(0, 24) === null) {
      return (
        this.failed ?? {
          code: 'truncated',
          offset: this.size,
          reason: `the pcap header needs 24 bytes, the file has ${this.size}`,
        }
      );
    }
    const major = this.u16(4);
    if (major !== 2)
      return { code: 'bad-header', offset: 4, reason: `pcap version ${major}.${this.u16(6)} (only 2.x exists)` };
    this.snapLength = this.u32(16);
    const network = this.u32(20);
    this.linkType = network & 0xffff; // the upper bits carry FCS information
    if (!SUPPORTED_LINK_TYPES.has(this.linkType)) {
      return {
        code: 'unsupported-link-type',
        offset: 20,
        reason: `${linkTypeName(this.linkType)} is not supported (supported: ${supportedList()})`,
      };
    }
    this.pos = 24;
    return null;
  }

  /** The next packet, skip, end or error. After an error or the end, it keeps answering the same. */
  next(): ReadStep {
    if (this.failed !== null) return { kind: 'error', error: this.failed };
    if (this.closed) return { kind: 'end' };
    return this.format === 'pcap' ? this.nextClassic() : this.nextBlock();
  }

  /** File offset of the next record or block (the bytes consumed so far). */
  get position(): number {
    return this.pos;
  }

  // ---- classic pcap ----------------------------------------------------

  private nextClassic(): ReadStep {
    const at = this.pos;
    if (at >= this.size) return this.finish();
    const hb = this.recordHeaderBytes;
    if (at + hb > this.size)
      return this.fail(
        'truncated',
        at,
        `record header needs ${hb} bytes, only ${this.size - at} remain (the file is cut short)`,
      );
    if (this.ensure(at, hb) === null) return this.failStep();
    const o = at - this.bufStart;
    const seconds = this.u32(o);
    const fraction = this.u32(o + 4);
    const captured = this.u32(o + 8);
    const original = this.u32(o + 12);
    const limit = Math.max(this.snapLength, 262144);
    if (captured > limit || captured > MAX_RECORD_BYTES) {
      return this.fail(
        'bad-length',
        at + 8,
        `record claims ${captured} captured bytes, more than the ${Math.min(limit, MAX_RECORD_BYTES)} a packet can have (corrupt record)`,
      );
    }
    const end = at + hb + captured;
    if (end > this.size) {
      return this.fail(
        'truncated',
        at,
        `record of ${captured} bytes runs past the end of the file (${this.size - at - hb} remain; the file is cut short)`,
      );
    }
    if (this.ensure(at, hb + captured) === null) return this.failStep();
    this.pos = end;
    const start = at + hb - this.bufStart;
    // Always within the range timestamps.ts keeps to: 0 to 4,294,971,590 s after 1970.
    return {
      kind: 'packet',
      packet: {
        number: ++this.packetNumber,
        offset: at,
        timeUs: secondsToUsUnrounded(seconds) + fraction * this.pcapUsPerFrac,
        linkType: this.linkType,
        interfaceId: 0,
        data: this.view(start, captured),
        originalLength: Math.max(original, captured),
        comment: null,
      },
    };
  }

  // ---- pcapng ---------------------------------------------------------

  private readSectionHeader(at: number): CaptureError | null {
    if (at + 12 > this.size)
      return {
        code: 'truncated',
        offset: at,
        reason: `section header block needs at least 28 bytes, only ${this.size - at} remain`,
      };
    if (this.ensure(at, 12) === null) return this.failed;
    const o = at - this.bufStart;
    const bom = this.buf.readUInt32LE(o + 8);
    if (bom === BYTE_ORDER_MAGIC) this.littleEndian = true;
    else if (bom === 0x4d3c2b1a) this.littleEndian = false;
    else
      return {
        code: 'bad-header',
        offset: at + 8,
        reason: `section header's byte-order magic is ${hexBytes(this.buf.subarray(o + 8, o + 12))}, not 1A 2B 3C 4D in either order`,
      };
    const length = this.u32(o + 4);
    const lengthError = this.checkBlockLength(at, length, 28);
    if (lengthError !== null) return lengthError;
    if (this.ensure(at, 16) === null) return this.failed;
    const major = this.u16(at - this.bufStart + 12);
    if (major !== 1)
      return {
        code: 'bad-header',
        offset: at + 12,
        reason: `pcapng version ${major}.${this.u16(at - this.bufStart + 14)} (only 1.x is defined)`,
      };
    const trailerError = this.checkTrailer(at, length);
    if (trailerError !== null) return trailerError;
    this.sections++;
    this.interfaces = [];
    this.pos = at + length;
    return null;
  }

  private nextBlock(): ReadStep {
    for (;;) {
      const at = this.pos;
      if (at >= this.size) return this.finish();
      if (at + 12 > this.size)
        return this.fail(
          'truncated',
          at,
          `block header needs 12 bytes, only ${this.size - at} remain (the file is cut short)`,
        );
      if (this.ensure(at, 8) === null) return this.failStep();
      const o = at - this.bufStart;
      // A section header's type reads the same in both byte orders.
      if (this.buf.readUInt32LE(o) === PCAPNG_SHB) {
        const error = this.readSectionHeader(at);
        if (error !== null) return this.fail(error.code, error.offset, error.reason);
        continue;
      }
      const type = this.u32(o);
      const length = this.u32(o + 4);
      const lengthError = this.checkBlockLength(at, length, 12);
      if (lengthError !== null) return this.fail(lengthError.code, lengthError.offset, lengthError.reason);
      if (type === PCAPNG_EPB || type === PCAPNG_SPB || type === PCAPNG_OPB || type === PCAPNG_IDB) {
        if (length > MAX_RECORD_BYTES) {
          // The length is consistent with the file; a packet this big is not one to buffer.
          const trailer = this.checkTrailer(at, length);
          if (trailer !== null) return this.fail(trailer.code, trailer.offset, trailer.reason);
          this.pos = at + length;
          if (type === PCAPNG_IDB)
            return this.fail('bad-length', at + 4, `interface description block of ${length} bytes (corrupt)`);
          return this.skip(
            at,
            'bad-packet-block',
            `packet block of ${length} bytes is larger than the ${MAX_RECORD_BYTES}-byte limit`,
          );
        }
        if (this.ensure(at, length) === null) return this.failStep();
        const trailer = this.checkTrailer(at, length);
        if (trailer !== null) return this.fail(trailer.code, trailer.offset, trailer.reason);
        this.pos = at + length;
        if (type === PCAPNG_IDB) {
          const error = this.readInterface(at, length);
          if (error !== null) return this.fail(error.code, error.offset, error.reason);
          continue;
        }
        return this.packetBlock(type, at, length);
      }
      // Any other block (name resolution, statistics, secrets, custom, …): skipped whole.
      const trailer = this.checkTrailer(at, length);
      if (trailer !== null) return this.fail(trailer.code, trailer.offset, trailer.reason);
      this.pos = at + length;
    }
  }

  private checkBlockLength(at: number, length: number, minimum: number): CaptureError | null {
    if (length < minimum || length % 4 !== 0) {
      return {
        code: 'bad-length',
        offset: at + 4,
        reason: `block length ${length} is impossible (at least ${minimum} and a multiple of 4)`,
      };
    }
    if (at + length > this.size) {
      return {
        code: 'truncated',
        offset: at + 4,
        reason: `block claims ${length} bytes but only ${this.size - at} remain (the file is cut short, or the length lies)`,
      };
    }
    return null;
  }

  /** The trailing copy of a block's length must equal the leading one. */
  private checkTrailer(at: number, length: number): CaptureError | null {
    if (this.ensure(at + length - 4, 4) === null) return this.failed;
    const trailing = this.u32(at + length - 4 - this.bufStart);
    if (trailing !== length) {
      return {
        code: 'bad-length',
        offset: at + 4,
        reason: `block length ${length} does not match its trailing copy ${trailing} (the length lies)`,
      };
    }
    return null;
  }

  private readInterface(at: number, length: number): CaptureError | null {
    if (length < 20)
      return {
        code: 'bad-length',
        offset: at + 4,
        reason: `interface description block of ${length} bytes is too short (20 at least)`,
      };
    this.interfaces.push(describeInterface(this.buf, this.littleEndian, at - this.bufStart, length));
    return null;
  }

  private packetBlock(type: number, at: number, length: number): ReadStep {
    const o = at - this.bufStart;
    const number = ++this.packetNumber;
    let interfaceId: number;
    let captured: number;
    let original: number;
    let dataStart: number;
    // A Simple Packet Block has no timestamp: 0 units, so its interface's if_tsoffset.
    let high = 0;
    let low = 0;
    let timestampAt = at;
    let optionsFrom = -1;
    if (type === PCAPNG_SPB) {
      interfaceId = 0;
      if (length < 16)
        return this.skip(at, 'bad-packet-block', `simple packet block of ${length} bytes is too short`, number);
      original = this.u32(o + 8);
      dataStart = o + 12;
      const room = length - 16;
      const iface = this.interfaces[0];
      captured = Math.min(original, room, iface !== undefined && iface.snapLength > 0 ? iface.snapLength : room);
    } else {
      // EPB and the obsolete Packet Block both have 20 bytes of fields before the data.
      if (length < 32)
        return this.skip(at, 'bad-packet-block', `packet block of ${length} bytes is too short (32 at least)`, number);
      if (type === PCAPNG_EPB) interfaceId = this.u32(o + 8);
      else interfaceId = this.u16(o + 8);
      high = this.u32(o + 12);
      low = this.u32(o + 16);
      timestampAt = at + 12;
      captured = this.u32(o + 20);
      original = this.u32(o + 24);
      dataStart = o + 28;
      const room = length - 32;
      if (captured > room) {
        return this.skip(
          at,
          'bad-packet-block',
          `captured length ${captured} overruns the block (${room} bytes of room)`,
          number,
        );
      }
      optionsFrom = dataStart + ((captured + 3) & ~3);
    }
    const iface = this.interfaces[interfaceId];
    if (iface === undefined) {
      return this.skip(
        at,
        'unknown-interface',
        `interface ${interfaceId} was not described in this section (${this.interfaces.length} interfaces)`,
        number,
      );
    }
    if (!SUPPORTED_LINK_TYPES.has(iface.linkType)) {
      return this.skip(
        at,
        'unsupported-link-type',
        `interface ${interfaceId}: ${linkTypeName(iface.linkType)} is not supported`,
        number,
      );
    }
    const timeUs = pcapngTimeUs(iface, high, low);
    if (timeUs === null) return this.fail('bad-timestamp', timestampAt, timestampRefusal(iface, high, low, number));
    const comment =
      this.comments && optionsFrom >= 0 ? firstComment(this.buf, this.littleEndian, optionsFrom, o + length - 4) : null;
    return {
      kind: 'packet',
      packet: {
        number,
        offset: at,
        timeUs,
        linkType: iface.linkType,
        interfaceId,
        data: this.view(dataStart, captured),
        originalLength: Math.max(original, captured),
        comment,
      },
    };
  }

  // ---- plumbing ---------------------------------------------------------

  private skip(at: number, reason: ReaderSkipReason, detail: string, number = ++this.packetNumber): ReadStep {
    return { kind: 'skip', number, offset: at, reason, detail };
  }

  private finish(): ReadStep {
    this.close();
    return { kind: 'end' };
  }

  private fail(code: CaptureErrorCode, offset: number, reason: string): ReadStep {
    this.failed = { code, offset, reason };
    this.close();
    return { kind: 'error', error: this.failed };
  }

  private failStep(): ReadStep {
    const error = this.failed ?? { code: 'io' as const, offset: this.pos, reason: 'read failed' };
    this.failed = error;
    this.close();
    return { kind: 'error', error };
  }
}
