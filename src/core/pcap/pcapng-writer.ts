// A small pcapng writer, written by hand: a Section Header
// Block, Interface Description Blocks and Enhanced Packet Blocks with an
// opt_comment, little-endian (draft-ietf-opsawg-pcapng). Blocks are built in
// one reusable buffer and handed to `sink` in large chunks, so a capture of
// any length streams through a fixed amount of memory. Every byte written is
// set explicitly (padding is zeros), so the same calls give the same file.

const BLOCK_SECTION_HEADER = 0x0a0d0d0a;
const BLOCK_INTERFACE_DESCRIPTION = 0x00000001;
const BLOCK_ENHANCED_PACKET = 0x00000006;
const BYTE_ORDER_MAGIC = 0x1a2b3c4d;

const OPT_COMMENT = 1;
const SHB_USER_APPLICATION = 4;
const IF_NAME = 2;
const IF_DESCRIPTION = 3;
const IF_TSRESOL = 9;

export const LINKTYPE_ETHERNET = 1;

/** An option's value is at most 65,535 bytes (its length is a u16). */
const MAX_OPTION_BYTES = 0xffff;

/** Receives the file's bytes in order. The chunk is a view of the writer's buffer: consume it before returning. */
export type PcapngSink = (chunk: Uint8Array) => void;

export interface SectionOptions {
  /** shb_userappl, e.g. "bcsim 0.1.0". */
  readonly application?: string;
  readonly comment?: string;
}

export interface InterfaceOptions {
  /** LINKTYPE_*; default Ethernet (1). */
  readonly linkType?: number;
  /** Default 65,535. */
  readonly snapLength?: number;
  readonly name?: string;
  readonly description?: string;
  /** Timestamp resolution as a power of ten: 6 = microseconds (the default), 9 = nanoseconds. */
  readonly tsresolDecimals?: number;
}

const DEFAULT_BUFFER_BYTES = 1 << 20;
/** Fixed part of an EPB: type, length, interface, ts high, ts low, captured, original; trailing length. */
const EPB_FIXED_BYTES = 28 + 4;
const TWO_POW_32 = 0x1_0000_0000;

export class PcapngWriter {
  private buffer: Buffer;
  private view: DataView;
  private used = 0;
  private interfaces = 0;
  private sectionStarted = false;
  /** Bytes handed to the sink so far. */
  written = 0;
  /** Enhanced Packet Blocks written. */
  packets = 0;

  constructor(
    private readonly sink: PcapngSink,
    bufferBytes: number = DEFAULT_BUFFER_BYTES,
  ) {
    this.buffer = Buffer.alloc(Math.max(bufferBytes, 4096));
    this.view = new DataView(this.buffer.buffer, this.buffer.byteOffset, this.buffer.byteLength);
  }

  /** Starts the (only) section. Must come first. */
  sectionHeader(options: SectionOptions = {}): void {
    if (this.sectionStarted) throw new Error('pcapng: one section per writer');
    this.sectionStarted = true;
    const opts = [
      ...stringOption(OPT_COMMENT, options.comment),
      ...stringOption(SHB_USER_APPLICATION, options.application),
    ];
    const body = 4 + 2 + 2 + 8; // magic, major, minor, section length
    this.block(BLOCK_SECTION_HEADER, body, opts, (b, at) => {
      b.writeUInt32LE(BYTE_ORDER_MAGIC, at);
      b.writeUInt16LE(1, at + 4);
      b.writeUInt16LE(0, at + 6);
      // Section length unknown (streamed): -1.
      b.writeInt32LE(-1, at + 8);
      b.writeInt32LE(-1, at + 12);
    });
  }

  /** Describes an interface; returns its id for `packet`. */
  interfaceDescription(options: InterfaceOptions = {}): number {
    if (!this.sectionStarted) throw new Error('pcapng: an interface needs a section header first');
    const decimals = options.tsresolDecimals ?? 6;
    if (!(Number.isInteger(decimals) && decimals >= 0 && decimals <= 127))
      throw new Error(`pcapng: bad if_tsresol ${decimals}`);
    const opts = [
      ...stringOption(IF_NAME, options.name),
      ...stringOption(IF_DESCRIPTION, options.description),
      { code: IF_TSRESOL, value: Uint8Array.of(decimals) },
    ];
    this.block(BLOCK_INTERFACE_DESCRIPTION, 8, opts, (b, at) => {
      b.writeUInt16LE(options.linkType ?? LINKTYPE_ETHERNET, at);
      b.writeUInt16LE(0, at + 2);
      b.writeUInt32LE(options.snapLength ?? 0xffff, at + 4);
    });
    return this.interfaces++;
  }

  /**
   * Starts an Enhanced Packet Block of `length` bytes at `timestamp` (in the
   * interface's units since 1970) with `comment` (none if empty), and returns the
   * offset in `bytes` where the caller must now write the packet's `length` bytes,
   * before any other call. Everything else of the block is already written.
   */
  beginPacket(timestamp: number, length: number, comment: string, interfaceId = 0): number {
    if (comment.length * 3 > MAX_OPTION_BYTES) comment = fitOption(comment);
    const data = this.openPacket(timestamp, length, comment.length * 3, interfaceId);
    const n =
      comment.length === 0 ? 0 : this.buffer.write(comment, this.commentAt, this.commentLimit - this.commentAt, 'utf8');
    this.closePacket(n);
    return data;
  }

  /**
   * The streaming form of `beginPacket`: reserves room for the packet and a
   * comment of at most `maxCommentBytes` (cut to 65,535), and returns where the
   * packet's `length` bytes go. The caller writes them and the comment's UTF-8
   * at `commentAt` (at most `commentLimit`), then calls `closePacket` with the
   * comment's length, before any other call.
   */
  openPacket(timestamp: number, length: number, maxCommentBytes: number, interfaceId = 0): number {
    if (interfaceId >= this.interfaces) throw new Error(`pcapng: no interface ${interfaceId}`);
    if (!(Number.isSafeInteger(timestamp) && timestamp >= 0)) throw new Error(`pcapng: bad timestamp ${timestamp}`);
    const comment = Math.min(maxCommentBytes, MAX_OPTION_BYTES);
    const padded = pad4(length);
    this.reserve(EPB_FIXED_BYTES + padded + (comment === 0 ? 0 : 4 + pad4(comment) + 4));
    const start = this.used;
    const view = this.view;
    view.setUint32(start, BLOCK_ENHANCED_PACKET, true);
    view.setUint32(start + 8, interfaceId, true);
    const high = Math.floor(timestamp / TWO_POW_32);
    view.setUint32(start + 12, high, true);
    view.setUint32(start + 16, timestamp - high * TWO_POW_32, true);
    view.setUint32(start + 20, length, true);
    view.setUint32(start + 24, length, true);
    const data = start + 28;
    const options = data + padded;
    for (let i = data + length; i < options; i++) this.buffer[i] = 0;
    this.openAt = start;
    this.commentAt = options + 4;
    this.commentLimit = options + 4 + comment;
    return data;
  }

  /** Where the comment of the open packet goes, and where it must end at the latest. */
  commentAt = 0;
  commentLimit = 0;
  private openAt = -1;

  /** Ends the packet `openPacket` started, whose comment is `commentBytes` long (0: no comment). */
  closePacket(commentBytes: number): void {
    const start = this.openAt;
    if (start < 0) throw new Error('pcapng: no packet open');
    if (this.commentAt + commentBytes > this.commentLimit) throw new Error('pcapng: comment longer than reserved');
    this.openAt = -1;
    const b = this.buffer;
    const view = this.view;
    let at = this.commentAt - 4;
    if (commentBytes > 0) {
      view.setUint16(at, OPT_COMMENT, true);
      view.setUint16(at + 2, commentBytes, true);
      at += 4 + commentBytes;
      const end = at + ((4 - (commentBytes & 3)) & 3) + 4; // padding, then opt_endofopt (code 0, length 0)
      while (at < end) b[at++] = 0;
    }
    const total = at + 4 - start;
    view.setUint32(start + 4, total, true);
    view.setUint32(at, total, true);
    this.used = at + 4;
    this.packets++;
  }

  /** The buffer `beginPacket`'s offset points into. */
  get bytes(): Uint8Array {
    return this.buffer;
  }

  /** One packet from a byte array (convenience; `beginPacket` avoids the copy). */
  packet(timestamp: number, data: Uint8Array, comment = '', interfaceId = 0): void {
    const at = this.beginPacket(timestamp, data.length, comment, interfaceId);
    this.buffer.set(data, at);
  }

  /** Hands everything buffered to the sink. */
  flush(): void {
    if (this.openAt >= 0) throw new Error('pcapng: flush inside an open packet');
    if (this.used === 0) return;
    this.sink(this.buffer.subarray(0, this.used));
    this.written += this.used;
    this.used = 0;
  }

  /** Makes room for `bytes` more: flushes, and grows the buffer only for a block bigger than it. */
  private reserve(bytes: number): void {
    if (this.used + bytes <= this.buffer.length) return;
    this.flush();
    if (bytes > this.buffer.length) {
      this.buffer = Buffer.alloc(bytes);
      this.view = new DataView(this.buffer.buffer, this.buffer.byteOffset, this.buffer.byteLength);
    }
  }

  private block(
    type: number,
    bodyBytes: number,
    options: readonly Option[],
    body: (b: Buffer, at: number) => void,
  ): void {
    let optionBytes = 0;
    for (const o of options) optionBytes += 4 + pad4(o.value.length);
    if (options.length > 0) optionBytes += 4;
    const total = 8 + bodyBytes + optionBytes + 4;
    this.reserve(total);
    const b = this.buffer;
    const start = this.used;
    b.fill(0, start, start + total);
    b.writeUInt32LE(type, start);
    b.writeUInt32LE(total, start + 4);
    body(b, start + 8);
    let at = start + 8 + bodyBytes;
    for (const o of options) {
      b.writeUInt16LE(o.code, at);
      b.writeUInt16LE(o.value.length, at + 2);
      b.set(o.value, at + 4);
      at += 4 + pad4(o.value.length);
    }
    if (options.length > 0) at += 4; // opt_endofopt: already zero
    b.writeUInt32LE(total, at);
    this.used = start + total;
  }
}

interface Option {
  readonly code: number;
  readonly value: Uint8Array;
}

function stringOption(code: number, text: string | undefined): Option[] {
  if (text === undefined || text === '') return [];
  return [{ code, value: Buffer.from(fitOption(text), 'utf8') }];
}

/** `text`, cut (with "...") to fit an option's 65,535 bytes of UTF-8. */
function fitOption(text: string): string {
  if (Buffer.byteLength(text, 'utf8') <= MAX_OPTION_BYTES) return text;
  let cut = Math.min(text.length, MAX_OPTION_BYTES - 3);
  while (Buffer.byteLength(text.slice(0, cut), 'utf8') > MAX_OPTION_BYTES - 3) cut -= 64;
  // Never end on half a surrogate pair.
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  return `${text.slice(0, cut)}...`;
}

function pad4(n: number): number {
  return (n + 3) & ~3;
}
