// The plain-JSON summary of one R-Type run (schema bcsim.rtype/1).
import type { RtypePresetName, RtypeSwitches, RtypeTiming } from '../transport/index.js';
import type { DeathStats } from './ledger.js';
import type { ResendFigures, RtypeSeries } from './metrics.js';
import type { DirectionCount, RtypeSession } from './session.js';

export const RTYPE_SUMMARY_SCHEMA = 'bcsim.rtype/1';

export interface RtypeSummary {
  schema: typeof RTYPE_SUMMARY_SCHEMA;
  seed: number;
  preset: RtypePresetName;
  /** The switches in force: the preset with the config's changes. */
  switches: RtypeSwitches;
  timing: RtypeTiming;
  clients: number;
  durationMs: number;
  /** SHA-256 over every datagram and TCP message sent (trace-hash.ts). */
  traceHash: string;
  wireRecords: number;
  clock: { periodUs: number; frames: number; ticks: number; overrunFrames: number; maxFrameWorkUs: number };
  deaths: DeathStats;
  resends: ResendFigures;
  confirmations: {
    received: { tcp: number; udp: number; registration: number; total: number };
    /** Confirmations that cleared the sender's own entry. */
    matched: number;
    /** Entries of other users that someone's confirmation cleared. */
    clearedForOthers: number;
    /** Confirmations that cleared nothing: not attributable to a user. */
    unattributed: { tcp: number; udp: number; registration: number; total: number };
    /** Registrations whose never-filled header carried a non-zero ack. */
    staleHeaderReads: number;
  };
  store: { final: number; peak: number; expiredPackets: number; limitHits: number };
  pending: {
    finalTotal: number;
    finalMaxPerUser: number;
    peakTotal: number;
    peakMaxPerUser: number;
    /** Entries pointing at an expired packet: only a late confirmation removes them. */
    danglingFinal: number;
    danglingPeak: number;
    /** Entries removed at expiry and reported as given up. */
    expiredEntries: number;
    /** Entries left behind at expiry. */
    strandedEntries: number;
    /** Entries that went onto throw-away copies. */
    entriesOnCopies: number;
    limitHits: number;
  };
  wire: {
    udpServerToClient: DirectionCount;
    udpClientToServer: DirectionCount;
    tcpClientToServer: DirectionCount;
    /** Server datagrams by purpose. */
    serverDatagrams: { critical: number; resend: number; position: number };
    /** Death notifications the downlinks lost. */
    criticalDropped: number;
    perClient: Array<{
      client: number;
      udpServerToClient: DirectionCount;
      udpClientToServer: DirectionCount;
      tcpClientToServer: DirectionCount;
      criticalDropped: number;
    }>;
  };
  server: {
    registrations: number;
    repeatedRegistrations: number;
    fromUnregistered: number;
    malformed: number;
    scanComparisons: number;
  };
  limits: {
    sendLimitHits: number;
    storeLimitHits: number;
    pendingLimitHits: number;
    tcpLimitHits: number;
    untrackedDeaths: number;
    samplesDropped: number;
  };
  series: RtypeSeries;
}

export function summarizeRtype(session: RtypeSession): RtypeSummary {
  const { server, config, metrics, clock } = session;
  const c = server.counters;
  const peaks = metrics.sizePeaks();
  const deaths = session.ledger.stats((client, entityId) => server.isResendable(client, entityId));
  const received = {
    ...c.confirmations,
    total: c.confirmations.tcp + c.confirmations.udp + c.confirmations.registration,
  };
  const unattributed = {
    ...c.unattributed,
    total: c.unattributed.tcp + c.unattributed.udp + c.unattributed.registration,
  };
  const copy = (d: DirectionCount): DirectionCount => ({ datagrams: d.datagrams, bytes: d.bytes });
  return {
    schema: RTYPE_SUMMARY_SCHEMA,
    seed: session.seed,
    preset: config.preset,
    switches: { ...session.switches },
    timing: { ...config.timing },
    clients: config.clients,
    durationMs: config.durationMs,
    traceHash: session.traceHash.digest(),
    wireRecords: session.traceHash.count,
    clock: {
      periodUs: clock.periodUs,
      frames: clock.frames,
      ticks: clock.tick,
      overrunFrames: clock.overrunFrames,
      maxFrameWorkUs: clock.maxFrameWorkUs,
    },
    deaths,
    resends: metrics.resends(),
    confirmations: {
      received,
      matched: c.matched,
      clearedForOthers: c.clearedForOthers,
      unattributed,
      staleHeaderReads: c.staleHeaderReads,
    },
    store: {
      final: server.store.size,
      peak: Math.max(peaks.storePeak, server.store.size),
      expiredPackets: c.expiredPackets,
      limitHits: server.store.limitHits,
    },
    pending: {
      finalTotal: server.pendingTotal(),
      finalMaxPerUser: server.pendingMaxPerUser(),
      peakTotal: Math.max(peaks.pendingTotalPeak, server.pendingTotal()),
      peakMaxPerUser: Math.max(peaks.pendingMaxPerUserPeak, server.pendingMaxPerUser()),
      danglingFinal: server.danglingEntries,
      danglingPeak: Math.max(peaks.danglingPeak, server.danglingEntries),
      expiredEntries: c.expiredEntries,
      strandedEntries: c.strandedEntries,
      entriesOnCopies: c.entriesOnCopies,
      limitHits: server.pendingLimitHits(),
    },
    wire: {
      udpServerToClient: copy(session.wire.udpServerToClient),
      udpClientToServer: copy(session.wire.udpClientToServer),
      tcpClientToServer: copy(session.wire.tcpClientToServer),
      serverDatagrams: { ...c.datagramsSent },
      criticalDropped: session.connections.reduce((n, k) => n + k.criticalDropped, 0),
      perClient: session.connections.map((k) => ({
        client: k.client,
        udpServerToClient: copy(k.wire.udpServerToClient),
        udpClientToServer: copy(k.wire.udpClientToServer),
        tcpClientToServer: copy(k.wire.tcpClientToServer),
        criticalDropped: k.criticalDropped,
      })),
    },
    server: {
      registrations: c.registrations,
      repeatedRegistrations: c.repeatedRegistrations,
      fromUnregistered: c.fromUnregistered,
      malformed: c.malformed,
      scanComparisons: c.scanComparisons,
    },
    limits: {
      sendLimitHits: c.sendLimitHits,
      storeLimitHits: server.store.limitHits,
      pendingLimitHits: server.pendingLimitHits(),
      tcpLimitHits: session.connections.reduce((n, k) => n + k.tcp.counters.limitHits, 0),
      untrackedDeaths: deaths.untracked,
      samplesDropped: metrics.samplesDropped,
    },
    series: metrics.series,
  };
}
