// What `bcsim peer` reports: our end's transport figures, exactly
// as a simulated run's summary has them (summarizePeer), our messages' fate,
// the timers' accuracy, and the counterpart as the wire shows it (the
// `bcsim analyze` figures of both directions). Schema bcsim.live/1; the
// conformance results are added by the caller.
import { usToSeconds } from '../../core/engine/index.js';
import type { WireAnalysis, CaptureConnection } from '../../analysis/capture/index.js';
import { WireAnalyzer } from '../../analysis/capture/index.js';
import { connectionKey, round3, summarizePeer } from '../../model/session/index.js';
import type { ConnectionSummary, PeerSummary } from '../../model/session/index.js';
import type { TransportSwitches, Role } from '../../model/transport/index.js';
import { PeerTotal } from '../../model/transport/index.js';
import { VERSION } from '../../version.js';
import { formatHostPort } from '../endpoint.js';
import type { UnreadableFigures } from '../unreadable.js';
import type { LatenessFigures, StallFigures } from '../wall-clock.js';
import type { WireRecord } from '../wire-log.js';
import type { LivePeer, StopReason } from './live-peer.js';
import type { OwnMessageStats } from './own-messages.js';

export const LIVE_SUMMARY_SCHEMA = 'bcsim.live/1';

export interface LiveSummary {
  schema: typeof LIVE_SUMMARY_SCHEMA;
  version: string;
  role: Role;
  scenario: string;
  mode: string;
  switches: TransportSwitches;
  seed: number;
  local: string;
  remote: string | null;
  wallSeconds: number;
  stopReason: StopReason;
  wire: {
    sent: number;
    received: number;
    refusedAddresses: number;
    unopened: number;
    placesReused: number;
    /** A client side's players that joined again after the server ended their connection (soak --rejoin). */
    rejoins: number;
    gamespy: number;
    sendErrors: number;
    logged: number;
    notLogged: number;
    /** The wire log's budget (--wire-log-mb), the estimated bytes of the records it could not keep, and
     * when its first readable record was not kept (null: complete). The analysis and rules end there. */
    logBudgetBytes: number;
    notLoggedBytes: number;
    logCompleteUntilS: number | null;
    /** Datagrams bcsim could not read, by source address, the first few in hex: garbage, named as such. */
    unreadable: UnreadableFigures;
  };
  /** Clients a server removed for a protocol error (a checksum answer it refused), each Booted first; once each. */
  removals: Array<{ client: number; connection: number; atS: number; reason: string }>;
  /** Scheduled time against actual time, µs: every timer dispatch, and every datagram send. */
  /** How late our timers ran, and the stalls of our process (wall-clock.ts). */
  timers: { dispatchLatenessUs: LatenessFigures; sendLatenessUs: LatenessFigures; stalls: StallFigures };
  /**
   * Our end: the total over connections, and each connection by slot (a client's own slot, if it learnt
   * one, is not tracked). A place a new client reused keeps its earlier connection, keyed `<slot>#<connection>`.
   */
  peer: PeerSummary & {
    connections: Record<string, LiveConnectionSummary>;
    /** Connections whose place was reused past the summary's limit: counted, not listed. */
    connectionsNotListed: number;
  };
  /** Our reliable messages (ACKed by the counterpart or not), and what the counterpart delivered to us. */
  delivery: OwnMessageStats & {
    reliableDelivered: number;
    reliableReceived: number;
    duplicatesReceived: number;
    /** Of those duplicates, the counterpart's keepalives repeated under a seq it had used: not data re-sent. */
    keepaliveDuplicatesReceived: number;
    unreliableReceived: number;
  };
  /** The counterpart on the wire: `bcsim analyze` figures (schema bcsim.analyze/2) of what both ends sent. */
  counterpart: { analysis: WireAnalysis };
}

type LiveConnectionSummary = ConnectionSummary & {
  /** The live index: the k-th connection opened, as the conformance evidence names it. */
  connection: number;
  address: string | null;
  /** When its client's first datagram arrived, and when its place went to another client (null: it held it to the end). */
  fromS: number | null;
  untilS: number | null;
  joinedAtS: number | null;
};

export interface LiveSummaryContext {
  readonly scenario: string;
  readonly mode: string;
  readonly switches: TransportSwitches;
  readonly seed: number;
  readonly local: string;
  readonly remote: string | null;
}

export function summarizeLive(live: LivePeer, context: LiveSummaryContext): LiveSummary {
  const connections: LiveSummary['peer']['connections'] = {};
  let reliableReceived = 0;
  let duplicatesReceived = 0;
  const seconds = (us: number | null) => (us === null ? null : round3(usToSeconds(us)));
  for (const c of live.places.served()) {
    const slot = live.places.slotOf(c);
    if (live.role === 'server' && slot === null) continue;
    const key = connectionKey(c.client, slot);
    connections[key in connections ? `${key}#${c.id}` : key] = {
      client: c.client,
      slot,
      connection: c.id,
      address: c.address === null ? null : formatHostPort(c.address),
      fromS: seconds(c.openedAtUs),
      untilS: seconds(c.retiredAtUs),
      joinedAtS: c.joinedAtUs === null ? null : usToSeconds(c.joinedAtUs),
      ...summarizePeer(c.peer, c.dedupMaxPerSecond),
    };
    reliableReceived += c.peer.counters.reliableReceived;
    duplicatesReceived += c.peer.counters.duplicatesReceived;
  }
  const first = live.connections[0];
  const total =
    live.connections.length === 1 && live.role === 'client'
      ? summarizePeer(first.peer, first.dedupMaxPerSecond)
      : summarizeAll(live);
  return {
    schema: LIVE_SUMMARY_SCHEMA,
    version: VERSION,
    role: live.role,
    ...context,
    wallSeconds: round3(usToSeconds(live.clock.now)),
    stopReason: live.stopReason ?? 'signal',
    wire: {
      ...live.wire,
      logged: live.log.records.length,
      notLogged: live.log.dropped,
      logBudgetBytes: live.log.budgetBytes,
      notLoggedBytes: live.log.droppedBytes,
      logCompleteUntilS: live.log.completeUntilUs === null ? null : round3(usToSeconds(live.log.completeUntilUs)),
      unreadable: live.unreadable.figures(),
    },
    removals: live.removals.map((r) => ({
      client: r.client,
      connection: r.connection,
      atS: round3(usToSeconds(r.timeUs)),
      reason: r.reason,
    })),
    timers: {
      dispatchLatenessUs: live.clock.dispatchLateness.figures(),
      sendLatenessUs: live.sendLateness.figures(),
      stalls: { ...live.clock.stalls },
    },
    peer: { ...total, connections, connectionsNotListed: live.places.retiredNotKept },
    delivery: {
      ...live.own.stats(),
      reliableDelivered: live.reliableDelivered,
      reliableReceived,
      duplicatesReceived,
      keepaliveDuplicatesReceived: live.keepaliveDuplicates,
      unreliableReceived: live.unreliableDelivered,
    },
    counterpart: { analysis: analyzeWire(live.log.records, live.role, judgedUntilUs(live)) },
  };
}

/** Where the wire log is complete: the run's end, or the first readable record it could not keep. */
export function judgedUntilUs(live: LivePeer): number {
  return live.log.completeUntilUs ?? live.clock.now;
}

/** The total over every connection a server accepted, or a client side's clients, as a simulated run's PeerTotal. */
function summarizeAll(live: LivePeer): PeerSummary {
  const accepted = live.places.served().filter((c) => live.role === 'client' || live.places.slotOf(c) !== null);
  const dedupMax = accepted.reduce((m, c) => Math.max(m, c.dedupMaxPerSecond), 0);
  return summarizePeer(new PeerTotal(() => accepted.map((c) => c.peer)), dedupMax);
}

/** The `bcsim analyze` figures of the live wire; connection k is the k-th connection opened. */
export function analyzeWire(records: readonly WireRecord[], localRole: Role, endUs: number): WireAnalysis {
  const analyzer = new WireAnalyzer();
  const remoteRole: Role = localRole === 'client' ? 'server' : 'client';
  const connections = new Map<number, CaptureConnection>();
  for (const r of records) {
    let c = connections.get(r.connection);
    if (c === undefined) {
      c = {
        index: r.connection,
        server: { key: 0, ip: 0, port: 0, label: 'server' },
        client: { key: r.connection, ip: 0, port: 0, label: `client ${r.connection}` },
        slot: null,
        startSeen: true,
        firstUs: r.timeUs,
        lastUs: r.timeUs,
      };
      connections.set(r.connection, c);
    }
    c.lastUs = r.timeUs;
    analyzer.add(
      c,
      r.from === 'local' ? localRole : remoteRole,
      r.timeUs,
      (r.wire ?? r.bytes).length,
      r.bytes,
      r.bytes.length,
      r.deviations,
    );
  }
  return analyzer.finish(endUs);
}
