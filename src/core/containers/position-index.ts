// Order statistics over queue positions: how many live entries sit at or before
// a given one, and which entry is the k-th. It lets the stock linear dedup scan
// be *counted* exactly without being *performed*, and keeps
// ordered inserts O(log n). A Fenwick tree over insertion ids.

export class PositionIndex {
  private tree: Int32Array;

  constructor(private capacityIds: number) {
    if (!(Number.isInteger(capacityIds) && capacityIds >= 1))
      throw new Error(`position-index: capacity ${capacityIds} is not a positive integer`);
    this.tree = new Int32Array(capacityIds + 1);
  }

  get capacity(): number {
    return this.capacityIds;
  }

  /** Marks id live (+1) or dead (-1). */
  add(id: number, delta: 1 | -1): void {
    // Out of range, the loop below would do nothing: a silently lost entry.
    if (!(id >= 0 && id < this.capacityIds))
      throw new Error(`position-index: id ${id} outside 0..${this.capacityIds - 1}`);
    for (let i = id + 1; i <= this.capacityIds; i += i & -i) this.tree[i] += delta;
  }

  /** Number of live ids in [0, id]; 0 for id < 0. */
  countUpTo(id: number): number {
    let sum = 0;
    for (let i = Math.min(id, this.capacityIds - 1) + 1; i > 0; i -= i & -i) sum += this.tree[i];
    return sum;
  }

  /** The id of the k-th live id (1-based k), by Fenwick descent in O(log n). */
  kth(k: number): number {
    if (!(k >= 1)) throw new Error(`position-index: kth(${k}) needs k >= 1`);
    const wanted = k;
    let pos = 0;
    let step = 1;
    while (step * 2 <= this.capacityIds) step *= 2;
    for (; step > 0; step >>= 1) {
      const next = pos + step;
      if (next <= this.capacityIds && this.tree[next] < k) {
        pos = next;
        k -= this.tree[next];
      }
    }
    // pos is the largest tree position whose prefix holds fewer than k ids, so the
    // k-th sits at tree position pos + 1, which is id pos.
    if (pos >= this.capacityIds) throw new Error(`position-index: kth(${wanted}) past the live ids`);
    return pos;
  }

  /** Forgets everything; exactly the given ids become live. O(capacity). */
  rebuild(capacityIds: number, liveIds: Iterable<number>): void {
    this.capacityIds = capacityIds;
    this.tree = new Int32Array(capacityIds + 1);
    for (const id of liveIds) {
      if (!(id >= 0 && id < capacityIds)) throw new Error(`position-index: id ${id} outside 0..${capacityIds - 1}`);
      this.tree[id + 1] += 1;
    }
    // Linear-time Fenwick construction from the 0/1 array.
    for (let i = 1; i <= capacityIds; i++) {
      const parent = i + (i & -i);
      if (parent <= capacityIds) this.tree[parent] += this.tree[i];
    }
  }
}
