// Reading a file by position through one bounded buffer: the capture reader
// (capture-reader.ts) asks for byte ranges and reads numbers out of them.
//
// The buffer has a fixed size, grown only for a range bigger than that (the
// reader never asks past MAX_RECORD_BYTES) and shrunk back once it is behind,
// so a capture of any size streams through bounded memory. A read that fails or
// a file that ends too soon is an error naming the byte offset, never a throw.
import { closeSync, readSync } from 'node:fs';
import { fileErrorText } from '../files/index.js';
import type { CaptureError } from './capture-packet.js';

export class FileWindow {
  /** Byte order of the numbers read: the file's (pcap) or the current section's (pcapng). */
  littleEndian = true;
  /** Bytes of the file. */
  readonly size: number;
  /** Largest the buffer has been, for the bounded-memory test. */
  maxBufferBytes: number;

  protected buf: Buffer;
  /** File offset of buf[0]. */
  protected bufStart = 0;
  /** Valid bytes in buf. */
  private bufEnd = 0;
  private readonly initialBytes: number;
  protected closed = false;
  /** The error that ended the reading; every later call answers with it. */
  protected failed: CaptureError | null = null;

  constructor(
    private readonly fd: number,
    size: number,
    bufferBytes: number,
  ) {
    this.size = size;
    this.initialBytes = Math.max(64, Math.floor(bufferBytes));
    this.buf = Buffer.allocUnsafe(this.initialBytes);
    this.maxBufferBytes = this.initialBytes;
  }

  /** The buffer's current size in bytes. */
  get bufferBytes(): number {
    return this.buf.length;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeQuietly(this.fd);
  }

  /**
   * Makes file bytes [offset, offset + n) available in `buf` (at offset - bufStart).
   * Returns null (and sets `failed`) when the file cannot supply them.
   */
  protected ensure(offset: number, n: number): true | null {
    if (offset >= this.bufStart && offset + n <= this.bufStart + this.bufEnd) return true;
    if (offset + n > this.size) {
      this.failed = {
        code: 'truncated',
        offset,
        reason: `needs ${n} bytes at offset ${offset}, the file has ${this.size}`,
      };
      return null;
    }
    if (n > this.buf.length) {
      // A record bigger than the buffer: grow to fit it (bounded by MAX_RECORD_BYTES + header by the callers).
      const grown = Buffer.allocUnsafe(Math.max(n, this.initialBytes));
      this.buf = grown;
      this.bufStart = offset;
      this.bufEnd = 0;
      this.maxBufferBytes = Math.max(this.maxBufferBytes, grown.length);
    } else if (offset >= this.bufStart && offset < this.bufStart + this.bufEnd) {
      // Keep the bytes already read from `offset` on: move them to the front.
      const keep = this.bufStart + this.bufEnd - offset;
      this.buf.copy(this.buf, 0, offset - this.bufStart, this.bufEnd);
      this.bufStart = offset;
      this.bufEnd = keep;
    } else {
      this.bufStart = offset;
      this.bufEnd = 0;
    }
    if (this.buf.length > this.initialBytes && n <= this.initialBytes && this.bufEnd <= this.initialBytes) {
      // Back to the normal size once the big record is behind us.
      const normal = Buffer.allocUnsafe(this.initialBytes);
      this.buf.copy(normal, 0, 0, this.bufEnd);
      this.buf = normal;
    }
    while (this.bufEnd < n) {
      const want = Math.min(this.buf.length - this.bufEnd, this.size - (this.bufStart + this.bufEnd));
      if (want <= 0) break;
      let got: number;
      try {
        got = readSync(this.fd, this.buf, this.bufEnd, want, this.bufStart + this.bufEnd);
      } catch (error) {
        this.failed = {
          code: 'io',
          offset: this.bufStart + this.bufEnd,
          reason: `read failed (${fileErrorText(error)})`,
        };
        return null;
      }
      if (got === 0) break; // the file shrank under us
      this.bufEnd += got;
    }
    if (this.bufEnd < n) {
      this.failed = {
        code: 'truncated',
        offset: offset + this.bufEnd,
        reason: `the file ended while reading ${n} bytes at offset ${offset}`,
      };
      return null;
    }
    return true;
  }

  /** A plain Uint8Array view of buffer bytes (a Buffer's `slice` would not copy, which surprises callers). */
  protected view(start: number, length: number): Uint8Array {
    return new Uint8Array(this.buf.buffer, this.buf.byteOffset + start, length);
  }

  protected u16(o: number): number {
    return this.littleEndian ? this.buf.readUInt16LE(o) : this.buf.readUInt16BE(o);
  }

  protected u32(o: number): number {
    return this.littleEndian ? this.buf.readUInt32LE(o) : this.buf.readUInt32BE(o);
  }
}

export function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed or never valid: nothing to release
  }
}
