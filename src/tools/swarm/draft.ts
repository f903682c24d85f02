// The run under construction. Each part of the generator draws from the run's stream and writes
// its settings here; generator.ts renders the result as `--set` overrides. The key order of
// these records is the order of the rendered overrides, so parts must run in a fixed order.
import type { Rng } from './rng.js';
import { DIRECTIONS } from './spec.js';
import type { Block, Direction, FaultCheck } from './spec.js';

export type LinkBlock = Record<string, unknown>;

export interface Draft {
  readonly r: Rng;
  /** Coverage labels. */
  readonly classes: Set<string>;
  /** Faults that must be seen to fire, duplicates allowed (removed when the spec is built). */
  readonly checks: FaultCheck[];
  readonly link: Record<Block, LinkBlock>;
  readonly transport: Record<string, number>;
  readonly mode: Record<string, unknown>;
}

export function newDraft(r: Rng): Draft {
  return {
    r,
    classes: new Set<string>(),
    checks: [],
    link: { both: {}, clientToServer: {}, serverToClient: {} },
    transport: {},
    mode: { preset: 'fixed' },
  };
}

export function directionsOf(block: Block): Direction[] {
  return block === 'both' ? [...DIRECTIONS] : [block];
}

/** Where a link fault goes: both directions half the time. */
export function pickBlock(r: Rng): Block {
  return r.weighted<Block>([
    ['both', 2],
    ['clientToServer', 1],
    ['serverToClient', 1],
  ]);
}

/** Records that a fault configured on `block` (of one client's own links, with `own`) must fire in each of its directions. */
export function expectFault(
  d: Draft,
  fault: Exclude<FaultCheck['fault'], 'giveUp'>,
  block: Block,
  own?: { client: number },
): void {
  for (const direction of directionsOf(block))
    d.checks.push(own === undefined ? { fault, direction } : { fault, direction, client: own.client });
}

export function dedupeChecks(checks: readonly FaultCheck[]): FaultCheck[] {
  const seen = new Set<string>();
  return checks.filter((c) => {
    const key = c.fault === 'giveUp' ? `giveUp:${c.peer}` : `${c.fault}:${c.direction}:${c.client ?? 'all'}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
