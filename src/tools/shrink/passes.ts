// The shrinking passes, cheapest and coarsest first. Each takes the current (failing) document
// and returns a smaller one that still fails the same way, or the same one. Every candidate costs
// one run from the shared budget; a pass stops as soon as the budget is spent.
import { usToSeconds } from '../../core/engine/index.js';
import { ddmin } from './ddmin.js';
import type { Budget } from './ddmin.js';
import { DIRECTIONS, blockAt, placesOf } from './case.js';
import type { Doc, FaultEntry } from './case.js';
import { ITEM_KINDS, itemsOf, withItems } from './items.js';
import type { Item } from './items.js';

export interface Judge {
  readonly budget: Budget;
  /** Runs the candidate and says whether it fails the same way (uncounted: callers take the budget). */
  check(doc: Doc): boolean;
  /** check() for one unit of the budget; false once the budget is spent. */
  fails(doc: Doc): boolean;
}

type Phase = Record<string, unknown> | string;

/** 1. The shortest whole-second duration that still fails (bisection; faults past it are dropped). */
export function bisectDuration(doc: Doc, durationUs: number, judge: Judge): Doc {
  const at = (seconds: number) => cutTo(doc, seconds);
  let lo = 1;
  let hi = Math.ceil(usToSeconds(durationUs));
  let best = doc;
  while (lo < hi && !judge.budget.exhausted) {
    const mid = Math.floor((lo + hi) / 2);
    const candidate = at(mid);
    if (judge.fails(candidate)) {
      hi = mid;
      best = candidate;
    } else lo = mid + 1;
  }
  return best;
}

function cutTo(doc: Doc, seconds: number): Doc {
  const out = structuredClone(doc);
  out.duration = `${seconds}s`;
  // A fault after the end can never fire.
  const items = itemsOf(out).filter((i) => !isEvent(i) || atSeconds((i.value as FaultEntry).at) < seconds);
  return withItems(out, items);
}

/** 2. Whole clients' fault lists, whole directions, then whole classes per direction, switched off. */
export function dropClasses(doc: Doc, judge: Judge): Doc {
  let current = doc;
  const clients = [...new Set(itemsOf(doc).map((i) => i.client))].filter((k): k is number => k !== null);
  const groups: Array<(i: Item) => boolean> = [
    // With several clients: one client's whole list (and its own configured faults), then one direction of it.
    ...(clients.length > 1 ? clients.map((k) => (i: Item) => i.client === k) : []),
    ...(clients.length > 1
      ? clients.flatMap((k) => DIRECTIONS.map((dir) => (i: Item) => i.client === k && i.dir === dir))
      : []),
    ...DIRECTIONS.map((dir) => (i: Item) => i.dir === dir),
    ...DIRECTIONS.flatMap((dir) => ITEM_KINDS.map((kind) => (i: Item) => i.dir === dir && i.kind === kind)),
  ];
  for (const inGroup of groups) {
    if (judge.budget.exhausted) break;
    const items = itemsOf(current);
    if (!items.some(inGroup)) continue;
    const candidate = withItems(
      current,
      items.filter((i) => !inGroup(i)),
    );
    if (judge.fails(candidate)) current = candidate;
  }
  return current;
}

/** 3. ddmin over every remaining fault item (events and configured faults alike). */
export function minimizeFaults(doc: Doc, judge: Judge): Doc {
  const items = itemsOf(doc);
  if (items.length === 0) return doc;
  const kept = ddmin(items, (subset) => judge.check(withItems(doc, subset)), judge.budget);
  return kept.length === items.length ? doc : withItems(doc, kept);
}

/** 4. Traffic, per phase: remove a middle phase, halve a phase's duration, halve its reliable rate. */
export function shrinkTraffic(doc: Doc, judge: Judge): Doc {
  let current = doc;
  const phasesOf = (d: Doc) =>
    ((d.traffic as Record<string, unknown> | undefined)?.phases as Phase[] | undefined) ?? [];
  const withPhases = (d: Doc, phases: Phase[]) => {
    const out = structuredClone(d);
    (out.traffic as Record<string, unknown>).phases = phases;
    return out;
  };
  // The first (the join) and the last (the tail or the disconnect) phase stay.
  for (let i = phasesOf(current).length - 2; i >= 1 && !judge.budget.exhausted; i--) {
    const phases = phasesOf(current);
    const candidate = withPhases(
      current,
      phases.filter((_, j) => j !== i),
    );
    if (judge.fails(candidate)) current = candidate;
  }
  for (let i = 0; i < phasesOf(current).length; i++) {
    for (const key of ['duration', 'reliablePerSecond'] as const) {
      for (let step = 0; step < 8 && !judge.budget.exhausted; step++) {
        const phase = phasesOf(current)[i];
        if (typeof phase !== 'object' || phase[key] === undefined) break;
        // ("measured" and "heavy" are named rates: left as they are.)
        const halved =
          key === 'duration'
            ? halveDuration(phase.duration)
            : typeof phase[key] === 'number'
              ? Math.floor((phase[key] as number) / 2)
              : null;
        if (halved === null) break;
        const phases = [...phasesOf(current)];
        phases[i] = { ...phase, [key]: halved };
        const candidate = withPhases(current, phases);
        if (!judge.fails(candidate)) break;
        current = candidate;
      }
    }
  }
  return current;
}

/** 5. Simpler values: whole-ms or zero delays, default transport parameters, no base latency. */
export function simplifyValues(doc: Doc, judge: Judge): Doc {
  let current = doc;
  const attempt = (edit: (d: Doc) => boolean) => {
    if (judge.budget.exhausted) return;
    const candidate = structuredClone(current);
    if (edit(candidate) && judge.fails(candidate)) current = candidate;
  };
  for (const place of placesOf(current)) {
    const count = ((blockAt(current, place).faults as FaultEntry[] | undefined) ?? []).length;
    for (let k = 0; k < count; k++) {
      const edit = (value: (f: FaultEntry) => number | undefined) => (d: Doc) => {
        const f = (blockAt(d, place).faults as FaultEntry[])[k] as { delayMs?: number } & FaultEntry;
        const next = f.delayMs === undefined ? undefined : value(f);
        if (next === undefined || next === f.delayMs) return false;
        f.delayMs = next;
        return true;
      };
      attempt(edit((f) => (f.action === 'duplicate' ? 0 : undefined)));
      attempt(edit((f) => Math.round(f.delayMs as number)));
    }
    // (A client's block without its own latency has nothing to remove; the shared one is always tried.)
    if (place.client === null || blockAt(current, place).latencyMs !== undefined)
      attempt((d) => delete blockAt(d, place).latencyMs);
  }
  for (const key of Object.keys((current.transport as Record<string, unknown> | undefined) ?? {})) {
    attempt((d) => delete (d.transport as Record<string, unknown>)[key]);
  }
  for (const key of Object.keys((current.mode as Record<string, unknown> | undefined) ?? {})) {
    if (key === 'preset' || key === 'plantedBug') continue;
    attempt((d) => delete (d.mode as Record<string, unknown>)[key]);
  }
  return current;
}

function isEvent(i: Item): boolean {
  return i.kind === 'drop' || i.kind === 'duplicate' || i.kind === 'delay';
}

/** "12.345678s" (formatAt) in seconds. */
function atSeconds(at: string): number {
  return Number(at.slice(0, -1));
}

/** Half a phase duration ("58s", "2m", or seconds as a number), in whole seconds; null below 2 s. */
function halveDuration(value: unknown): string | null {
  const m = typeof value === 'string' ? /^(\d+(?:\.\d+)?)(s|m|h)$/.exec(value) : null;
  const seconds =
    typeof value === 'number' ? value : m ? Number(m[1]) * { s: 1, m: 60, h: 3600 }[m[2] as 's' | 'm' | 'h'] : null;
  if (seconds === null || seconds < 2) return null;
  return `${Math.floor(seconds / 2)}s`;
}
