// IntMap against a JS Map as the model, under random churn.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IntMap } from '../../src/core/containers/int-map.js';

type Op = { kind: 'set' | 'delete' | 'get'; key: number };

describe('IntMap', () => {
  it('agrees with Map under any sequence of set, delete and get', () => {
    // Keys from a small range force collisions, long probe runs and backward shifts.
    const op = fc.record({
      kind: fc.constantFrom<Op['kind']>('set', 'delete', 'get'),
      key: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 0x7fffffff })),
    });
    fc.assert(
      fc.property(fc.array(op, { minLength: 50, maxLength: 400, size: 'max' }), (ops) => {
        const map = new IntMap<number>();
        const model = new Map<number, number>();
        ops.forEach(({ kind, key }, i) => {
          if (kind === 'set') {
            map.set(key, i);
            model.set(key, i);
          } else if (kind === 'delete') {
            expect(map.delete(key)).toBe(model.delete(key));
          }
          expect(map.get(key)).toBe(model.get(key));
          expect(map.size).toBe(model.size);
        });
        expect(new Map(map.entries())).toEqual(model);
        for (const [key, value] of model) expect(map.get(key)).toBe(value); // every key still reachable by probing
      }),
      { numRuns: 300 },
    );
  });

  it('keeps working across growth, and empties cleanly', () => {
    const map = new IntMap<string>();
    for (let k = 0; k < 5000; k++) map.set(k * 65536, `v${k}`); // keys sharing low bits
    expect(map.size).toBe(5000);
    expect(map.get(4999 * 65536)).toBe('v4999');
    for (let k = 0; k < 5000; k++) expect(map.delete(k * 65536)).toBe(true);
    expect(map.size).toBe(0);
    expect(map.get(0)).toBeUndefined();
  });

  it('refuses keys it cannot store and undefined values', () => {
    const map = new IntMap<number>();
    expect(() => map.set(-1, 1)).toThrow(/non-negative int32/);
    expect(() => map.set(1.5, 1)).toThrow(/non-negative int32/);
    expect(() => map.set(2 ** 31, 1)).toThrow(/non-negative int32/);
    expect(() => map.set(1, undefined as unknown as number)).toThrow(/undefined/);
  });
});
