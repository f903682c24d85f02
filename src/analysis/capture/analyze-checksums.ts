// The checksum answers a client sent (game opcode 0x21), put back together from
// their fragments, with their hashes named: a user holds them against the
// manifest of a server that refused the client. Bounded: a join sends five, so
// the first MAX_ANSWERS are kept and the rest counted.
import {
  TYPE_GAME,
  dataFragCountAt,
  dataFragIndexAt,
  dataHeaderBytes,
  dataSeqAt,
  flagsLenFragment,
} from '../../core/codec/index.js';
import { usToSeconds } from '../../core/engine/index.js';
import { Opcode, checksumAnswerHashes, parseChecksumResponse } from '../../model/traffic/index.js';
import type { ChecksumAnswerHashes } from '../../model/traffic/index.js';

/** Answers kept per connection. */
const MAX_ANSWERS = 16;
/** Fragmented answers being put back together at once; seqs already read, remembered against re-sends. */
const MAX_PENDING = 4;
const MAX_DONE_SEQS = 64;
/** Files listed per answer in the figures (the rest are counted). */
const MAX_LISTED_ANSWER_FILES = 256;

export interface ChecksumAnswerFigures {
  /** When its last piece first went out. */
  readonly atS: number;
  readonly seq: number;
  readonly fragments: number;
  /** Its hashes, or why it does not parse. */
  readonly hashes: ChecksumAnswerHashes | null;
  readonly error: string | null;
}

interface Pending {
  readonly count: number;
  readonly pieces: Map<number, Uint8Array>;
}

export class ChecksumAnswerLog {
  readonly answers: ChecksumAnswerFigures[] = [];
  /** Answers past MAX_ANSWERS. */
  notKept = 0;
  private readonly pending = new Map<number, Pending>();
  private readonly done = new Set<number>();

  /** A reliable game message the client sent at bytes[pos], `size` bytes. */
  message(bytes: Uint8Array, pos: number, size: number, flagsLen: number, timeUs: number): void {
    const seq = dataSeqAt(bytes, pos);
    if (this.done.has(seq)) return;
    const end = pos + size;
    if (!flagsLenFragment(TYPE_GAME, flagsLen)) {
      const at = pos + dataHeaderBytes(true, false, null);
      if (at < end && bytes[at] === Opcode.ChecksumResponse) this.read(seq, 1, bytes.slice(at, end), timeUs);
      return;
    }
    const index = dataFragIndexAt(bytes, pos);
    const at = pos + dataHeaderBytes(true, true, index);
    let p = this.pending.get(seq);
    if (p === undefined) {
      // Only the first fragment tells a checksum answer; a later piece before it is taken from its re-send.
      if (index !== 0 || at >= end || bytes[at] !== Opcode.ChecksumResponse) return;
      const count = dataFragCountAt(bytes, pos);
      if (count === 0) return;
      if (this.pending.size >= MAX_PENDING) this.pending.delete(this.pending.keys().next().value as number);
      p = { count, pieces: new Map() };
      this.pending.set(seq, p);
    }
    if (index >= p.count || p.pieces.has(index)) return;
    p.pieces.set(index, bytes.slice(at, end));
    if (p.pieces.size < p.count) return;
    this.pending.delete(seq);
    const whole = new Uint8Array(
      [...p.pieces.entries()].sort((a, b) => a[0] - b[0]).flatMap(([, piece]) => [...piece]),
    );
    this.read(seq, p.count, whole, timeUs);
  }

  private read(seq: number, fragments: number, payload: Uint8Array, timeUs: number): void {
    if (this.done.size >= MAX_DONE_SEQS) this.done.delete(this.done.values().next().value as number);
    this.done.add(seq);
    if (this.answers.length >= MAX_ANSWERS) {
      this.notKept++;
      return;
    }
    const parsed = parseChecksumResponse(payload);
    this.answers.push({
      atS: usToSeconds(timeUs),
      seq,
      fragments,
      hashes: parsed.ok ? checksumAnswerHashes(parsed.value, MAX_LISTED_ANSWER_FILES) : null,
      error: parsed.ok ? null : `offset ${parsed.error.offset}: ${parsed.error.reason}`,
    });
  }
}
