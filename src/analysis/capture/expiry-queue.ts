// The ACK sends of one end in time order, looked at again a while later: has
// the key come back since? An entry that a later datagram could have carried
// and that did not come back has left the sender's outbox, whatever the
// estimate's bookkeeping says (a send lost before the capture point leaves the
// count seen short of the freeing send). analyze.ts takes such entries out of
// its outbox series. Bounded: a full queue, or a spent analysis budget,
// refuses (and counts) further sends.
import { QUEUED_SEND_BYTES } from './analyze-budget.js';
import type { Budget } from '../../core/engine/index.js';

/** Sends queued per end at once: far above the sends of a few seconds in any real session. */
export const MAX_QUEUED_SENDS = 262_144;

export class ExpiryQueue {
  private keys: number[] = [];
  private sendUs: number[] = [];
  private head = 0;
  /** Sends not queued because the queue was full. */
  refused = 0;

  constructor(private readonly budget: Budget) {}

  get size(): number {
    return this.keys.length - this.head;
  }

  /** A send of `key` at `sendUs` (sends arrive in time order). */
  push(key: number, sendUs: number): void {
    if (this.size >= MAX_QUEUED_SENDS || !this.budget.take(QUEUED_SEND_BYTES)) {
      this.refused++;
      return;
    }
    this.keys.push(key);
    this.sendUs.push(sendUs);
  }

  /** Calls `visit` for every send made at least `ageUs` before `t`, oldest first, and forgets it. */
  drain(t: number, ageUs: number, visit: (key: number, sendUs: number) => void): void {
    while (this.head < this.keys.length && this.sendUs[this.head] + ageUs <= t) {
      visit(this.keys[this.head], this.sendUs[this.head]);
      this.head++;
      this.budget.give(QUEUED_SEND_BYTES);
    }
    // Compact once the consumed part dominates, so the arrays stay bounded.
    if (this.head > 1024 && this.head * 2 > this.keys.length) {
      this.keys = this.keys.slice(this.head);
      this.sendUs = this.sendUs.slice(this.head);
      this.head = 0;
    }
  }
}
