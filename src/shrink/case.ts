// A shrink candidate: a scenario document (plain JSON, as a scenario file holds it) with every
// link fault spelled out per direction. Candidates are built by editing the document, so the
// shrunk result is simply the last accepted document, written out as the scenario file.
import { readFileSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { BUILTIN_DIR, parseScenario } from '../scenario/load.js';
import { applySet, parseSet } from '../scenario/overrides.js';
import type { Scenario } from '../scenario/scenario.js';
import type { LinkFault } from '../link/config.js';
import type { Direction } from '../swarm/spec.js';

export type Doc = Record<string, unknown>;
export type LinkDoc = Record<string, unknown>;

/** One explicit fault as the scenario file writes it. */
export interface FaultEntry {
  readonly at: string;
  readonly datagram: number;
  readonly action: LinkFault['action'];
  readonly delayMs?: number;
}

/** The random processes a fault list replaces: stripped from a candidate, whose list decides instead. */
const RANDOM_KEYS = ['loss', 'gilbertElliott', 'duplicate', 'duplicateDelayMs', 'jitter', 'jitterMs', 'reorder', 'reorderGap'];

export const DIRECTIONS: readonly Direction[] = ['clientToServer', 'serverToClient'];

/** The document `bcsim run <base> --mode M --seed N --set …` runs, with the mode and seed written in. */
export function documentOf(base: string, preset: string, seed: number, sets: readonly string[], cwd: string): Doc {
  const looksLikePath = base.includes('/') || base.includes('\\') || base.endsWith('.json');
  const file = looksLikePath ? resolvePath(cwd, base) : resolvePath(BUILTIN_DIR, `${base}.json`);
  const doc = JSON.parse(readFileSync(file, 'utf8')) as Doc;
  for (const raw of sets) {
    const override = parseSet(raw);
    if (override.path[0] === 'mode' && override.path.length > 1 && typeof doc.mode !== 'object') doc.mode = { preset: doc.mode ?? 'stock' };
    applySet(doc, override);
  }
  const mode = typeof doc.mode === 'object' && doc.mode !== null ? (doc.mode as Doc) : {};
  doc.mode = { ...mode, preset };
  doc.seed = seed;
  return doc;
}

export function cloneDoc(doc: Doc): Doc {
  return structuredClone(doc);
}

/** The direction blocks of the (single-client) link, `both` merged in, so each fault has one home. */
export function normalizeLink(doc: Doc): void {
  const link = (doc.link ?? {}) as Record<string, LinkDoc | undefined>;
  if (link.clients !== undefined) throw new Error('per-client link blocks (link.clients) are not supported by shrink');
  const both = link.both ?? {};
  const out: Record<string, LinkDoc> = {};
  for (const d of DIRECTIONS) {
    const own = link[d] ?? {};
    const merged: LinkDoc = { ...both, ...own };
    // A direction's own loss model replaces the shared one (resolve.ts mergeLink).
    if (own.loss !== undefined) delete merged.gilbertElliott;
    if (own.gilbertElliott !== undefined) delete merged.loss;
    out[d] = merged;
  }
  doc.link = out;
}

export function linkOf(doc: Doc, d: Direction): LinkDoc {
  return (doc.link as Record<Direction, LinkDoc>)[d];
}

/** Replaces the random processes of each direction by its explicit list. */
export function setFaults(doc: Doc, faults: Record<Direction, readonly FaultEntry[]>): void {
  for (const d of DIRECTIONS) {
    const block = linkOf(doc, d);
    for (const key of RANDOM_KEYS) delete block[key];
    block.faults = faults[d].map((f) => ({ ...f }));
  }
}

export function faultsOf(doc: Doc, d: Direction): FaultEntry[] {
  return (linkOf(doc, d).faults as FaultEntry[] | undefined) ?? [];
}

/** "12.345678s": exact to the microsecond. */
export function formatAt(us: number): string {
  return `${us / 1e6}s`;
}

export function toEntry(f: LinkFault): FaultEntry {
  return f.delayMs === undefined ? { at: formatAt(f.atUs), datagram: f.datagram, action: f.action } : { at: formatAt(f.atUs), datagram: f.datagram, action: f.action, delayMs: f.delayMs };
}

export function loadDoc(doc: Doc, label: string): Scenario {
  return parseScenario(JSON.stringify(doc), label);
}

/** Duration of the document in µs (the schema's own parser, through a parse). */
export function durationUsOf(doc: Doc): number {
  return loadDoc(doc, 'candidate').durationUs;
}
