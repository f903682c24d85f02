// Wires one run together: the engine, a dedicated server and its clients,
// a link per client and direction, the traffic script, the delivery
// ledger and the trace hash.
import { isLowType } from '../../core/codec/index.js';
import type { DataType } from '../../core/codec/index.js';
import {
  ONE_SECOND_US,
  RandomStreams,
  Simulator,
  ZERO_US,
  addUs,
  micros,
  minUs,
  msToUs,
} from '../../core/engine/index.js';
import type { Micros, MicrosIn } from '../../core/engine/index.js';
import { Link } from '../link/index.js';
import type { Scenario } from '../scenario/index.js';
import { TrafficDriver } from '../traffic/index.js';
import type { TrafficPort } from '../traffic/index.js';
import {
  PeerTransport,
  connectionEnded,
  SERVER_IDENTITY,
  clientIdentity,
  ServerHost,
  PeerTotal,
  UpdateLoop,
} from '../transport/index.js';
import type { TransportHooks, Role, PeerReadout, TransportSwitches } from '../transport/index.js';
import { DeliveryLedger } from './ledger.js';
import { peerView } from './observer.js';
import type { ConnectionView, PeerView, SessionObserver } from './observer.js';
import { PeakTally } from './peaks.js';
import { TraceHasher } from './trace-hash.js';

export const PROGRESS_CHUNK_US = micros(60_000_000);

/** Direction bytes in the canonical trace; client k's connection adds 2(k - 1). */
const DIRECTION_CODE: Record<Role, number> = { client: 0, server: 1 };

/** One client and the server's side of its connection. */
export interface Connection extends ConnectionView {
  /** 1-based client number in the scenario. */
  readonly client: number;
  /** The client's transport. */
  readonly clientPeer: PeerTransport;
  /** The server's peer state for this client; it takes part once the client connects. */
  readonly serverPeer: PeerTransport;
  readonly clientLoop: UpdateLoop;
  readonly links: { readonly clientToServer: Link; readonly serverToClient: Link };
}

export class Session {
  readonly sim = new Simulator();
  readonly streams: RandomStreams;
  /** Told the simulated time, it dates sends, deliveries and losses (latency, anomalies). */
  readonly ledger = new DeliveryLedger(() => this.sim.now);
  readonly hasher: TraceHasher;
  readonly connections: readonly Connection[];
  readonly server: ServerHost;
  readonly traffic: TrafficDriver;
  /** The server's total over its connections, and the clients' total. */
  readonly totals: Readonly<Record<Role, PeerReadout>>;
  /** Per-second peaks: dedup comparisons per peer and per total, queue gauges of the totals. */
  readonly peaks = new PeakTally();
  /** What the observer's `sample` is shown: read-only views of the totals and of each connection's two ends, made once. */
  private readonly observed: {
    readonly totals: Readonly<Record<Role, PeerView>>;
    readonly connections: readonly ConnectionView[];
  } | null;

  constructor(
    readonly scenario: Scenario,
    readonly switches: TransportSwitches,
    readonly seed: number,
    private readonly observer: SessionObserver = {},
    keepDigests = false,
  ) {
    this.streams = new RandomStreams(seed);
    this.hasher = new TraceHasher(keepDigests);
    const connections: Connection[] = [];
    for (let k = 1; k <= scenario.clients; k++) connections.push(this.makeConnection(k));
    this.connections = connections;
    this.server = new ServerHost(
      this.sim,
      scenario.params.updatePeriodMs.server,
      connections.map((c) => c.serverPeer),
      { accepted: (connection, slot) => this.observer.connectionAccepted?.(this.sim.now, connection + 1, slot) },
    );
    this.totals = {
      server: new PeerTotal(() => this.serverPeers()),
      client: new PeerTotal(() => connections.map((c) => c.clientPeer)),
    };
    this.observed = observer.sample
      ? {
          totals: { server: peerView(this.totals.server), client: peerView(this.totals.client) },
          connections: connections.map((c) => ({
            client: c.client,
            clientPeer: peerView(c.clientPeer),
            serverPeer: peerView(c.serverPeer),
          })),
        }
      : null;
    const port: TrafficPort = {
      sim: this.sim,
      send: (from, client, type, payload, reliable, ordered) =>
        this.sendApp(from, client, type as DataType, payload, reliable, ordered),
      startClient: (client) => this.connection(client).clientLoop.start(msToUs(scenario.params.clientTickOffsetMs)),
      disconnect: (client) => this.connection(client).clientPeer.disconnect(),
      halt: (client) => {
        const c = this.connection(client);
        c.clientLoop.stop();
        c.clientPeer.halt();
      },
      slotOf: (client) => this.server.slotOf(client - 1),
      // A phase's update periods; a role it does not name keeps the scenario's (docs/sources.md 17).
      setUpdatePeriods: (periods) => {
        this.server.loop.setPeriod(periods?.server ?? scenario.params.updatePeriodMs.server);
        for (const c of connections) c.clientLoop.setPeriod(periods?.client ?? scenario.params.updatePeriodMs.client);
      },
      stallClient: (client, busyUs) => this.connection(client).clientLoop.stall(busyUs),
      stallServer: (busyUs) => this.server.loop.stall(busyUs),
    };
    this.traffic = new TrafficDriver(scenario.traffic, port, this.streams, scenario.clients);
    // StateUpdates are drawn at their sender's update tick, not by a timer each.
    const traffic = this.traffic;
    this.server.loop.onUpdate((nowUs) => traffic.serverUpdate(nowUs));
    for (const c of connections) c.clientLoop.onUpdate((nowUs) => traffic.clientUpdate(c.client, nowUs));
  }

  /** Client 1's connection as the two peers of a one-client session. */
  get peers(): Readonly<Record<Role, PeerTransport>> {
    const first = this.connections[0];
    return { server: first.serverPeer, client: first.clientPeer };
  }

  connection(client: number): Connection {
    const c = this.connections[client - 1];
    if (c === undefined) throw new Error(`session: no client ${client}`);
    return c;
  }

  /** The server's peer states of the clients that connected, in accept order. */
  serverPeers(): PeerTransport[] {
    return this.server.acceptedConnections().map((i) => this.connections[i].serverPeer);
  }

  /**
   * Runs for `durationUs` of simulated time from zero. Progress is reported
   * between chunks; chunking does not change which events run or in what order.
   */
  run(duration: MicrosIn, onProgress?: (simulatedUs: Micros) => void): void {
    const durationUs = micros(duration); // from the caller: a scenario, a --duration flag, the library API
    for (const t of this.steps(durationUs, onProgress ? PROGRESS_CHUNK_US : durationUs)) onProgress?.(t);
  }

  /**
   * The run in slices of `chunkUs` of simulated time; yields the time reached
   * after each, and finishes the run after the last. Where the slices end
   * changes nothing in the run: the events are the same, in the same order.
   */
  *steps(durationUs: Micros, chunkUs: Micros): Generator<Micros, void, undefined> {
    this.server.loop.start(ZERO_US);
    this.traffic.start();
    const sampler = this.sim.after(ONE_SECOND_US, () => {
      this.sample();
      this.sim.reschedule(sampler, addUs(this.sim.now, ONE_SECOND_US));
    });
    for (let t = minUs(chunkUs, durationUs); ; t = minUs(addUs(t, chunkUs), durationUs)) {
      this.sim.runUntil(t);
      yield t;
      if (t === durationUs) break;
    }
    this.sim.cancel(sampler);
    this.sample();
    this.server.loop.stop();
    for (const c of this.connections) c.clientLoop.stop();
  }

  /**
   * Delivery accounting at this point of the run. A message held in a receive
   * buffer is in flight while its sender's connection lives; once the sender's
   * connection has ended, the hole in front of it can never be filled.
   */
  deliveryStats(): ReturnType<DeliveryLedger['stats']> {
    const held = new Set<number>();
    for (const c of this.connections) {
      if (!connectionEnded(c.clientPeer.state)) for (const uid of c.serverPeer.heldUids()) held.add(uid);
      if (!connectionEnded(c.serverPeer.state)) for (const uid of c.clientPeer.heldUids()) held.add(uid);
    }
    return this.ledger.stats(held);
  }

  /** An application message on client `client`'s connection, from its `from` end; returns its uid. */
  sendApp(
    from: Role,
    client: number,
    type: DataType,
    payload: Uint8Array,
    reliable: boolean,
    ordered: boolean,
  ): number {
    const c = this.connection(client);
    const peer = from === 'client' ? c.clientPeer : c.serverPeer;
    // An unreliable payload too big for one fragment goes out as reliable fragments
    // (transport-layer.md §5), so the ledger tracks it like any reliable message.
    const tracked = reliable || peer.fragments(type, payload.length);
    if (!tracked) {
      if (peer.sendMessage(type, payload, reliable, ordered, -1)) this.ledger.sentUnreliable();
      return -1;
    }
    // The seq is the one `send` assigns next (it is spent only if the message is taken).
    const low = isLowType(type);
    const uid = this.ledger.register(from, true, low, peer.nextSendSeq(low), client);
    if (!peer.sendMessage(type, payload, reliable, ordered, uid)) this.ledger.refused(uid);
    return uid;
  }

  private sample(): void {
    this.peaks.sample(this.connections, this.totals);
    if (this.observed !== null) this.observer.sample?.(this.sim.now, this.observed.totals, this.observed.connections);
    // The next second's peaks start from here (transport interval-peaks.ts).
    for (const c of this.connections) {
      c.clientPeer.intervalPeaks.restart(c.clientPeer.gauges());
      c.serverPeer.intervalPeaks.restart(c.serverPeer.gauges());
    }
  }

  private makeConnection(client: number): Connection {
    const scenario = this.scenario;
    const linkConfig = scenario.clientLinks[client - 1];
    // Client 1 keeps the one-client names of its links and streams, so its runs are unchanged.
    const prefix = client === 1 ? '' : `client${client}.`;
    const obs = this.observer;
    const sim = this.sim;
    const conn = {} as { -readonly [K in keyof Connection]: Connection[K] };
    conn.client = client;
    const makeLink = (name: 'clientToServer' | 'serverToClient', from: Role) => {
      const to: Role = from === 'client' ? 'server' : 'client';
      const deliver =
        to === 'server'
          ? (bytes: Uint8Array, uids: readonly number[]) => this.server.arrive(client - 1, bytes, uids)
          : (bytes: Uint8Array, uids: readonly number[]) => conn.clientPeer.arrive(bytes, uids);
      return new Link(sim, `${prefix}${name}`, linkConfig[name], this.streams, deliver, {
        dropped: obs.datagramDropped
          ? (bytes, _uids, cause) => obs.datagramDropped?.(sim.now, from, bytes, cause, client)
          : undefined,
        messagesDropped: obs.datagramRewritten
          ? (before, after) => obs.datagramRewritten?.(sim.now, from, before, after, client)
          : undefined,
        delivered: obs.datagramArrived
          ? (bytes, _uids, duplicate) => obs.datagramArrived?.(sim.now, to, bytes, duplicate, client)
          : undefined,
      });
    };
    conn.links = {
      clientToServer: makeLink('clientToServer', 'client'),
      serverToClient: makeLink('serverToClient', 'server'),
    };
    conn.clientPeer = this.makePeer('client', conn);
    conn.serverPeer = this.makePeer('server', conn);
    conn.clientLoop = new UpdateLoop(sim, scenario.params.updatePeriodMs.client, false);
    conn.clientLoop.add(conn.clientPeer);
    return conn;
  }

  private makePeer(role: Role, conn: Pick<Connection, 'client' | 'links'>): PeerTransport {
    const obs = this.observer;
    const sim = this.sim;
    const client = conn.client;
    const link = role === 'server' ? conn.links.serverToClient : conn.links.clientToServer;
    const direction = DIRECTION_CODE[role] + 2 * (client - 1);
    const self = (): PeerTransport =>
      role === 'server' ? (conn as Connection).serverPeer : (conn as Connection).clientPeer;
    const hooks: TransportHooks = {
      emit: (bytes, uids, notes, messageCount) => {
        this.hasher.record(sim.now, direction, bytes);
        if (obs.datagramSent)
          obs.datagramSent(sim.now, role, bytes, alignedUids(uids, messageCount), notes.slice(0, messageCount), client);
        link.send(bytes, uids);
      },
      deliver: (delivery) => {
        this.ledger.delivered(delivery.uid);
        this.traffic.onDelivered(role, client, delivery.uid, delivery);
      },
      deliverUnreliable: () => this.ledger.deliveredUnreliable(),
      gaveUp: (uid) => this.ledger.gaveUp(uid),
      acknowledged: (uid) => this.ledger.acknowledged(uid),
      refused: (uid) => this.ledger.refused(uid),
      newUid: (reliable, low) => this.ledger.register(role, reliable, low, self().nextSendSeq(low), client),
      sentUnreliable: () => this.ledger.sentUnreliable(),
      stateChanged: (state) => {
        if (role === 'server') this.server.connectionChanged(client - 1, state);
        obs.stateChanged?.(sim.now, role, state, client);
      },
      ackProcessed: obs.ackProcessed
        ? (ack, cleared, outcome) => obs.ackProcessed?.(sim.now, role, ack, cleared, outcome, client)
        : undefined,
      duplicateReceived: obs.duplicateReceived
        ? (message) => obs.duplicateReceived?.(sim.now, role, message, client)
        : undefined,
    };
    const params = { ...this.scenario.params, tickMs: this.scenario.params.updatePeriodMs[role] };
    return new PeerTransport(
      role,
      sim,
      this.switches,
      params,
      hooks,
      role === 'server' ? SERVER_IDENTITY : clientIdentity(client),
    );
  }
}

/** An observer sees one uid per message: the transport leaves trailing -1s off. */
function alignedUids(uids: readonly number[], messageCount: number): readonly number[] {
  if (uids.length === messageCount) return uids;
  const all = uids.slice();
  while (all.length < messageCount) all.push(-1);
  return all;
}
