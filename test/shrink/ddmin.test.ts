// ddmin on toy predicates: it finds the 1-minimal failing subset, never tests the
// same subset twice and stops when the budget is spent.
import { describe, expect, it } from 'vitest';
import { Budget, ddmin } from '../../src/tools/shrink/ddmin.js';

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('ddmin', () => {
  it('reduces 1000 items to the 3 that together make the predicate fail', () => {
    const needed = [17, 503, 901];
    const calls: string[] = [];
    const fails = (s: readonly number[]) => {
      calls.push(s.join(','));
      return needed.every((x) => s.includes(x));
    };
    const budget = new Budget(10_000);
    expect(ddmin(range(1000), fails, budget)).toEqual(needed);
    expect(new Set(calls).size).toBe(calls.length);
    expect(budget.used).toBe(calls.length);
    expect(budget.used).toBeLessThan(200);
  });

  it('returns [] when nothing is needed, after one run', () => {
    const budget = new Budget(10);
    expect(ddmin(range(50), () => true, budget)).toEqual([]);
    expect(budget.used).toBe(1);
  });

  it('finds a single culprit, and a 1-minimal pair when two interact', () => {
    expect(ddmin(range(64), (s) => s.includes(40), new Budget(1000))).toEqual([40]);
    expect(ddmin(range(64), (s) => s.includes(3) && s.includes(60), new Budget(1000))).toEqual([3, 60]);
  });

  it('stops when the budget is spent and returns a failing subset', () => {
    const needed = [5, 50, 400];
    const fails = (s: readonly number[]) => needed.every((x) => s.includes(x));
    const budget = new Budget(6);
    const kept = ddmin(range(1000), fails, budget);
    expect(budget.used).toBe(6);
    expect(fails(kept)).toBe(true);
    expect(kept.length).toBeLessThanOrEqual(500);
  });
});
