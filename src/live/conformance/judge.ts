// What every rule's judge shares: the per-connection interface the evaluator
// drives, the tally of cases and evidence, and a counted bound on the keys
// the judges track (a hostile counterpart must not grow our memory).
import { usToSeconds } from '../../core/engine/index.js';
import type { Budget } from '../../core/engine/index.js';
import { toHex } from '../../core/codec/index.js';
import type { WireMessageEvent } from './wire-keys.js';

export interface Evidence {
  readonly connection: number;
  /** When it happened, in seconds since the live run started. */
  readonly timeS: number;
  readonly seq: number;
  readonly fragIndex?: number;
  /** One sentence. */
  readonly detail: string;
  /** The relevant datagram as sent (decrypted), hex. */
  readonly hex: string;
}

/** Evidence kept per rule; the report shows the first of them. */
export const MAX_EVIDENCE = 10;
/** Datagram bytes quoted in evidence (the stock maximum datagram, docs/sources.md 5). */
export const MAX_HEX_BYTES = 512;
/** Keys tracked at once by all judges of all connections together. */
export const MAX_TRACKED_KEYS = 262_144;

/** Evidence the judge may still complete (e.g. the final count of a repeated ACK). */
export type OpenEvidence = { -readonly [K in keyof Evidence]: Evidence[K] };

/** One rule's counts over all connections. */
export class Tally {
  /** Cases of the rule's kind the judge saw, judged or not (what "not exercised" reasons count). */
  seen = 0;
  /** Cases judged. */
  checked = 0;
  violations = 0;
  /** Cases the log could not decide (too close to its end). */
  skipped = 0;
  /** Cases not judged because the key bound was reached. */
  untracked = 0;
  /** The counterpart's keepalive again under a seq it had used: a new keepalive, not judged as a re-send. */
  keepaliveRepeats = 0;
  /** Kept per connection up to MAX_EVIDENCE each; the result keeps the earliest MAX_EVIDENCE. */
  readonly evidence: OpenEvidence[] = [];
}

/** A Map whose entries are charged to the judges' shared Budget of tracked keys (MAX_TRACKED_KEYS). */
export class KeyTable<T> {
  private readonly map = new Map<number, T>();

  constructor(private readonly budget: Budget) {}

  get(key: number): T | undefined {
    return this.map.get(key);
  }

  /** False when the budget is spent and the key is new: the caller counts it untracked. */
  set(key: number, value: T): boolean {
    if (!this.map.has(key)) {
      if (!this.budget.take(1)) return false;
    }
    this.map.set(key, value);
    return true;
  }

  delete(key: number): void {
    if (this.map.delete(key)) this.budget.give(1);
  }

  /** Removes and returns the entries `stale` selects, in insertion order. */
  evict(stale: (value: T) => boolean): T[] {
    const out: T[] = [];
    for (const [key, value] of this.map) {
      if (stale(value)) {
        out.push(value);
        this.delete(key);
      }
    }
    return out;
  }

  drain(): T[] {
    return this.evict(() => true);
  }
}

/** What a judge of one connection is given. */
export class JudgeContext {
  private kept = 0;

  constructor(
    readonly connection: number,
    /** When the run ended: cases needing a window past it are skipped. */
    readonly endUs: number,
    readonly tally: Tally,
    readonly budget: Budget,
    private readonly datagramOf: (recordIndex: number) => Uint8Array,
  ) {}

  /** Counts a violation; returns its evidence while this connection has kept fewer than MAX_EVIDENCE. */
  violate(
    timeUs: number,
    seq: number,
    fragIndex: number | null,
    detail: string,
    recordIndex: number,
  ): OpenEvidence | null {
    this.tally.violations++;
    if (this.kept >= MAX_EVIDENCE) return null;
    this.kept++;
    const bytes = this.datagramOf(recordIndex);
    const hex =
      toHex(bytes.subarray(0, MAX_HEX_BYTES)) + (bytes.length > MAX_HEX_BYTES ? ` … (${bytes.length} bytes)` : '');
    const evidence: OpenEvidence = { connection: this.connection, timeS: usToSeconds(timeUs), seq, detail, hex };
    if (fragIndex !== null) evidence.fragIndex = fragIndex;
    this.tally.evidence.push(evidence);
    return evidence;
  }
}

/** One rule judging one connection, fed its messages in time order. */
export interface Judge {
  observe(event: WireMessageEvent): void;
  /** Forgets what went idle before `beforeUs`, judging it first. */
  sweep(beforeUs: number): void;
  /** The log is over. */
  finish(): void;
}
