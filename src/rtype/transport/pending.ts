// A user's pending list, `_ackList` (rtype-ack-system.md "Client-Side ACK Tracking"):
// keys in insertion order (ack ids, or ticks under pendingHoldsTicks), with a count
// per key so "does this user wait for X" is O(1). Each entry also remembers the
// packet it was made for and, for the per-packet timer, its sends.
import type { StoredPacket } from './store.js';

export interface PendingEntry {
  readonly key: number;
  readonly packet: StoredPacket;
  /** Sends of the packet to this user so far (the first send included). */
  sends: number;
  /** When it was last sent to this user, in the clock the thresholds use (µs, or ticks). */
  lastSentAt: number;
}

export class PendingList {
  private entries: PendingEntry[] = [];
  private readonly counts = new Map<number, number>();
  /** Entries refused because the list was full. */
  limitHits = 0;

  constructor(private readonly maxEntries: number) {
    if (!(Number.isInteger(maxEntries) && maxEntries >= 1))
      throw new Error(`rtype pending list: maxEntries ${maxEntries} is not an integer >= 1`);
  }

  get size(): number {
    return this.entries.length;
  }

  /** The entries in insertion order. Do not keep the array across a removal. */
  get view(): readonly PendingEntry[] {
    return this.entries;
  }

  hasKey(key: number): boolean {
    return this.counts.has(key);
  }

  /** Appends an entry; false (counted) when the list is full. */
  add(entry: PendingEntry): boolean {
    if (this.entries.length >= this.maxEntries) {
      this.limitHits++;
      return false;
    }
    this.entries.push(entry);
    this.counts.set(entry.key, (this.counts.get(entry.key) ?? 0) + 1);
    entry.packet.refs++;
    return true;
  }

  /** Erases every entry with this key (`erase(remove(…, key))`); returns them. */
  removeKey(key: number): PendingEntry[] {
    if (!this.counts.has(key)) return [];
    return this.removeWhere((e) => e.key === key);
  }

  /** Erases the entries that refer to this packet; returns them. */
  removePacket(packet: StoredPacket): PendingEntry[] {
    if (!this.counts.has(packet.key)) return [];
    return this.removeWhere((e) => e.packet === packet);
  }

  private removeWhere(match: (e: PendingEntry) => boolean): PendingEntry[] {
    const removed: PendingEntry[] = [];
    const kept: PendingEntry[] = [];
    for (const e of this.entries) (match(e) ? removed : kept).push(e);
    if (removed.length === 0) return removed;
    this.entries = kept;
    for (const e of removed) {
      const n = (this.counts.get(e.key) ?? 0) - 1;
      if (n < 0) throw new Error(`rtype pending list: key ${e.key} counted below zero`);
      if (n === 0) this.counts.delete(e.key);
      else this.counts.set(e.key, n);
      e.packet.refs--;
    }
    return removed;
  }
}
