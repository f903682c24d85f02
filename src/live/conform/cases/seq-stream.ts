// The judge of a server's own sequence numbers in one category, message by
// message as they arrive: each new reliable message must carry the seq after
// the last one (a few may be skipped: messages of the server we do not see
// here), across 255 -> 256 and across 65,535 -> 0; a copy of a message must not
// come once our ACK of it has had time to arrive (the ACK did not match).
import { seqDistance, seqNext } from '../../../core/codec/index.js';
import { seconds } from '../case-types.js';
import type { Arrival } from '../client.js';

export interface SeqFault {
  readonly detail: string;
  readonly arrival: Arrival;
  readonly timeMs: number;
}

interface Seen {
  readonly firstMs: number;
  lastMs: number;
  /** What the message is (a relayed number), when known: a copy carries the same. */
  readonly identity: number | null;
  lateCopies: number;
}

/**
 * A new message may come this many seqs on: those between are lost on the way (or
 * still coming) and must come later, re-sent. Farther is a seq out of turn.
 */
const MAX_SKIP = 4096;
/** A seq first seen this recently, seen again out of turn, is a copy (or a seq used again). */
const COPY_MEMORY_MS = 30_000;
/**
 * Copies of one seq, each more than the ACK grace after the one before (so after our
 * ACK of it), this many times: the server does not take our ACK. One is forgiven:
 * an ACK of ours may be lost under load, and then one copy is due.
 */
const LATE_COPIES = 2;

export class SeqStream {
  private last: number | null = null;
  /** Recent seqs, oldest first (at most 65,536: one per seq). */
  private readonly seen = new Map<number, Seen>();
  newMessages = 0;
  copies = 0;
  /** Crossed 255 -> 256 (the high byte counts), and wrapped 65,535 -> 0. */
  crossedByte = false;
  wraps = 0;
  /** New messages since the last wrap. */
  sinceWrap = 0;
  /** The first fault seen; judging stops there. */
  fault: SeqFault | null = null;
  /** Seqs skipped by a new message: they must still come (at most the 65,536 of the seq space). */
  private readonly missing = new Set<number>();

  constructor(
    private readonly category: 'high' | 'low',
    /** Our ACK of a message has reached the server this long after the message came. */
    private readonly ackGraceMs: number,
    /** A re-send comes no sooner than this after the original. */
    private readonly resendMinMs: number,
  ) {}

  /** One reliable message of the category; `identity` tells copies from new messages when known. */
  see(seq: number, timeMs: number, arrival: Arrival, identity: number | null = null): void {
    if (this.fault !== null) return;
    const last = this.last;
    if (last === null) return this.accept(seq, timeMs, identity);
    const ahead = seqDistance(last, seq);
    // A seq skipped before, come at last: a new message that was lost or late on the way.
    if (this.missing.delete(seq)) return this.fill(seq, timeMs, identity);
    const before = this.seen.get(seq);
    const recent = before !== undefined && timeMs - before.firstMs < COPY_MEMORY_MS;
    // The next seq (or a few on) is a new message, even where an old one had it before the wrap.
    if (ahead >= 1 && ahead <= MAX_SKIP && !(recent && identity !== null && before.identity === identity))
      return this.accept(seq, timeMs, identity);
    if (recent) {
      const copy = identity !== null ? before.identity === identity : timeMs - before.firstMs >= this.resendMinMs;
      if (copy) return this.copy(seq, timeMs, arrival, before);
      this.fault = {
        detail: `a new message of the server carried seq ${seq} (${this.category}), which it had used ${seconds(timeMs - before.firstMs)} before, right after seq ${last}: expected ${seqNext(last)}${boundary(last)}`,
        arrival,
        timeMs,
      };
      return;
    }
    this.fault = {
      detail: `a new message of the server carried seq ${seq} (${this.category}) right after seq ${last}: expected ${seqNext(last)}${boundary(last)}`,
      arrival,
      timeMs,
    };
  }

  private copy(seq: number, timeMs: number, arrival: Arrival, seen: Seen): void {
    this.copies++;
    if (timeMs - seen.lastMs > this.ackGraceMs) seen.lateCopies++;
    seen.lastMs = timeMs;
    if (seen.lateCopies >= LATE_COPIES)
      this.fault = {
        detail: `seq ${seq} (${this.category}) came again ${seen.lateCopies} times, each after we ACKed it (first ${seconds(timeMs - seen.firstMs)} ago): our ACK does not clear it`,
        arrival,
        timeMs,
      };
  }

  private fill(seq: number, timeMs: number, identity: number | null): void {
    this.newMessages++;
    this.seen.delete(seq);
    this.seen.set(seq, { firstMs: timeMs, lastMs: timeMs, identity, lateCopies: 0 });
  }

  private accept(seq: number, timeMs: number, identity: number | null): void {
    if (this.last !== null) {
      for (let s = seqNext(this.last); s !== seq; s = seqNext(s)) this.missing.add(s);
      if (this.last < 256 && seq >= 256) this.crossedByte = true;
      if (seq < this.last) {
        this.wraps++;
        this.sinceWrap = 0;
      }
    }
    this.last = seq;
    this.newMessages++;
    this.sinceWrap++;
    this.seen.delete(seq);
    this.seen.set(seq, { firstMs: timeMs, lastMs: timeMs, identity, lateCopies: 0 });
  }

  get lastSeq(): number | null {
    return this.last;
  }

  /** Seqs skipped and not come yet. */
  get missingCount(): number {
    return this.missing.size;
  }

  /** Both boundaries crossed, `margin` new messages after the wrap, and every skipped seq come. */
  done(margin: number): boolean {
    return this.crossedByte && this.wraps > 0 && this.sinceWrap >= margin && this.missing.size === 0;
  }
}

function boundary(last: number): string {
  return last === 255 ? ' (the seq past one byte)' : last === 65535 ? ' (the wrap to 0)' : '';
}
