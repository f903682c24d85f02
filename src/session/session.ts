// Wires one run together: the engine, two peers' transports, a link per
// direction, the traffic script, the delivery ledger and the trace hash.
import { isLowType } from '../codec/index.js';
import type { DataType } from '../codec/index.js';
import { RandomStreams, Simulator } from '../engine/index.js';
import { Link } from '../link/link.js';
import type { Scenario } from '../scenario/scenario.js';
import { TrafficDriver } from '../traffic/driver.js';
import type { TrafficPort } from '../traffic/sources.js';
import { PeerTransport, connectionEnded } from '../transport/peer.js';
import type { TransportHooks } from '../transport/peer.js';
import { otherRole } from '../transport/roles.js';
import type { Role } from '../transport/roles.js';
import type { TransportSwitches } from '../transport/switches.js';
import { DeliveryLedger } from './ledger.js';
import type { SessionObserver } from './observer.js';
import { TraceHasher } from './trace-hash.js';

const PROGRESS_CHUNK_US = 60_000_000;

/** Direction bytes in the canonical trace. */
export const DIRECTION_CODE: Record<Role, number> = { client: 0, server: 1 };

export class Session {
  readonly sim = new Simulator();
  readonly streams: RandomStreams;
  /** Told the simulated time, it dates sends, deliveries and losses (latency, anomalies). */
  readonly ledger = new DeliveryLedger(() => this.sim.now);
  readonly hasher: TraceHasher;
  readonly peers: Record<Role, PeerTransport>;
  readonly links: { clientToServer: Link; serverToClient: Link };
  readonly traffic: TrafficDriver;
  /** Highest dedup comparisons in any one simulated second, per peer. */
  readonly maxDedupPerSecond: Record<Role, number> = { server: 0, client: 0 };
  private readonly lastDedupTotal: Record<Role, number> = { server: 0, client: 0 };

  constructor(
    readonly scenario: Scenario,
    readonly switches: TransportSwitches,
    readonly seed: number,
    private readonly observer: SessionObserver = {},
    keepDigests = false,
  ) {
    this.streams = new RandomStreams(seed);
    this.hasher = new TraceHasher(keepDigests);
    const obs = observer;
    const sim = this.sim;
    const makeLink = (name: 'clientToServer' | 'serverToClient', from: Role, to: Role) =>
      new Link(sim, name, scenario.link[name], this.streams, (bytes, uids) => this.peers[to].arrive(bytes, uids), {
        dropped: obs.datagramDropped ? (bytes, _uids, cause) => obs.datagramDropped?.(sim.now, from, bytes, cause) : undefined,
        messagesDropped: obs.datagramRewritten ? (before, after) => obs.datagramRewritten?.(sim.now, from, before, after) : undefined,
        delivered: obs.datagramArrived ? (bytes, _uids, duplicate) => obs.datagramArrived?.(sim.now, to, bytes, duplicate) : undefined,
      });
    this.links = { clientToServer: makeLink('clientToServer', 'client', 'server'), serverToClient: makeLink('serverToClient', 'server', 'client') };
    this.peers = { server: this.makePeer('server'), client: this.makePeer('client') };
    const port: TrafficPort = {
      sim,
      send: (from, type, payload, reliable, ordered) => this.sendApp(from, type as DataType, payload, reliable, ordered),
      disconnect: (from) => this.peers[from].disconnect(),
      // A phase's update periods; a role it does not name keeps the scenario's (DECISIONS.md 17).
      setUpdatePeriods: (periods) => {
        for (const role of ['server', 'client'] as const) this.peers[role].setUpdatePeriod(periods?.[role] ?? scenario.params.updatePeriodMs[role]);
      },
    };
    this.traffic = new TrafficDriver(scenario.traffic, port, this.streams);
  }

  /**
   * Runs for `durationUs` of simulated time from zero. Progress is reported
   * between chunks; chunking does not change which events run or in what order.
   */
  run(durationUs: number, onProgress?: (simulatedUs: number) => void): void {
    this.peers.server.start(0);
    this.peers.client.start(Math.round(this.scenario.params.clientTickOffsetMs * 1000));
    this.traffic.start();
    const sampler = this.sim.after(1_000_000, () => {
      this.sample();
      this.sim.reschedule(sampler, this.sim.now + 1_000_000);
    });
    if (onProgress) {
      for (let t = Math.min(PROGRESS_CHUNK_US, durationUs); ; t = Math.min(t + PROGRESS_CHUNK_US, durationUs)) {
        this.sim.runUntil(t);
        onProgress(t);
        if (t === durationUs) break;
      }
    } else {
      this.sim.runUntil(durationUs);
    }
    this.sim.cancel(sampler);
    this.sample();
    this.peers.server.stop();
    this.peers.client.stop();
  }

  /**
   * Delivery accounting at this point of the run. A message held in a receive
   * buffer is in flight while its sender's connection lives; once the sender's
   * connection has ended, the hole in front of it can never be filled (issue 9).
   */
  deliveryStats(): ReturnType<DeliveryLedger['stats']> {
    const held = new Set<number>();
    for (const receiver of ['server', 'client'] as const) {
      if (connectionEnded(this.peers[otherRole(receiver)].state)) continue;
      for (const uid of this.peers[receiver].heldUids()) held.add(uid);
    }
    return this.ledger.stats(held);
  }

  /** An application message from `from`; returns its uid. */
  sendApp(from: Role, type: DataType, payload: Uint8Array, reliable: boolean, ordered: boolean): number {
    // An unreliable payload too big for one fragment goes out as reliable fragments
    // (transport-layer.md §5), so the ledger tracks it like any reliable message.
    const tracked = reliable || this.peers[from].fragments(type, payload.length);
    if (!tracked) {
      if (this.peers[from].send({ type, payload, reliable, ordered, uid: -1 })) this.ledger.sentUnreliable();
      return -1;
    }
    // The seq is the one `send` assigns next (it is spent only if the message is taken).
    const low = isLowType(type);
    const uid = this.ledger.register(from, true, low, this.peers[from].nextSendSeq(low));
    if (!this.peers[from].send({ type, payload, reliable, ordered, uid })) this.ledger.refused(uid);
    return uid;
  }

  private sample(): void {
    for (const role of ['server', 'client'] as const) {
      const total = this.peers[role].counters.dedupComparisons;
      const delta = total - this.lastDedupTotal[role];
      if (delta > this.maxDedupPerSecond[role]) this.maxDedupPerSecond[role] = delta;
      this.lastDedupTotal[role] = total;
    }
    if (this.observer.sample) this.observer.sample(this.sim.now, this.peers);
  }

  private makePeer(role: Role): PeerTransport {
    const obs = this.observer;
    const sim = this.sim;
    const link = role === 'server' ? this.links.serverToClient : this.links.clientToServer;
    const direction = DIRECTION_CODE[role];
    const hooks: TransportHooks = {
      emit: (bytes, uids, notes) => {
        this.hasher.record(sim.now, direction, bytes);
        if (obs.datagramSent) obs.datagramSent(sim.now, role, bytes, uids, notes);
        link.send(bytes, uids);
      },
      deliver: (delivery) => {
        this.ledger.delivered(delivery.uid);
        this.traffic.onDelivered(role, delivery.uid);
      },
      deliverUnreliable: () => this.ledger.deliveredUnreliable(),
      gaveUp: (uid) => this.ledger.gaveUp(uid),
      acknowledged: (uid) => this.ledger.acknowledged(uid),
      refused: (uid) => this.ledger.refused(uid),
      newUid: (reliable, low) => this.ledger.register(role, reliable, low, this.peers[role].nextSendSeq(low)),
      sentUnreliable: () => this.ledger.sentUnreliable(),
      stateChanged: obs.stateChanged ? (state) => obs.stateChanged?.(sim.now, role, state) : undefined,
      ackProcessed: obs.ackProcessed ? (ack, cleared, outcome) => obs.ackProcessed?.(sim.now, role, ack, cleared, outcome) : undefined,
      duplicateReceived: obs.duplicateReceived ? (message) => obs.duplicateReceived?.(sim.now, role, message) : undefined,
    };
    const params = { ...this.scenario.params, tickMs: this.scenario.params.updatePeriodMs[role] };
    return new PeerTransport(role, sim, this.switches, params, hooks);
  }
}
