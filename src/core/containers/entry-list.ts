// A doubly linked list kept in queue order (by `order`), with a PositionIndex of
// its members so that an out-of-order insert finds its place in O(log n) instead
// of walking a possibly huge stuck list.
import { PositionIndex } from './position-index.js';

export interface Linked<T> {
  order: number;
  prev: T | null;
  next: T | null;
}

export class EntryList<T extends Linked<T>> {
  head: T | null = null;
  tail: T | null = null;
  length = 0;
  private readonly members: PositionIndex;

  /** `entryAt(order)` maps an order back to its entry (the owner keeps that table). */
  constructor(
    capacity: number,
    private readonly entryAt: (order: number) => T,
  ) {
    this.members = new PositionIndex(capacity);
  }

  /** Members at or before `order` in queue order. */
  countUpTo(order: number): number {
    return this.members.countUpTo(order);
  }

  /** Appends an entry newer than every member. */
  append(entry: T): void {
    this.assertUnlinked(entry);
    if (this.tail !== null && this.tail.order >= entry.order)
      throw new Error(`entry-list: append of order ${entry.order} after ${this.tail.order}`);
    entry.prev = this.tail;
    entry.next = null;
    if (this.tail) this.tail.next = entry;
    else this.head = entry;
    this.tail = entry;
    this.length++;
    this.members.add(entry.order, 1);
  }

  /** Inserts keeping queue order, after the member that precedes it. */
  insertOrdered(entry: T): void {
    this.assertUnlinked(entry);
    const before = this.members.countUpTo(entry.order - 1);
    const after = before === 0 ? null : this.entryAt(this.members.kth(before));
    if (after !== null && !(after !== undefined && after.order < entry.order))
      throw new Error(`entry-list: no member precedes order ${entry.order}`);
    entry.prev = after;
    entry.next = after ? after.next : this.head;
    if (entry.next) entry.next.prev = entry;
    else this.tail = entry;
    if (after) after.next = entry;
    else this.head = entry;
    this.length++;
    this.members.add(entry.order, 1);
  }

  /** Removes a member. O(1) check: its neighbours (or head and tail) point back at it. */
  remove(entry: T): void {
    if (
      (entry.prev === null ? this.head !== entry : entry.prev.next !== entry) ||
      (entry.next === null ? this.tail !== entry : entry.next.prev !== entry)
    ) {
      throw new Error(`entry-list: remove of order ${entry.order}, which is not a member`);
    }
    if (entry.prev) entry.prev.next = entry.next;
    else this.head = entry.next;
    if (entry.next) entry.next.prev = entry.prev;
    else this.tail = entry.prev;
    entry.prev = entry.next = null;
    this.length--;
    this.members.add(entry.order, -1);
  }

  /** A member has neighbours or is the head; an entry being added must be neither. */
  private assertUnlinked(entry: T): void {
    if (entry.prev !== null || entry.next !== null || this.head === entry)
      throw new Error(`entry-list: order ${entry.order} is already linked`);
  }

  /** After the owner renumbered orders: rebuild the index from the (still ordered) links. */
  reindex(capacity: number): void {
    const orders: number[] = [];
    for (let e = this.head; e !== null; e = e.next) orders.push(e.order);
    this.members.rebuild(capacity, orders);
  }
}
