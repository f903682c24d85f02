// The first-send queue: a FIFO with O(1) push/shift and a watermark that counts
// each message's first deferral once, without walking the queue.

export class Fifo<T> {
  private items: T[] = [];
  private head = 0;
  /** Absolute index (since creation) of items[0]. */
  private base = 0;
  /** Messages with absolute index below this were already counted as deferred. */
  private deferredUpTo = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  peek(): T | undefined {
    return this.head < this.items.length ? this.items[this.head] : undefined;
  }

  /** Removes the head; the queue must not be empty (peek first). */
  shift(): T {
    if (this.head >= this.items.length) throw new Error('fifo: shift on an empty queue');
    const item = this.items[this.head];
    (this.items as Array<T | undefined>)[this.head] = undefined;
    this.head++;
    // Compact once the dead prefix dominates: amortised O(1).
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.base += this.head;
      this.head = 0;
    }
    return item;
  }

  /** Marks everything still queued as deferred; returns how many were newly marked. */
  markRemainingDeferred(): number {
    const start = this.base + this.head;
    const end = this.base + this.items.length;
    const newly = end - Math.max(start, this.deferredUpTo);
    if (newly <= 0) return 0;
    this.deferredUpTo = end;
    return newly;
  }

  *values(): IterableIterator<T> {
    for (let i = this.head; i < this.items.length; i++) yield this.items[i];
  }

  clear(): T[] {
    const rest = this.items.slice(this.head);
    this.base += this.items.length;
    this.items = [];
    this.head = 0;
    return rest;
  }
}
