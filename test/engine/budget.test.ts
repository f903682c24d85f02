// A counted limit: what is held, the most ever held, and what was refused.
import { describe, expect, it } from 'vitest';
import { Budget } from '../../src/core/engine/index.js';

describe('Budget', () => {
  it('takes what fits, counts what does not with its size, and keeps the peak', () => {
    const b = new Budget(10, 'b');
    expect(b.take(6)).toBe(true);
    expect(b.fits(4)).toBe(true);
    expect(b.take(6)).toBe(false);
    expect(b.take(1, false)).toBe(false);
    expect([b.used, b.peak, b.refused, b.refusedAmount]).toEqual([6, 6, 2, 7]);
    b.give(6);
    expect(b.take(10)).toBe(true);
    b.give(10);
    expect([b.used, b.peak]).toEqual([0, 10]);
  });

  it('refuses a limit that is not a whole number, 0 or more, and a give of more than was taken', () => {
    expect(() => new Budget(-1, 'b')).toThrow(/b: the limit must be a whole number, 0 or more/);
    expect(() => new Budget(1.5, 'b')).toThrow(/whole number/);
    const none = new Budget(0, 'none');
    expect(none.take(1)).toBe(false);
    expect(none.take(0)).toBe(true);
    const b = new Budget(10, 'b');
    b.take(6);
    b.give(6);
    expect(() => b.give(1)).toThrow(/b: gave back more than was taken/);
  });
});
