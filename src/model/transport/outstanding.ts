// The seqs of one category that a sender has sent and not yet had ACKed, oldest
// first: the base of its send window. Fragments and re-entry
// copies share a seq, so each seq carries a count of queue entries holding it.
import { Fifo } from '../../core/containers/index.js';

export class OutstandingSeqs {
  private readonly entries = new Map<number, number>();
  /** Seqs in first-send order; a seq whose count fell to zero is skipped lazily. */
  private readonly order = new Fifo<number>();

  /** How many distinct seqs are outstanding. */
  get size(): number {
    return this.entries.size;
  }

  add(seq: number): void {
    const count = this.entries.get(seq);
    if (count === undefined) {
      this.entries.set(seq, 1);
      this.order.push(seq);
    } else {
      this.entries.set(seq, count + 1);
    }
  }

  remove(seq: number): void {
    const count = this.entries.get(seq);
    if (count === undefined) throw new Error(`outstanding: seq ${seq} is not outstanding`);
    if (count === 1) this.entries.delete(seq);
    else this.entries.set(seq, count - 1);
  }

  /** The oldest outstanding seq, or null when everything sent was ACKed. Amortised O(1). */
  oldest(): number | null {
    for (let seq = this.order.peek(); seq !== undefined; seq = this.order.peek()) {
      if (this.entries.has(seq)) return seq;
      this.order.shift();
    }
    return null;
  }

  clear(): void {
    this.entries.clear();
    this.order.clear();
  }
}
