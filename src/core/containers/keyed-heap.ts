// A binary min-heap of nodes ordered by (key, tie), with O(log n) removal and
// re-keying through the position each node keeps. The retransmit queue uses it
// so that an update visits only the entries that are due.

export interface HeapNode<T> {
  key: number;
  /** Breaks ties in key: lower first (queue order). */
  tie: number;
  /** Index in its heap, or -1 when in none. */
  pos: number;
  readonly item: T;
}

export function heapNode<T>(item: T): HeapNode<T> {
  return { key: 0, tie: 0, pos: -1, item };
}

export class KeyedHeap<T> {
  private readonly nodes: HeapNode<T>[] = [];

  get size(): number {
    return this.nodes.length;
  }

  peek(): HeapNode<T> | undefined {
    return this.nodes[0];
  }

  push(node: HeapNode<T>, key: number, tie: number): void {
    if (node.pos !== -1) throw new Error('keyed-heap: node is already in a heap');
    // A NaN key or tie compares false both ways and would break the heap order silently.
    if (Number.isNaN(key) || Number.isNaN(tie)) throw new Error('keyed-heap: NaN key');
    node.key = key;
    node.tie = tie;
    node.pos = this.nodes.length;
    this.nodes.push(node);
    this.siftUp(node.pos);
  }

  pop(): HeapNode<T> | undefined {
    const top = this.nodes[0];
    if (top !== undefined) this.remove(top);
    return top;
  }

  remove(node: HeapNode<T>): void {
    const at = node.pos;
    if (at < 0 || this.nodes[at] !== node) throw new Error('keyed-heap: node is not in this heap');
    const last = this.nodes.pop() as HeapNode<T>;
    node.pos = -1;
    if (last === node) return;
    this.nodes[at] = last;
    last.pos = at;
    this.siftUp(at);
    this.siftDown(last.pos);
  }

  /** Every node, in no particular order (clearing). */
  drain(): HeapNode<T>[] {
    const all = this.nodes.splice(0);
    for (const node of all) node.pos = -1;
    return all;
  }

  private siftUp(at: number): void {
    const nodes = this.nodes;
    const node = nodes[at];
    while (at > 0) {
      const parentAt = (at - 1) >> 1;
      const parent = nodes[parentAt];
      if (before(parent, node)) break;
      nodes[at] = parent;
      parent.pos = at;
      at = parentAt;
    }
    nodes[at] = node;
    node.pos = at;
  }

  private siftDown(at: number): void {
    const nodes = this.nodes;
    const n = nodes.length;
    const node = nodes[at];
    for (;;) {
      let child = 2 * at + 1;
      if (child >= n) break;
      if (child + 1 < n && before(nodes[child + 1], nodes[child])) child++;
      if (before(node, nodes[child])) break;
      nodes[at] = nodes[child];
      nodes[at].pos = at;
      at = child;
    }
    nodes[at] = node;
    node.pos = at;
  }
}

function before<T>(a: HeapNode<T>, b: HeapNode<T>): boolean {
  return a.key < b.key || (a.key === b.key && a.tie < b.tie);
}
