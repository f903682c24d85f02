// Delta debugging (Zeller and Hildebrandt, "Simplifying and Isolating Failure-Inducing Input",
// 2002): the smallest subset of `items` for which `fails` still holds, 1-minimal when the budget
// allows. `fails` is never called on the full list (the caller knows it fails) nor twice on the
// same subset. The work is capped by a shared Budget of predicate calls.

export class Budget {
  used = 0;
  constructor(readonly max: number) {}

  get exhausted(): boolean {
    return this.used >= this.max;
  }

  /** Takes one run from the budget; false when none is left. */
  take(): boolean {
    if (this.exhausted) return false;
    this.used++;
    return true;
  }
}

/**
 * Returns a subset of `items` (in their order) that still fails. `fails` must be deterministic.
 * With an exhausted budget it returns the smallest failing subset found so far.
 */
export function ddmin<T>(items: readonly T[], fails: (subset: readonly T[]) => boolean, budget: Budget): T[] {
  let current = [...items];
  if (current.length === 0) return current;
  const seen = new Map<string, boolean>();
  // Subsets are keyed by the positions they keep in `items`.
  const index = new Map<T, number>(items.map((item, i) => [item, i]));
  const test = (subset: readonly T[]): boolean => {
    const key = subset.map((x) => index.get(x)).join(',');
    const known = seen.get(key);
    if (known !== undefined) return known;
    if (!budget.take()) return false;
    const result = fails(subset);
    seen.set(key, result);
    return result;
  };

  // An empty subset first: when no item is needed, the answer is [] at the cost of one run.
  if (test([])) return [];
  let n = 2;
  while (current.length >= 2 && !budget.exhausted) {
    const chunks = split(current, n);
    let reduced = false;
    for (const chunk of chunks) {
      if (test(chunk)) {
        current = chunk;
        n = 2;
        reduced = true;
        break;
      }
    }
    if (!reduced && n > 2) {
      for (let i = 0; i < chunks.length; i++) {
        const complement = chunks.filter((_, j) => j !== i).flat();
        if (test(complement)) {
          current = complement;
          n = Math.max(n - 1, 2);
          reduced = true;
          break;
        }
      }
    }
    if (!reduced) {
      if (n >= current.length) break;
      n = Math.min(n * 2, current.length);
    }
  }
  return current;
}

/** `items` in n nearly equal consecutive chunks. */
function split<T>(items: readonly T[], n: number): T[][] {
  const out: T[][] = [];
  let start = 0;
  for (let i = 0; i < n; i++) {
    const end = start + Math.floor((items.length - start) / (n - i));
    out.push(items.slice(start, end));
    start = end;
  }
  return out.filter((c) => c.length > 0);
}
