// A shrink candidate: a scenario document (plain JSON, as a scenario file holds it) with every
// link fault spelled out per direction. Candidates are built by editing the document, so the
// shrunk result is simply the last accepted document, written out as the scenario file.
import { usToSeconds } from '../../core/engine/index.js';
import { readFileSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import {
  BUILTIN_DIR,
  looksLikePath,
  parseScenario,
  applySet,
  parseSet,
  withoutByteOrderMark,
} from '../../model/scenario/index.js';
import type { Scenario } from '../../model/scenario/index.js';
import type { LinkFault } from '../../model/link/index.js';
import type { Direction } from '../swarm/index.js';

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
const RANDOM_KEYS = [
  'loss',
  'gilbertElliott',
  'duplicate',
  'duplicateDelayMs',
  'jitter',
  'jitterMs',
  'reorder',
  'reorderGap',
];

export const DIRECTIONS: readonly Direction[] = ['clientToServer', 'serverToClient'];

/** The document `bcsim run <base> --mode M --seed N --set …` runs, with the mode and seed written in. */
export function documentOf(base: string, preset: string, seed: number, sets: readonly string[], cwd: string): Doc {
  const file = looksLikePath(base) ? resolvePath(cwd, base) : resolvePath(BUILTIN_DIR, `${base}.json`);
  const doc = JSON.parse(withoutByteOrderMark(readFileSync(file, 'utf8'))) as Doc;
  for (const raw of sets) {
    const override = parseSet(raw);
    if (override.path[0] === 'mode' && override.path.length > 1 && typeof doc.mode !== 'object')
      doc.mode = { preset: doc.mode ?? 'stock' };
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

/** The clients of a document (its `clients`, default 1). */
function clientCount(doc: Doc): number {
  return typeof doc.clients === 'number' ? doc.clients : 1;
}

/** Where a link setting lives: a direction of the shared link (client null) or of link.clients["k"]. */
export interface Place {
  readonly client: number | null;
  readonly dir: Direction;
}

/** Direction blocks only, `both` merged into each, as resolve.ts merges a direction over `both`. */
function mergeBoth(link: Record<string, LinkDoc | undefined>): Record<Direction, LinkDoc> {
  const both = link.both ?? {};
  const out = {} as Record<Direction, LinkDoc>;
  for (const d of DIRECTIONS) {
    const own = link[d] ?? {};
    const merged: LinkDoc = { ...both, ...own };
    // A direction's own loss model replaces the shared one (resolve.ts mergeLink).
    if (own.loss !== undefined) delete merged.gilbertElliott;
    if (own.gilbertElliott !== undefined) delete merged.loss;
    out[d] = merged;
  }
  return out;
}

/**
 * The direction blocks of the shared link and of every client's own link (link.clients["k"]),
 * `both` merged in, so each fault has one home. A multi-client document gets a block per client,
 * which will hold that client's recorded list.
 */
export function normalizeLink(doc: Doc): void {
  const link = (doc.link ?? {}) as Record<string, unknown>;
  const out: Record<string, unknown> = mergeBoth(link as Record<string, LinkDoc | undefined>);
  const own = link.clients as Record<string, Record<string, LinkDoc | undefined>> | undefined;
  if (own !== undefined || clientCount(doc) > 1) {
    const clients: Record<string, Record<Direction, LinkDoc>> = {};
    for (let k = 1; k <= clientCount(doc); k++) clients[String(k)] = mergeBoth(own?.[String(k)] ?? {});
    out.clients = clients;
  }
  doc.link = out;
}

/** Every place of the document: the shared directions, then each client's. */
export function placesOf(doc: Doc): Place[] {
  const places: Place[] = DIRECTIONS.map((dir) => ({ client: null, dir }));
  const clients = (doc.link as Record<string, unknown>).clients as Record<string, unknown> | undefined;
  for (const key of Object.keys(clients ?? {}).sort((a, b) => Number(a) - Number(b)))
    for (const dir of DIRECTIONS) places.push({ client: Number(key), dir });
  return places;
}

export function blockAt(doc: Doc, place: Place): LinkDoc {
  const link = doc.link as Record<string, unknown>;
  if (place.client === null) return (link as Record<Direction, LinkDoc>)[place.dir];
  return (link.clients as Record<string, Record<Direction, LinkDoc>>)[String(place.client)][place.dir];
}

/**
 * Replaces the random processes by the explicit lists, `recorded[k - 1]` being client k's: in
 * the shared blocks for a one-client document (so it keeps its shape), else in
 * link.clients["k"] for every client.
 */
export function setFaults(doc: Doc, recorded: ReadonlyArray<Record<Direction, readonly FaultEntry[]>>): void {
  const perClient = (doc.link as Record<string, unknown>).clients !== undefined;
  for (const place of placesOf(doc)) {
    const block = blockAt(doc, place);
    for (const key of RANDOM_KEYS) delete block[key];
    delete block.faults;
    const list =
      place.client === null ? (perClient ? undefined : recorded[0][place.dir]) : recorded[place.client - 1][place.dir];
    if (list !== undefined) block.faults = list.map((f) => ({ ...f }));
  }
}

/** "12.345678s": exact to the microsecond. */
function formatAt(us: number): string {
  return `${usToSeconds(us)}s`;
}

export function toEntry(f: LinkFault): FaultEntry {
  return f.delayMs === undefined
    ? { at: formatAt(f.atUs), datagram: f.datagram, action: f.action }
    : { at: formatAt(f.atUs), datagram: f.datagram, action: f.action, delayMs: f.delayMs };
}

export function loadDoc(doc: Doc, label: string): Scenario {
  return parseScenario(JSON.stringify(doc), label);
}

/** Duration of the document in µs (the schema's own parser, through a parse). */
export function durationUsOf(doc: Doc): number {
  return loadDoc(doc, 'candidate').durationUs;
}
