// The run summary, schema bcsim.summary/1 (issue 3, item 9). Field names are a
// contract: add fields, never rename them.
import { newLinkCounters } from '../link/config.js';
import type { DropCause, LinkCounters } from '../link/config.js';
import type { PeerGauges } from '../transport/peer.js';
import type { PeerReadout } from '../transport/totals.js';
import type { TransportSwitches } from '../transport/switches.js';
import type { DeliveryStats } from './ledger.js';

export type { AnomalyKind, DeliveryAnomalies, DeliveryAnomaly, LatencySummary } from './ledger.js';
import type { EffectiveSettings } from './settings.js';

export const SUMMARY_SCHEMA = 'bcsim.summary/1';

export interface Gauge {
  final: number;
  max: number;
}

export interface PeerSummary {
  ackOutbox: Gauge;
  ackOutboxDeadZone: Gauge;
  retransmitQueue: Gauge;
  firstSendQueue: Gauge;
  memoryBytes: Gauge;
  dedupComparisons: { total: number; maxPerMessage: number; maxPerSecond: number; perReliableMessage: number };
  retransmits: number;
  fragmentRetransmits: number;
  retransmitReentries: number;
  packetsSent: number;
  bytesSent: number;
  ackBytesSent: number;
  gameBytesSent: number;
  ackBytesPerPacketMax: number;
  acksSent: number;
  /** New ACK entries refused because the outbox was at its limit (those ACKs are never sent). */
  ackEntriesRefused: number;
  deferredMessages: number;
  keepalivesSent: number;
  acksReceived: number;
  acksMatched: number;
  acksUnmatched: number;
  acksOnEmptyQueue: number;
  reliableReceived: number;
  duplicatesReceived: number;
  gaveUp: number;
  sendRejected: number;
  /** Updates in which the send window held first sends back (fixed; issue 9). */
  windowStalls: number;
  /** Reliable messages dropped unACKed because they lay past the send window. */
  outOfWindow: number;
  /** Unreliable messages too large for one fragment, sent as reliable fragments. */
  forcedReliable: number;
  /** Issue 10: the most messages one datagram carried (measured: up to 33 in combat). */
  messagesPerPacketMax: number;
  keepalivesEchoed: number;
  /** Arrivals at a held receive slot with a different message (switch wrapReceive decides). */
  wrapConflicts: number;
  /** Datagrams dropped because the socket inbox was full. */
  inboxOverflows: number;
  /** Network updates run, and datagrams sent with the pass-2 gate shut while the dead zone held entries. */
  updates: number;
  gateShutDatagrams: number;
  state: string;
}

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
   * total; with one client they are exactly its connection's two peers, as before
   * issue 12. `server.connections` and `clients` hold each connection's peers by slot.
   */
  peers: { server: ServerSummary; client: PeerSummary; clients: Record<string, ConnectionSummary> };
  /** Issue 12: who connected, and what the server did as a host. */
  session: SessionSummary;
  /**
   * The ledger's counts, plus (issue 11, item 6) `latencyMs.{low,high}`: send-to-delivery
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
 */
export function summarizePeer(peer: PeerReadout, maxDedupPerSecond: number, sampledPeaks?: Readonly<PeerGauges>): PeerSummary {
  const c = peer.counters;
  const g = peer.gauges();
  const peak = (exact: number, key: keyof PeerGauges) => Math.max(exact, sampledPeaks?.[key] ?? 0);
  return {
    ackOutbox: { final: g.ackOutbox, max: peak(c.ackOutboxMax, 'ackOutbox') },
    ackOutboxDeadZone: { final: g.deadZone, max: peak(c.deadZoneMax, 'deadZone') },
    retransmitQueue: { final: g.retransmitQueue, max: peak(c.retransmitQueueMax, 'retransmitQueue') },
    firstSendQueue: { final: g.firstSendQueue, max: peak(c.firstSendQueueMax, 'firstSendQueue') },
    // The maximum includes the final sample (issue 9).
    memoryBytes: { final: g.memoryBytes, max: Math.max(peak(c.memoryMaxBytes, 'memoryBytes'), g.memoryBytes) },
    dedupComparisons: {
      total: c.dedupComparisons,
      maxPerMessage: c.dedupMaxPerLookup,
      maxPerSecond: maxDedupPerSecond,
      perReliableMessage: c.dedupLookups === 0 ? 0 : round3(c.dedupComparisons / c.dedupLookups),
    },
    retransmits: c.retransmits,
    fragmentRetransmits: c.fragmentRetransmits,
    retransmitReentries: c.retransmitReentries,
    packetsSent: c.packetsSent,
    bytesSent: c.bytesSent,
    ackBytesSent: c.ackBytesSent,
    gameBytesSent: c.gameBytesSent,
    ackBytesPerPacketMax: c.ackBytesMaxPerPacket,
    acksSent: c.acksSent,
    ackEntriesRefused: c.ackEntriesRefused,
    deferredMessages: c.deferredMessages,
    keepalivesSent: c.keepalivesSent,
    acksReceived: c.acksReceived,
    acksMatched: c.acksMatched,
    acksUnmatched: c.acksUnmatched,
    acksOnEmptyQueue: c.acksOnEmptyQueue,
    reliableReceived: c.reliableReceived,
    duplicatesReceived: c.duplicatesReceived,
    gaveUp: c.gaveUp,
    sendRejected: c.sendRejected,
    windowStalls: c.windowStalls,
    outOfWindow: c.outOfWindow,
    forcedReliable: c.forcedReliable,
    messagesPerPacketMax: c.messagesMaxPerPacket,
    keepalivesEchoed: c.keepalivesEchoed,
    wrapConflicts: c.wrapConflicts,
    inboxOverflows: c.inboxOverflows,
    updates: c.updates,
    gateShutDatagrams: c.gateShutDatagrams,
    state: peer.state,
  };
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

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
