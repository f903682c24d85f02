// Order statistics over queue positions: how many live entries sit at or before
// a given one. It lets the stock linear dedup scan be *counted* exactly without
// being *performed* (issue 3, item 7): a Fenwick tree over insertion ids.

export class PositionIndex {
  private tree: Int32Array;

  constructor(private capacityIds: number) {
    this.tree = new Int32Array(capacityIds + 1);
  }

  get capacity(): number {
    return this.capacityIds;
  }

  /** Marks id live (+1) or dead (-1). */
  add(id: number, delta: 1 | -1): void {
    for (let i = id + 1; i <= this.capacityIds; i += i & -i) this.tree[i] += delta;
  }

  /** Number of live ids in [0, id]. */
  countUpTo(id: number): number {
    let sum = 0;
    for (let i = id + 1; i > 0; i -= i & -i) sum += this.tree[i];
    return sum;
  }

  /** Forgets everything; ids 0..liveCount-1 become live. O(capacity). */
  rebuild(capacityIds: number, liveCount: number): void {
    this.capacityIds = capacityIds;
    this.tree = new Int32Array(capacityIds + 1);
    // Linear-time Fenwick construction from a 0/1 array.
    for (let i = 1; i <= capacityIds; i++) {
      if (i <= liveCount) this.tree[i] += 1;
      const parent = i + (i & -i);
      if (parent <= capacityIds) this.tree[parent] += this.tree[i];
    }
  }
}
