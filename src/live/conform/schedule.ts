// The order a campaign runs its cases in: side by side within a budget of
// sessions (each session holds one player slot of the server), longest first;
// a case that makes the server send to every player runs alone, after the rest.
// The first case starts alone: the others wait until the server first answers.
import type { ConformCase } from './case-types.js';

/** The cases in the order they start: shared ones by sessions, most first; exclusive ones last. */
export function startOrder(cases: readonly ConformCase[]): ConformCase[] {
  const shared = cases.filter((c) => !c.exclusive).sort((a, b) => b.sessions - a.sessions);
  return [...shared, ...cases.filter((c) => c.exclusive)];
}

/**
 * Runs `items` in that order with at most `budget` sessions open at once; an
 * exclusive item waits until nothing else runs, and nothing starts beside it.
 * After starting the first, `gate` decides whether the rest run.
 */
export async function runScheduled(
  items: readonly ConformCase[],
  budget: number,
  run: (c: ConformCase) => Promise<void>,
  gate: (first: Promise<void>) => Promise<boolean>,
  /** True once nothing more should start (the cases left are the caller's to report). */
  stopped: () => boolean = () => false,
): Promise<void> {
  let free = budget;
  let alone = false;
  const running = new Set<Promise<void>>();
  const pending = [...items];
  let gated = false;
  while (pending.length > 0 || running.size > 0) {
    if (stopped()) pending.length = 0;
    const next: number = alone ? -1 : pending.findIndex((c) => (c.exclusive ? running.size === 0 : c.sessions <= free));
    if (next >= 0) {
      const c: ConformCase = pending.splice(next, 1)[0];
      free -= c.sessions;
      alone = c.exclusive === true;
      const p: Promise<void> = run(c).finally(() => {
        free += c.sessions;
        if (c.exclusive) alone = false;
        running.delete(p);
      });
      running.add(p);
      if (!gated) {
        gated = true;
        if (!(await gate(p))) pending.length = 0;
      }
      continue;
    }
    if (running.size > 0) await Promise.race(running);
  }
}
