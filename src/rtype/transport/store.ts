// The server's critical-packet store, `_ackPackets` (rtype-ack-system.md "Server-Side
// ACK Storage"): packets in queue order with their tick. Queue order is age order,
// so expiry removes a prefix.

/** One stored critical packet. */
export interface StoredPacket {
  readonly ackId: number;
  readonly entityId: number;
  /** The game tick when it was queued (`_tick`). */
  readonly tick: number;
  readonly queuedAtUs: number;
  /** What pending-list entries and the scan match on: the ack id, or the tick under pendingHoldsTicks. */
  readonly key: number;
  /** The bytes every send puts on the wire (ack already zeroed under ackZeroedOnSend). */
  readonly wire: Uint8Array;
  /** False once expired: entries still pointing here dangle. */
  live: boolean;
  /** Pending-list entries that refer to this packet. */
  refs: number;
}

export class CriticalStore {
  private packets: StoredPacket[] = [];
  private head = 0;
  private readonly byKey = new Map<number, StoredPacket[]>();
  /** Packets refused because the store was full. */
  limitHits = 0;

  constructor(private readonly maxEntries: number) {
    if (!(Number.isInteger(maxEntries) && maxEntries >= 1))
      throw new Error(`rtype store: maxEntries ${maxEntries} is not an integer >= 1`);
  }

  get size(): number {
    return this.packets.length - this.head;
  }

  /** Adds a packet; false (counted) when the store is full. */
  add(packet: StoredPacket): boolean {
    if (this.size >= this.maxEntries) {
      this.limitHits++;
      return false;
    }
    const last = this.packets[this.packets.length - 1];
    if (this.size > 0 && last.queuedAtUs > packet.queuedAtUs)
      throw new Error('rtype store: packets must be queued in time order');
    this.packets.push(packet);
    const same = this.byKey.get(packet.key);
    if (same === undefined) this.byKey.set(packet.key, [packet]);
    else same.push(packet);
    return true;
  }

  /** Live packets with this key, in queue order (the scan's inner loop, by index). */
  matching(key: number): readonly StoredPacket[] {
    return this.byKey.get(key) ?? EMPTY;
  }

  /** Removes the oldest packets while `expired` holds; returns them, marked dead. */
  removeExpired(expired: (packet: StoredPacket) => boolean): StoredPacket[] {
    const removed: StoredPacket[] = [];
    while (this.head < this.packets.length && expired(this.packets[this.head])) {
      const packet = this.packets[this.head++];
      packet.live = false;
      const same = this.byKey.get(packet.key);
      if (same === undefined || same[0] !== packet)
        throw new Error(`rtype store: key index out of step at ack id ${packet.ackId}`);
      if (same.length === 1) this.byKey.delete(packet.key);
      else same.shift();
      removed.push(packet);
    }
    // Compact once the dead prefix dominates, so memory follows the live size.
    if (this.head > 1024 && this.head * 2 > this.packets.length) {
      this.packets = this.packets.slice(this.head);
      this.head = 0;
    }
    return removed;
  }
}

const EMPTY: readonly StoredPacket[] = [];
