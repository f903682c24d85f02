// The socket's receive buffer: datagrams that arrived since the peer's last
// update. They are read only inside an update (docs/sources.md 16). The bound is
// explicit and counted: a full buffer drops the datagram, as a UDP socket does.
// Two parallel lists reused across updates: no object per arrival.

export const INBOX_LIMIT = 1 << 16;

const NO_BYTES = new Uint8Array(0);
const NO_UIDS: readonly number[] = [];

export class Inbox {
  private readonly bytes: Uint8Array[] = [];
  private readonly uids: Array<readonly number[]> = [];
  private count = 0;

  get length(): number {
    return this.count;
  }

  /** False when the buffer is full and the datagram was dropped. */
  push(bytes: Uint8Array, uids: readonly number[]): boolean {
    if (this.count >= INBOX_LIMIT) return false;
    this.bytes[this.count] = bytes;
    this.uids[this.count] = uids;
    this.count++;
    return true;
  }

  /** Hands over everything waiting, oldest first; the inbox is empty afterwards. */
  drain(each: (bytes: Uint8Array, uids: readonly number[]) => void): void {
    const n = this.count;
    for (let i = 0; i < n; i++) {
      const bytes = this.bytes[i];
      const uids = this.uids[i];
      // Let go at once: a held view would pin its sender's 64 KiB slab.
      this.bytes[i] = NO_BYTES;
      this.uids[i] = NO_UIDS;
      each(bytes, uids);
    }
    // Arrivals come from the event loop, never from inside a read.
    if (this.count !== n) throw new Error(`inbox: ${this.count - n} datagrams arrived while the inbox was read`);
    this.count = 0;
  }

  clear(): void {
    this.bytes.fill(NO_BYTES, 0, this.count);
    this.uids.fill(NO_UIDS, 0, this.count);
    this.count = 0;
  }
}
