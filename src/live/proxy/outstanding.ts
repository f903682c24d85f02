// Outstanding reliable messages per end, from the wire (the
// proxy's live figures): a reliable message (or fragment) its sender put on the
// wire and the other end has not yet ACKed. Keys are the codec's packed message
// keys (category, seq, fragment flag and index), read in place as
// capture/analyze.ts reads them (transport-layer.md §2-3). The WireAnalyzer does
// not keep this figure.
import {
  DATAGRAM_HEADER_BYTES,
  TYPE_ACK,
  flagsLenAt,
  flagsLenReliable,
  packedAckKeyAt,
  packedDataKeyAt,
} from '../../core/codec/index.js';
import { Budget } from '../../core/engine/index.js';
import { messageSizeAt } from '../../analysis/capture/index.js';

/** Keys followed per end: far above any real window, a bound on hostile input. */
const MAX_OUTSTANDING = 131_072;
/** Keys followed over every client's two ends together: about 30 bytes each in a Set (measured), 8 MB in all. */
const MAX_OUTSTANDING_KEYS = 262_144;

/** The keys every client's tracker holds, against one proxy-wide limit: 64 clients must not each hold the most one may. */
export function outstandingBudget(limit: number = MAX_OUTSTANDING_KEYS): Budget {
  return new Budget(limit, 'outstanding keys');
}

export class OutstandingTracker {
  private readonly sent = { client: new Set<number>(), server: new Set<number>() };
  /** Reliable keys not followed because the set, or the proxy-wide budget, was full. */
  untracked = 0;

  constructor(private readonly budget: Budget = outstandingBudget()) {}

  /** Outstanding messages `from` sent. */
  count(from: 'client' | 'server'): number {
    return this.sent[from].size;
  }

  /** A plaintext datagram `from` sent, already known to decode (`messages` of them). */
  add(from: 'client' | 'server', bytes: Uint8Array, messages: number): void {
    const mine = this.sent[from];
    const theirs = this.sent[from === 'client' ? 'server' : 'client'];
    let pos = DATAGRAM_HEADER_BYTES;
    for (let i = 0; i < messages; i++) {
      const size = messageSizeAt(bytes, pos, bytes.length);
      if (size < 0) return;
      if (bytes[pos] === TYPE_ACK) {
        if (theirs.delete(packedAckKeyAt(bytes, pos))) this.budget.give(1);
      } else if (flagsLenReliable(flagsLenAt(bytes, pos))) {
        const k = packedDataKeyAt(bytes, pos);
        if (mine.has(k)) {
          // A re-send: already followed.
        } else if (this.budget.take(1, mine.size < MAX_OUTSTANDING)) mine.add(k);
        else this.untracked++;
      }
      pos += size;
    }
  }
}
