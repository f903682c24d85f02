// The canonical trace of a run: every datagram put on a link, as
// (time µs u64 LE, direction u8, length u16 LE, bytes). Its SHA-256 is the
// summary's traceHash; a 32-bit digest per datagram lets a determinism check
// name the first datagram where two runs diverge.
//
// SHA-256 is node:crypto's, here and for every other hash of the project.
import { createHash } from 'node:crypto';
import { LimitError } from '../../core/engine/index.js';

/** The trace is written into a chunk this size and handed to the hash a chunk at a time. */
const CHUNK_BYTES = 1 << 16;

/** SHA-256 of a text (UTF-8) in hex: ids of reports and sweeps. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export class TraceHasher {
  private readonly hash = createHash('sha256');
  private readonly chunk = new Uint8Array(CHUNK_BYTES);
  private readonly view = new DataView(this.chunk.buffer);
  private used = 0;
  private digests = new Uint32Array(1 << 12);
  private times = new Float64Array(1 << 12);
  private directions = new Uint8Array(1 << 12);
  private datagrams = 0;
  private finished: string | null = null;

  /** `keepDigests`: also keep a 32-bit digest per datagram (determinism checks). */
  constructor(private readonly keepDigests = false) {}

  record(timeUs: number, direction: number, bytes: Uint8Array): void {
    if (this.finished !== null) throw new Error('trace: datagram recorded after the digest');
    const need = 11 + bytes.length;
    if (this.used + need > CHUNK_BYTES) this.flush();
    const start = this.used;
    // u64 LE as two u32 halves: no BigInt per datagram.
    this.view.setUint32(start, timeUs % 0x1_0000_0000, true);
    this.view.setUint32(start + 4, Math.floor(timeUs / 0x1_0000_0000), true);
    this.chunk[start + 8] = direction;
    this.view.setUint16(start + 9, bytes.length, true);
    this.chunk.set(bytes, start + 11);
    this.used += need;
    this.datagrams++;
    if (this.keepDigests) this.pushDigest(fnv1a(this.chunk, start, this.used), timeUs, direction);
  }

  get datagramCount(): number {
    return this.datagrams;
  }

  /** Per-datagram digests, in trace order (empty unless kept). */
  digestList(): Uint32Array {
    return this.keepDigests ? this.digests.subarray(0, this.datagrams) : new Uint32Array(0);
  }

  digest(): string {
    if (this.finished === null) {
      this.flush();
      this.finished = this.hash.digest('hex');
    }
    return this.finished;
  }

  private flush(): void {
    if (this.used > 0) this.hash.update(this.chunk.subarray(0, this.used));
    this.used = 0;
  }

  /** Time and direction of datagram `index`, when digests are kept. */
  recordAt(index: number): { timeUs: number; direction: number } | null {
    if (!this.keepDigests || index >= this.datagrams) return null;
    return { timeUs: this.times[index], direction: this.directions[index] };
  }

  private pushDigest(value: number, timeUs: number, direction: number): void {
    const index = this.datagrams - 1;
    if (index >= MAX_KEPT_DIGESTS) {
      throw new LimitError(
        `a determinism check keeps 13 bytes per datagram, for at most ${MAX_KEPT_DIGESTS.toLocaleString('en-US')} datagrams per run; shorten the run`,
      );
    }
    if (index === this.digests.length) {
      const size = this.digests.length * 2;
      const digests = new Uint32Array(size);
      digests.set(this.digests);
      this.digests = digests;
      const times = new Float64Array(size);
      times.set(this.times);
      this.times = times;
      const directions = new Uint8Array(size);
      directions.set(this.directions);
      this.directions = directions;
    }
    this.digests[index] = value;
    this.times[index] = timeUs;
    this.directions[index] = direction;
  }
}

/** Bounds a determinism check's memory: two runs of 8 M datagrams keep ~210 MB. */
const MAX_KEPT_DIGESTS = 8_000_000;

function fnv1a(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return h >>> 0;
}
