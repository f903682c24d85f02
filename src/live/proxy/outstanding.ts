// Outstanding reliable messages per end, from the wire (issue 14, item 1: the
// proxy's live figures): a reliable message (or fragment) its sender put on the
// wire and the other end has not yet ACKed. Keys are the ACK keys of
// capture/analyze.ts (category, fragment flag and index, seq), read the same way
// (transport-layer.md §2-3). The WireAnalyzer does not keep this figure.
import { messageSizeAt } from '../../capture/index.js';

/** Keys followed per end: far above any real window, a bound on hostile input. */
export const MAX_OUTSTANDING = 131_072;

function key(low: boolean, fragment: boolean, fragIndex: number, seq: number): number {
  return (low ? 0x2000000 : 0) + (fragment ? 0x1000000 : 0) + fragIndex * 0x10000 + seq;
}

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
    let pos = 2;
    for (let i = 0; i < messages; i++) {
      const size = messageSizeAt(bytes, pos, bytes.length);
      if (size < 0) return;
      const type = bytes[pos];
      if (type === 0x01) {
        const flags = bytes[pos + 3];
        const fragment = (flags & 0x01) !== 0;
        theirs.delete(key((flags & 0x02) !== 0, fragment, fragment ? bytes[pos + 4] : 0, bytes[pos + 1] | (bytes[pos + 2] << 8)));
      } else {
        const flagsLen = bytes[pos + 1] | (bytes[pos + 2] << 8);
        if ((flagsLen & 0x8000) !== 0) {
          const game = type === 0x32;
          const fragment = game && (flagsLen & 0x2000) !== 0;
          const k = key(!game, fragment, fragment ? bytes[pos + 5] : 0, bytes[pos + 3] | (bytes[pos + 4] << 8));
          if (mine.size < MAX_OUTSTANDING || mine.has(k)) mine.add(k);
          else this.untracked++;
        }
      }
      pos += size;
    }
  }
}
