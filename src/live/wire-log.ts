// What the live peer saw on its socket: every datagram either end
// sent, decrypted, with its wall time. Conformance rules and the counterpart's
// analysis read it. Bounded: a long session keeps the first MAX_WIRE_RECORDS.
import type { Deviation } from '../core/codec/index.js';

export type WireSide = 'local' | 'remote';

export interface WireRecord {
  /** Microseconds since the live run started (the WallClock's time). */
  readonly timeUs: number;
  /** 'local' = bcsim sent it; 'remote' = the counterpart (the real server or client) sent it. */
  readonly from: WireSide;
  /** 1-based connection number (the k-th client address seen, or 1 for a client). */
  readonly connection: number;
  /** Decrypted datagram as the transport read it: peer id byte, then messages (transport-layer.md §2); a reimplementation's wire forms in their stock form (DECISIONS.md 30). */
  readonly bytes: Uint8Array;
  /** The decrypted datagram as sent, when its stock form differs. */
  readonly wire?: Uint8Array;
  /** The deviations from the stock form named in it (DECISIONS.md 30), when there were any. */
  readonly deviations?: readonly Deviation[];
}

const MAX_WIRE_RECORDS = 2_000_000;

export class WireLog {
  readonly records: WireRecord[] = [];
  /** Records not kept because the log was full. */
  dropped = 0;

  constructor(readonly budgetBytes?: number) {}

  add(record: WireRecord): void {
    if (this.records.length >= MAX_WIRE_RECORDS) {
      this.dropped++;
      return;
    }
    this.records.push(record);
  }
}
