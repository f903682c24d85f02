// The run summary, schema bcsim.summary/1. Field names are a
// contract: add fields, never rename them.
import { newLinkCounters } from '../link/index.js';
import type { DropCause, LinkCounters } from '../link/index.js';
import { COUNTER_SCHEMA, counterRow, peakCounter } from '../transport/index.js';
import type {
  CounterRow,
  FigureName,
  GaugeName,
  PeakRateName,
  PeerGauges,
  PeerReadout,
  TransportSwitches,
} from '../transport/index.js';
import type { DeliveryStats } from './ledger.js';

import type { EffectiveSettings } from './settings.js';

export const SUMMARY_SCHEMA = 'bcsim.summary/1';

interface Gauge {
  final: number;
  max: number;
}

type SchemaRow = (typeof COUNTER_SCHEMA)[number];
type SummaryPath = SchemaRow extends infer R
  ? R extends { summary: infer P extends string }
    ? P
    : R extends { summary: true; name: infer N extends string }
      ? N
      : never
  : never;
type TopKey<P> = P extends `${infer G}.${string}` ? G : P;
type FieldsOf<G extends string> = SummaryPath extends infer P ? (P extends `${G}.${infer F}` ? F : never) : never;

/**
 * A peer's figures in the summary, one per row of the counter schema
 * (src/model/transport/counter-schema.ts) with a summary place, in the schema's
 * order: a gauge is {final, max}, a count or maximum a number, and the
 * `dedupComparisons` group an object of its rows' fields.
 */
type PeerFigures = {
  [K in TopKey<SummaryPath>]: K extends GaugeName
    ? Gauge
    : [FieldsOf<K>] extends [never]
      ? number
      : { [F in FieldsOf<K>]: number };
};

export type PeerSummary = PeerFigures & { state: string };

/** Names of the figures a summary holds or derives: every schema row with a summary place, and the ratios. */
type SummaryFigureName = Extract<SchemaRow, { summary: true | `${string}.${string}` } | { kind: 'ratio' }>['name'];

/**
 * A figure of a peer summary, as the report tables name it: a gauge's
 * `<name>.final` or `<name>.max`, or any other figure's name.
 */
export type FigureRef = `${GaugeName}.${keyof Gauge}` | Exclude<SummaryFigureName, GaugeName>;

/** One peer of one connection: the client itself, or the server's state for that client. */
export interface ConnectionSummary extends PeerSummary {
  /** The client's number in the scenario (1-based). */
  client: number;
  /** The slot the server assigned; null if the client never connected. */
  slot: number | null;
}

export interface ServerSummary extends PeerSummary {
  connections: Record<string, ConnectionSummary>;
}

export interface ClientLinksSummary {
  client: number;
  clientToServer: LinkSummary;
  serverToClient: LinkSummary;
}

export interface SessionSummary {
  clients: number;
  /** Clients the server accepted. */
  connected: number;
  /** Boot messages the server queued (one per remaining peer for each peer that timed out). */
  bootsSent: number;
  /** Datagrams from a client the server did not hold (never connected, or already removed). */
  strayDatagrams: number;
  /** Player messages the server relayed to the other players. */
  relayedMessages: number;
}

/**
 * The key of a connection in `peers.server.connections`, `peers.clients` and
 * `links.clients`: its slot, or "client<k>" for a client that never connected.
 */
export function connectionKey(client: number, slot: number | null): string {
  return slot === null ? `client${client}` : String(slot);
}

export interface LinkSummary {
  sent: number;
  delivered: number;
  dropped: number;
  duplicated: number;
  droppedBy: Record<DropCause, number>;
  messagesDropped: number;
  reordered: number;
  /** Datagrams the token bucket made wait, and arrivals the slot grid moved later. */
  bucketDelayed: number;
  slotDelayed: number;
  bytesSent: number;
  bytesDelivered: number;
}

export interface Summary {
  schema: typeof SUMMARY_SCHEMA;
  version: string;
  scenario: string;
  mode: string;
  switches: TransportSwitches;
  seed: number;
  simulatedSeconds: number;
  traceHash: string;
  datagrams: number;
  events: number;
  /**
   * `server` is the server's total over its connections and `client` the clients'
   * total; with one client they are exactly its connection's two
   * peers. `server.connections` and `clients` hold each connection's peers by slot.
   */
  peers: { server: ServerSummary; client: PeerSummary; clients: Record<string, ConnectionSummary> };
  /** Who connected, and what the server did as a host. */
  session: SessionSummary;
  /**
   * The ledger's counts, plus `latencyMs.{low,high}`: send-to-delivery
   * latency {count, p50, p99, max} per sequence category, and `anomalies`:
   * {counts, list, truncated}, every lost, swallowed, duplicated or out-of-order
   * reliable message counted, the earliest of each kind listed with seq and times.
   */
  delivery: Omit<DeliveryStats, never>;
  /** Totals over every client's links; `clients` has each client's two links by slot. */
  links: { clientToServer: LinkSummary; serverToClient: LinkSummary; clients: Record<string, ClientLinksSummary> };
  /** Preset, every switch and parameter after overrides, the --set list and a rerun command. */
  settings: EffectiveSettings;
}

/**
 * `sampledPeaks`: for a total over several peers, its gauges' peaks as sampled
 * once a second; the maxima are never below any single peer's exact peak.
 * The figures and their order come from the counter schema.
 */
export function summarizePeer(
  peer: PeerReadout,
  maxDedupPerSecond: number,
  sampledPeaks?: Readonly<PeerGauges>,
): PeerSummary {
  const c = peer.counters;
  const g = peer.gauges();
  // The per-second peaks the session measures (PeakTally): one so far; another peakRate row fails to compile here.
  const perSecond: Record<PeakRateName, number> = { dedupComparisonsMaxPerSecond: maxDedupPerSecond };
  const out: Record<string, unknown> = {};
  for (const row of COUNTER_SCHEMA as readonly CounterRow[]) {
    if (row.summary === false) continue;
    let value: number | Gauge;
    switch (row.kind) {
      case 'gauge': {
        const name = row.name as GaugeName;
        const peak = Math.max(c[peakCounter(name)], sampledPeaks?.[name] ?? 0);
        // memoryBytes: the maximum includes the final sample.
        value = { final: g[name], max: row.peakIncludesFinal === true ? Math.max(peak, g[name]) : peak };
        break;
      }
      case 'count':
      case 'max':
        value = c[row.name as keyof typeof c];
        break;
      case 'peakRate':
        value = perSecond[row.name as PeakRateName];
        break;
      case 'ratio': {
        const [num, den] = row.of as readonly [keyof typeof c, keyof typeof c];
        value = c[den] === 0 ? 0 : round3(c[num] / c[den]);
        break;
      }
    }
    place(out, row.summary === true ? row.name : row.summary, value);
  }
  out.state = peer.state;
  return out as PeerSummary;
}

function place(out: Record<string, unknown>, path: string, value: unknown): void {
  const dot = path.indexOf('.');
  if (dot < 0) {
    out[path] = value;
    return;
  }
  const group = path.slice(0, dot);
  ((out[group] ??= {}) as Record<string, unknown>)[path.slice(dot + 1)] = value;
}

/**
 * A figure of a peer summary by its schema name (gauges: `.final` or `.max`).
 * A ratio the summary does not hold is computed from its two counts, unrounded.
 */
export function figureOf(p: PeerSummary, ref: FigureRef): number {
  const [name, stat] = ref.split('.') as [FigureName, keyof Gauge | undefined];
  const row = counterRow(name);
  if (row === undefined) throw new Error(`summary: no counter schema row "${name}"`);
  if (row.kind === 'gauge') return (p as unknown as Record<string, Gauge>)[name][stat ?? 'max'];
  if (row.summary !== false) return readPath(p, row.summary === true ? row.name : row.summary);
  if (row.kind === 'ratio') {
    const [num, den] = row.of as readonly [FigureRef, FigureRef];
    const d = figureOf(p, den);
    return d === 0 ? 0 : figureOf(p, num) / d;
  }
  throw new Error(`summary: "${name}" is not in the summary`);
}

function readPath(p: PeerSummary, path: string): number {
  let node: unknown = p;
  for (const part of path.split('.')) node = (node as Record<string, unknown>)[part];
  return node as number;
}

/** The sum of several links' counters (a host total). */
export function sumLinks(all: readonly LinkSummary[]): LinkSummary {
  const total = summarizeLink(newLinkCounters());
  for (const l of all) {
    for (const key of Object.keys(total) as Array<keyof LinkSummary>) {
      if (key === 'droppedBy') {
        for (const cause of Object.keys(l.droppedBy) as DropCause[]) total.droppedBy[cause] += l.droppedBy[cause];
      } else {
        total[key] += l[key];
      }
    }
  }
  return total;
}

export function summarizeLink(c: LinkCounters): LinkSummary {
  return {
    sent: c.sent,
    delivered: c.delivered,
    dropped: c.dropped,
    duplicated: c.duplicated,
    droppedBy: { ...c.droppedBy },
    messagesDropped: c.messagesDropped,
    reordered: c.reordered,
    bucketDelayed: c.bucketDelayed,
    slotDelayed: c.slotDelayed,
    bytesSent: c.bytesSent,
    bytesDelivered: c.bytesDelivered,
  };
}

/** Rounding to three decimals (not a unit conversion). */
const THOUSANDTHS = 1000;

/** `x` to three decimals, as summaries and reports print ratios and seconds (to the millisecond). */
export function round3(x: number): number {
  return Math.round(x * THOUSANDTHS) / THOUSANDTHS;
}
