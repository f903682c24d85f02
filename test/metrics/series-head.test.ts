// The head window: a series' first seconds kept one bucket a second however
// long the run, so a report can zoom on the join of a 4 h run.
import { describe, expect, it } from 'vitest';
import { Series } from '../../src/model/metrics/series.js';

describe('Series head window', () => {
  it('keeps exactly the first headS seconds at the base width, past many halvings', () => {
    const s = new Series(100, 1, 60);
    for (let t = 0; t < 14_400; t++) s.add(t, t === 7 ? 3 : 0, t === 42 ? 4169 : 0);
    expect(s.bucketWidth).toBeGreaterThan(60);
    const head = s.head();
    expect(head.map((b) => b.t)).toEqual(Array.from({ length: 60 }, (_, t) => t));
    expect(head.every((b) => b.width === 1 && b.count === 1)).toBe(true);
    expect(head[7].mean).toBe(3);
    expect(head[42].max).toBe(4169);
    // The decimated series merged both into its first bucket.
    expect(s.points()[0].max).toBe(4169);
  });

  it('is empty without a head, and crosses a snapshot whole', () => {
    const plain = new Series(4);
    plain.add(0, 1);
    expect(plain.head()).toEqual([]);
    const s = new Series(4, 1, 3);
    for (let t = 0; t < 10; t++) s.add(t, t);
    const copy = Series.fromSnapshot(s.snapshot());
    expect(copy.head()).toEqual(s.head());
    expect(copy.head().map((b) => b.mean)).toEqual([0, 1, 2]);
    expect(copy.points()).toEqual(s.points());
  });
});
