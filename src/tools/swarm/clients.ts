// Multi-player runs: how many clients a run has, and one client's own link
// faults (link.clients["k"]). Drawn from a second stream per (generator seed, index), so the main
// stream's draws, and with them every one-client run, are exactly what they were before.
import { expectFault, pickBlock } from './draft.js';
import type { Draft, LinkBlock } from './draft.js';
import { Rng } from './rng.js';
import type { Block } from './spec.js';

/** Client k starts its join (k - 1) x this after the join phase starts (the scenario default). */
const JOIN_STAGGER_MS = 2_000;
/** Multi-player runs stay at combat rates up to this (the relay multiplies every connection's load). */
export const MULTI_MAX_RATE = 60;

/** The sub-stream of one run: the same mixing as runRng, another constant. */
export function clientRng(generatorSeed: number, index: number): Rng {
  let h = Math.imul(generatorSeed ^ 0x2545f491, 0x9e3779b1) ^ Math.imul(index + 1, 0x27d4eb2f);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  return new Rng(h >>> 0);
}

/** 2..4 with probability 0.42, else 1; only runs at up to MULTI_MAX_RATE keep it (~30 % of all runs). */
export function drawClientCount(c: Rng): number {
  return c.chance(0.42) ? c.int(2, 4) : 1;
}

/** The join of the last client starts this long after the first. */
export function staggerMs(clients: number): number {
  return (clients - 1) * JOIN_STAGGER_MS;
}

export interface OwnFaults {
  readonly client: number;
  readonly block: Block;
  readonly values: LinkBlock;
  /** Loss a join datagram of that client sees, and its jitter bound (for the join's allowance). */
  readonly joinLoss: number;
  readonly jitterMs: number;
}

export interface OwnInputs {
  readonly clients: number;
  /** Loss is allowed (not in give-up runs: it could exhaust the retries before the outage). */
  readonly lossAllowed: boolean;
  readonly floor: number;
}

/**
 * With probability 0.6, one client gets its own loss, duplication or jitter on one block. A
 * field it sets replaces the shared one for that client (resolve.ts), always by the same kind
 * of fault, so the shared faults' checks still hold on its links.
 */
export function drawOwnFaults(d: Draft, c: Rng, o: OwnInputs): OwnFaults | null {
  if (o.clients < 2 || !c.chance(0.6)) return null;
  const client = c.int(1, o.clients);
  const block = pickBlock(c);
  const kind = c.weighted([
    ['loss', o.lossAllowed ? 2 : 0],
    ['duplicate', 1],
    ['jitter', 1],
  ] as const);
  const values: LinkBlock = {};
  let joinLoss = 0;
  let jitterMs = 0;
  const check = { client };
  if (kind === 'loss') {
    values.loss = joinLoss = c.float(Math.max(o.floor, 0.03), 0.12);
    expectFault(d, 'loss', block, check);
  } else if (kind === 'duplicate') {
    values.duplicate = c.float(Math.max(o.floor, 0.03), 0.12);
    expectFault(d, 'duplicate', block, check);
  } else {
    values.jitterMs = jitterMs = c.int(130, 300);
    values.jitter = c.pick(['uniform', 'normal', 'exponential']);
    expectFault(d, 'reorder', block, check);
  }
  d.classes.add('per-client link faults');
  return { client, block, values, joinLoss, jitterMs };
}

/** The `--set` overrides of the client count and a client's own block. */
export function clientSets(clients: number, own: OwnFaults | null): string[] {
  if (clients === 1) return [];
  const sets = [`clients=${clients}`];
  if (own !== null)
    for (const [key, value] of Object.entries(own.values))
      sets.push(`link.clients.${own.client}.${own.block}.${key}=${JSON.stringify(value)}`);
  return sets;
}
