// Wires one R-Type run: the engine, the server's game loop on its tick clock, N
// clients, a Link per client and direction, a TCP channel per client, the death
// workload, the ledger, the metrics and the trace hash.
import { RandomStreams, Simulator, ZERO_US, addUs, maxUs, micros, msToUs, usToMs } from '../../core/engine/index.js';
import type { Micros } from '../../core/engine/index.js';
import { Link } from '../../model/link/index.js';
import { HEADER_BYTES, OPCODE_DEAD, RtypeClient, RtypeServer, TickClock, rtypeSwitches } from '../transport/index.js';
import type { RtypeSwitches } from '../transport/index.js';
import type { RtypeConfig } from './config.js';
import { linksOf } from './config.js';
import { DeathLedger } from './ledger.js';
import { RtypeMetrics } from './metrics.js';
import { TcpChannel } from './tcp-channel.js';
import { RtypeTraceHash } from './trace-hash.js';
import type { RtypeDirection } from './trace-hash.js';
import { validateRtypeConfig } from './validate.js';
import { DeathWorkload } from './workload.js';

const NO_UIDS: readonly number[] = [];

export interface DirectionCount {
  datagrams: number;
  bytes: number;
}

export type WireCounts = Record<RtypeDirection, DirectionCount>;

function newWireCounts(): WireCounts {
  return {
    udpClientToServer: { datagrams: 0, bytes: 0 },
    udpServerToClient: { datagrams: 0, bytes: 0 },
    tcpClientToServer: { datagrams: 0, bytes: 0 },
  };
}

/** One client's end and its paths to the server. */
export interface RtypeConnection {
  readonly client: number;
  readonly peer: RtypeClient;
  readonly serverToClient: Link;
  readonly clientToServer: Link;
  readonly tcp: TcpChannel;
  readonly wire: WireCounts;
  /** Death notifications the downlink lost. */
  criticalDropped: number;
}

export class RtypeSession {
  readonly sim = new Simulator();
  readonly streams: RandomStreams;
  readonly switches: RtypeSwitches;
  readonly clock: TickClock;
  readonly server: RtypeServer;
  readonly connections: readonly RtypeConnection[];
  readonly ledger: DeathLedger;
  readonly metrics: RtypeMetrics;
  readonly traceHash = new RtypeTraceHash();
  readonly wire: WireCounts = newWireCounts();
  private readonly workload: DeathWorkload;
  private frameIndex = 0;
  private ran = false;

  constructor(
    readonly config: RtypeConfig,
    readonly seed: number,
  ) {
    validateRtypeConfig(config);
    this.streams = new RandomStreams(seed);
    this.switches = rtypeSwitches(config.preset, config.switches);
    this.clock = new TickClock(config.timing);
    this.ledger = new DeathLedger(config.clients, config.maxDeaths);
    this.metrics = new RtypeMetrics(config.sampleEveryMs, config.maxSamples);
    this.server = new RtypeServer(this.switches, config.timing, config.limits, {
      send: (client, bytes) => {
        const c = this.connection(client);
        this.record('udpServerToClient', c, bytes);
        c.serverToClient.send(bytes, NO_UIDS);
      },
      criticalQueued: (entityId, _ackId, recipients) => this.ledger.queued(entityId, recipients, this.sim.now),
      gaveUp: (client, entityId) => this.ledger.gaveUp(client, entityId),
    });
    const connections: RtypeConnection[] = [];
    for (let k = 1; k <= config.clients; k++) connections.push(this.makeConnection(k));
    this.connections = connections;
    // After the links: the workload's streams are named, so creation order changes no draw.
    this.workload = new DeathWorkload(config.workload, config.timing.tickHz, this.streams);
  }

  connection(client: number): RtypeConnection {
    const c = this.connections[client - 1];
    if (c === undefined) throw new Error(`rtype session: no client ${client}`);
    return c;
  }

  /** Runs the configured duration from time zero (once). */
  run(): void {
    if (this.ran) throw new Error('rtype session: run() called twice');
    this.ran = true;
    const endUs = msToUs(this.config.durationMs);
    this.sim.at(ZERO_US, () => this.frame());
    for (const c of this.connections) this.startClient(c);
    const everyUs = msToUs(this.config.sampleEveryMs);
    for (let t = everyUs; t <= endUs; t = addUs(t, everyUs))
      this.sim.at(t, () => this.metrics.sample(Math.round(usToMs(this.sim.now)), this.server));
    this.sim.runUntil(endUs);
  }

  /** One game-loop frame: the game's step (deaths, positions), then the ACK pass. */
  private frame(): void {
    const now = this.sim.now;
    const server = this.server;
    server.beginFrame(now, this.clock.tick);
    for (const entityId of this.workload.deathsAt(now)) server.queueCritical(entityId);
    for (let i = 0; i < this.config.workload.positionsPerFrame; i++) {
      const p = DeathWorkload.position(this.frameIndex, i);
      server.broadcastPosition(p.entityId, p.x, p.y);
    }
    server.maintain();
    const stats = server.endFrame();
    this.metrics.frame(stats);
    this.frameIndex++;
    const nextUs = this.clock.finishFrame(now, this.clock.workUs(stats.datagrams));
    this.sim.at(nextUs, () => this.frame());
  }

  private startClient(c: RtypeConnection): void {
    const w = this.config.workload;
    const joinUs: Micros = msToUs(w.firstJoinMs + (c.client - 1) * w.joinSpacingMs);
    const retryUs = msToUs(w.registerRetryMs);
    const register = (): void => {
      if (c.peer.heardFromServer) return;
      c.peer.register();
      this.sim.after(retryUs, register);
    };
    this.sim.at(joinUs, register);
    if (w.clientSendIntervalMs === null) return;
    const intervalUs = maxUs(micros(1), msToUs(w.clientSendIntervalMs));
    let sent = 0;
    const send = (): void => {
      c.peer.sendOrdinary((sent++ * 5) % 1920, c.client * 100);
      this.sim.after(intervalUs, send);
    };
    this.sim.at(addUs(joinUs, intervalUs), send);
  }

  private makeConnection(client: number): RtypeConnection {
    const links = linksOf(this.config, client);
    const c = { client, wire: newWireCounts(), criticalDropped: 0 } as {
      -readonly [K in keyof RtypeConnection]: RtypeConnection[K];
    };
    c.peer = new RtypeClient(client, this.switches, {
      sendUdp: (bytes) => {
        this.record('udpClientToServer', c, bytes);
        c.clientToServer.send(bytes, NO_UIDS);
      },
      sendTcp: (bytes) => {
        if (c.tcp.send(bytes)) this.record('tcpClientToServer', c, bytes);
      },
      deathArrived: (entityId) => this.ledger.arrived(client, entityId, this.sim.now),
    });
    c.serverToClient = new Link(
      this.sim,
      `client${client}.serverToClient`,
      links.serverToClient,
      this.streams,
      (bytes) => c.peer.receiveUdp(bytes),
      {
        dropped: (bytes) => {
          if (bytes.length > HEADER_BYTES && bytes[HEADER_BYTES] === OPCODE_DEAD) c.criticalDropped++;
        },
      },
    );
    c.clientToServer = new Link(
      this.sim,
      `client${client}.clientToServer`,
      links.clientToServer,
      this.streams,
      (bytes) => this.server.receiveUdp(client, bytes),
    );
    c.tcp = new TcpChannel(this.sim, this.config.tcp, (bytes) => this.server.receiveTcp(client, bytes));
    return c;
  }

  private record(direction: RtypeDirection, c: RtypeConnection, bytes: Uint8Array): void {
    this.traceHash.record(this.sim.now, direction, c.client, bytes);
    const total = this.wire[direction];
    total.datagrams++;
    total.bytes += bytes.length;
    const own = c.wire[direction];
    own.datagrams++;
    own.bytes += bytes.length;
  }
}
