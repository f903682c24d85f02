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
import { messageSizeAt } from '../../analysis/capture/index.js';

/** Keys followed per end: far above any real window, a bound on hostile input. */
const MAX_OUTSTANDING = 131_072;

export class OutstandingTracker {
  private readonly sent = { client: new Set<number>(), server: new Set<number>() };
  /** Reliable keys not followed because the set was full. */
  untracked = 0;

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
        theirs.delete(packedAckKeyAt(bytes, pos));
      } else if (flagsLenReliable(flagsLenAt(bytes, pos))) {
        const k = packedDataKeyAt(bytes, pos);
        if (mine.size < MAX_OUTSTANDING || mine.has(k)) mine.add(k);
        else this.untracked++;
      }
      pos += size;
    }
  }
}
