// The figures a scheme column reports side by side: delivery,
// latency, bandwidth and memory, in the same shape for a BC run and an R-Type run.
import { msToSeconds } from '../../core/engine/index.js';
import type { Summary } from '../../model/session/index.js';
import type { RtypeSession, RtypeSummary } from '../session/index.js';
import { rtypeMemory } from './memory.js';

export interface SchemeFigures {
  /** Critical events: BC reliable messages (the join sequence's included), R-Type deaths × clients. */
  critical: {
    due: number;
    delivered: number;
    lost: number;
    inFlight: number;
    duplicates: number;
    deliveredShare: number;
  };
  /** Send (queue) to first delivery, ms: BC's high category (game messages), R-Type's deaths. */
  latencyMs: { p50: number; p99: number; max: number };
  /** Unreliable updates: BC StateUpdates, R-Type position datagrams; both directions. */
  unreliable: { sent: number; delivered: number; deliveredShare: number };
  /** Bytes as the codecs write them (no IP, UDP or TCP headers). */
  wire: {
    serverToClientBytes: number;
    clientToServerBytes: number;
    /** R-Type's TCP confirmations; 0 for BC (its ACKs ride in the UDP datagrams). */
    sideChannelBytes: number;
    totalBytes: number;
    /** totalBytes per client per second of the run. */
    bytesPerClientSecond: number;
    datagrams: number;
    /** BC retransmits (both ends), R-Type resend datagrams. */
    resends: number;
  };
  /** Modelled bytes at their peak (sampled once a second, the final state included). */
  memory: { serverPeakBytes: number; serverFinalBytes: number; clientPeakBytes: number };
}

const share = (part: number, whole: number): number => (whole === 0 ? 1 : part / whole);

export function bcFigures(summary: Summary): SchemeFigures {
  const d = summary.delivery;
  const s2c = summary.links.serverToClient;
  const c2s = summary.links.clientToServer;
  const total = s2c.bytesSent + c2s.bytesSent;
  const { server, client } = summary.peers;
  return {
    critical: {
      due: d.reliableSent,
      delivered: d.reliableDelivered,
      lost: d.reliableLost,
      inFlight: d.reliableInFlight,
      duplicates: d.duplicateDeliveries,
      deliveredShare: share(d.reliableDelivered, d.reliableSent),
    },
    latencyMs: { p50: d.latencyMs.high.p50, p99: d.latencyMs.high.p99, max: d.latencyMs.high.max },
    unreliable: {
      sent: d.unreliableSent,
      delivered: d.unreliableDelivered,
      deliveredShare: share(d.unreliableDelivered, d.unreliableSent),
    },
    wire: {
      serverToClientBytes: s2c.bytesSent,
      clientToServerBytes: c2s.bytesSent,
      sideChannelBytes: 0,
      totalBytes: total,
      bytesPerClientSecond: total / summary.session.clients / summary.simulatedSeconds,
      datagrams: s2c.sent + c2s.sent,
      resends: server.retransmits + client.retransmits,
    },
    memory: {
      serverPeakBytes: server.memoryBytes.max,
      serverFinalBytes: server.memoryBytes.final,
      clientPeakBytes: client.memoryBytes.max,
    },
  };
}

/** Needs the session itself: the summary holds no count of position datagrams received. */
export function rtypeFigures(session: RtypeSession, summary: RtypeSummary): SchemeFigures {
  const deaths = summary.deaths;
  const c = session.server.counters;
  // Every datagram a client decodes is a position or a death copy; the ledger counts each death copy once.
  const received = session.connections.reduce((n, k) => n + k.peer.counters.received, 0);
  const positionsReceived = received - (deaths.delivered + deaths.duplicates + deaths.extraneous);
  // What reaches the server is a registration (zero-length) or an ordinary datagram.
  const upDelivered = session.connections.reduce((n, k) => n + k.clientToServer.counters.delivered, 0);
  const ordinaryReceived = upDelivered - (c.registrations + c.repeatedRegistrations);
  const ordinarySent = session.connections.reduce((n, k) => n + k.peer.counters.ordinarySent, 0);
  const w = summary.wire;
  const total = w.udpServerToClient.bytes + w.udpClientToServer.bytes + w.tcpClientToServer.bytes;
  const memory = rtypeMemory(summary);
  const sent = c.datagramsSent.position + ordinarySent;
  const delivered = positionsReceived + ordinaryReceived;
  return {
    critical: {
      due: deaths.pairs,
      delivered: deaths.delivered,
      lost: deaths.lost,
      inFlight: deaths.inFlight,
      duplicates: deaths.duplicates + deaths.extraneous,
      deliveredShare: share(deaths.delivered, deaths.pairs),
    },
    latencyMs: { p50: deaths.latencyMs.p50, p99: deaths.latencyMs.p99, max: deaths.latencyMs.max },
    unreliable: { sent, delivered, deliveredShare: share(delivered, sent) },
    wire: {
      serverToClientBytes: w.udpServerToClient.bytes,
      clientToServerBytes: w.udpClientToServer.bytes,
      sideChannelBytes: w.tcpClientToServer.bytes,
      totalBytes: total,
      bytesPerClientSecond: total / summary.clients / msToSeconds(summary.durationMs),
      datagrams: w.udpServerToClient.datagrams + w.udpClientToServer.datagrams,
      resends: summary.resends.datagrams,
    },
    memory: { serverPeakBytes: memory.peak, serverFinalBytes: memory.final, clientPeakBytes: 0 },
  };
}
