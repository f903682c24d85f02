// EntryList keeps queue order under arbitrary inserts and removals, and the
// PositionIndex's k-th lookup agrees with a sorted array.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EntryList } from '../../src/core/containers/entry-list.js';
import { PositionIndex } from '../../src/core/containers/position-index.js';

interface Node {
  order: number;
  prev: Node | null;
  next: Node | null;
}

describe('EntryList', () => {
  it('stays sorted by order, whatever the insert and remove order', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 255 }), fc.boolean()), { maxLength: 300 }), (ops) => {
        const nodes: Node[] = Array.from({ length: 256 }, (_, order) => ({ order, prev: null, next: null }));
        const list = new EntryList<Node>(256, (order) => nodes[order]);
        const members = new Set<number>();
        for (const [order, insert] of ops) {
          if (insert && !members.has(order)) {
            list.insertOrdered(nodes[order]);
            members.add(order);
          } else if (!insert && members.has(order)) {
            list.remove(nodes[order]);
            members.delete(order);
          }
        }
        const walked: number[] = [];
        for (let n = list.head; n !== null; n = n.next) walked.push(n.order);
        const expected = [...members].sort((a, b) => a - b);
        expect(walked).toEqual(expected);
        expect(list.length).toBe(expected.length);
        for (const order of [0, 17, 128, 255])
          expect(list.countUpTo(order)).toBe(expected.filter((o) => o <= order).length);
      }),
      { numRuns: 300, seed: 11 },
    );
  });
});

describe('PositionIndex', () => {
  it('kth(k) is the k-th live id', () => {
    const index = new PositionIndex(1000);
    const live = [3, 4, 10, 511, 512, 999];
    for (const id of live) index.add(id, 1);
    live.forEach((id, i) => expect(index.kth(i + 1)).toBe(id));
    index.add(10, -1);
    expect(index.kth(3)).toBe(511);
    index.rebuild(1000, [7, 8]);
    expect(index.countUpTo(7)).toBe(1);
    expect(index.kth(2)).toBe(8);
  });
});
