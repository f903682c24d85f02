// A FIFO with O(1) push/shift and a watermark that counts each item's first
// deferral once, without walking the queue (the transport's first-send queue).
// A ring buffer that doubles when full: no garbage per message.

const MIN_CAPACITY = 16;

export class Fifo<T> {
  private ring: Array<T | undefined> = new Array<T | undefined>(MIN_CAPACITY).fill(undefined);
  /** Ring index of the head. */
  private head = 0;
  private count = 0;
  /** Items ever shifted or cleared: the absolute index (since creation) of the head. */
  private base = 0;
  /** Messages with absolute index below this were already counted as deferred. */
  private deferredUpTo = 0;

  get length(): number {
    return this.count;
  }

  push(item: T): void {
    if (this.count === this.ring.length) this.grow();
    this.ring[(this.head + this.count) & (this.ring.length - 1)] = item;
    this.count++;
  }

  peek(): T | undefined {
    return this.count > 0 ? this.ring[this.head] : undefined;
  }

  /** Removes the head; the queue must not be empty (peek first). */
  shift(): T {
    if (this.count === 0) throw new Error('fifo: shift on an empty queue');
    const item = this.ring[this.head] as T;
    this.ring[this.head] = undefined;
    this.head = (this.head + 1) & (this.ring.length - 1);
    this.count--;
    this.base++;
    return item;
  }

  /** Marks everything still queued as deferred; returns how many were newly marked. */
  markRemainingDeferred(): number {
    const end = this.base + this.count;
    const newly = end - Math.max(this.base, this.deferredUpTo);
    if (newly <= 0) return 0;
    this.deferredUpTo = end;
    return newly;
  }

  *values(): IterableIterator<T> {
    for (let i = 0; i < this.count; i++) yield this.ring[(this.head + i) & (this.ring.length - 1)] as T;
  }

  clear(): T[] {
    const rest = [...this.values()];
    this.ring.fill(undefined);
    this.base += this.count;
    this.head = 0;
    this.count = 0;
    return rest;
  }

  private grow(): void {
    const items = [...this.values()];
    this.ring = new Array<T | undefined>(this.ring.length * 2).fill(undefined);
    items.forEach((item, i) => (this.ring[i] = item));
    this.head = 0;
  }
}
