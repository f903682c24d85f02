// The socket's receive buffer: datagrams that arrived since the peer's last
// update. They are read only inside an update (DECISIONS.md 16). The bound is
// explicit and counted: a full buffer drops the datagram, as a UDP socket does.

export interface Arrival {
  readonly bytes: Uint8Array;
  readonly uids: readonly number[];
}

export const INBOX_LIMIT = 1 << 16;

export class Inbox {
  private items: Arrival[] = [];

  get length(): number {
    return this.items.length;
  }

  /** False when the buffer is full and the datagram was dropped. */
  push(bytes: Uint8Array, uids: readonly number[]): boolean {
    if (this.items.length >= INBOX_LIMIT) return false;
    this.items.push({ bytes, uids });
    return true;
  }

  /** Everything waiting, oldest first; the inbox is empty afterwards. */
  takeAll(): Arrival[] {
    const taken = this.items;
    this.items = [];
    return taken;
  }

  clear(): void {
    this.items = [];
  }
}
