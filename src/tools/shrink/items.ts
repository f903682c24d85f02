// The faults of a candidate as one flat list of items, so whole classes, whole directions and
// single events can be switched off alike: the explicit list's events (drop, duplicate, delay)
// and the configured faults the list does not replace (outages, drop rules, bandwidth cap, slot).
// Each item knows its place: a direction of the shared link, or of one client's (link.clients).
import type { Direction } from '../swarm/index.js';
import { blockAt, placesOf } from './case.js';
import type { Doc, FaultEntry } from './case.js';

export type ItemKind = FaultEntry['action'] | 'outage' | 'rule' | 'bandwidth' | 'slot';
export const ITEM_KINDS: readonly ItemKind[] = ['drop', 'duplicate', 'delay', 'outage', 'rule', 'bandwidth', 'slot'];

export interface Item {
  /** The client whose own block holds it (null: the shared link). */
  readonly client: number | null;
  readonly dir: Direction;
  readonly kind: ItemKind;
  /** A FaultEntry, an outage, a drop rule, or the block's keys of a bandwidth cap or a slot. */
  readonly value: unknown;
}

const BANDWIDTH_KEYS = ['bandwidthBytesPerSecond', 'burstBytes', 'queueLimitPackets'];

export function itemsOf(doc: Doc): Item[] {
  const items: Item[] = [];
  for (const { client, dir } of placesOf(doc)) {
    const block = blockAt(doc, { client, dir });
    for (const f of (block.faults as FaultEntry[] | undefined) ?? [])
      items.push({ client, dir, kind: f.action, value: f });
    for (const o of (block.outages as unknown[] | undefined) ?? [])
      items.push({ client, dir, kind: 'outage', value: o });
    for (const r of (block.drop as unknown[] | undefined) ?? []) items.push({ client, dir, kind: 'rule', value: r });
    if (block.bandwidthBytesPerSecond !== undefined)
      items.push({ client, dir, kind: 'bandwidth', value: pick(block, BANDWIDTH_KEYS) });
    if (block.slotMs !== undefined) items.push({ client, dir, kind: 'slot', value: { slotMs: block.slotMs } });
  }
  return items;
}

/** A copy of `doc` whose faults are exactly `items` (every other link setting kept). */
export function withItems(doc: Doc, items: readonly Item[]): Doc {
  const out = structuredClone(doc);
  for (const place of placesOf(out)) {
    const block = blockAt(out, place);
    const mine = items.filter((i) => i.dir === place.dir && i.client === place.client);
    const of = (kind: ItemKind) => mine.filter((i) => i.kind === kind).map((i) => structuredClone(i.value));
    // Keep the list sorted by datagram, as recorded: easier to read. A place without a list keeps none.
    const events = mine.filter((i) => i.kind === 'drop' || i.kind === 'duplicate' || i.kind === 'delay');
    if (block.faults !== undefined || events.length > 0)
      block.faults = events.map((i) => structuredClone(i.value) as FaultEntry).sort((a, b) => a.datagram - b.datagram);
    setOrDelete(block, 'outages', of('outage'));
    setOrDelete(block, 'drop', of('rule'));
    for (const key of [...BANDWIDTH_KEYS, 'slotMs']) delete block[key];
    for (const v of [...of('bandwidth'), ...of('slot')]) Object.assign(block, v);
  }
  return out;
}

/** Explicit-list events and configured faults, for the before/after report. */
export function countItems(items: readonly Item[]): {
  events: number;
  configured: number;
  byKind: Record<string, number>;
} {
  const byKind: Record<string, number> = {};
  for (const i of items) {
    const key = `${i.kind} ${i.dir === 'clientToServer' ? 'C>S' : 'S>C'}${i.client === null ? '' : ` client ${i.client}`}`;
    byKind[key] = (byKind[key] ?? 0) + 1;
  }
  const events = items.filter((i) => i.kind === 'drop' || i.kind === 'duplicate' || i.kind === 'delay').length;
  return { events, configured: items.length - events, byKind };
}

function pick(block: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (block[k] !== undefined) out[k] = block[k];
  return out;
}

function setOrDelete(block: Record<string, unknown>, key: string, values: unknown[]): void {
  if (values.length > 0) block[key] = values;
  else delete block[key];
}
