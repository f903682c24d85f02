// `bcsim peer`: one end of the model, client or dedicated
// server, on a real UDP socket against a real counterpart. The same transport,
// traffic script and codec as a simulated run, on the WallClock instead of the
// Simulator; the real cipher on the wire (docs/sources.md 22). Every datagram
// either end sent is kept, decrypted, in a WireLog for the counterpart's
// analysis and the conformance rules.
import type { RemoteInfo } from 'node:dgram';
import { GAMESPY_FIRST_BYTE, TYPE_DATA, decrypt, encrypt } from '../../core/codec/index.js';
import type { DataType } from '../../core/codec/index.js';
import { ONE_SECOND_US, RandomStreams, ZERO_US, addUs, micros, msToUs } from '../../core/engine/index.js';
import type { Micros } from '../../core/engine/index.js';
import { TrafficDriver, joinSteps } from '../../model/traffic/index.js';
import type { TrafficPort } from '../../model/traffic/index.js';
import {
  SERVER_IDENTITY,
  clientIdentity,
  PeerTransport,
  connectionEnded,
  ServerHost,
  UpdateLoop,
} from '../../model/transport/index.js';
import type { TransportHooks, Role } from '../../model/transport/index.js';
import { formatHostPort } from '../endpoint.js';
import { LatenessRing, WallClock } from '../wall-clock.js';
import { UnreadableCounter } from '../unreadable.js';
import { WireLog } from '../wire-log.js';
import type { WireRecord } from '../wire-log.js';
import { AskedRounds } from './asked-rounds.js';
import { ChecksumCheck } from './checksum-check.js';
import { DISCONNECT_GRACE_US, goodbyePlan } from './goodbye.js';
import { IntakeWarnings, intake } from './intake.js';
import type { Intake } from './intake.js';
import { OwnMessages } from './own-messages.js';
import { RemoteBridge } from './remote-bridge.js';
import { Places } from './places.js';
import type { LiveConnection } from './places.js';
import { livePlanted } from './planted-wire.js';
import type { LivePlanted } from './planted-wire.js';
import type { LivePeerOptions, StopReason } from './live-peer-options.js';
export type { LivePeerOptions, StopReason } from './live-peer-options.js';

/** How often a leaving client polls its connection state. */
const DISCONNECT_POLL_US = micros(10_000);

export class LivePeer {
  readonly clock: WallClock;
  readonly log: WireLog;
  readonly own = new OwnMessages();
  readonly sendLateness = new LatenessRing();
  readonly places: Places;
  readonly traffic: TrafficDriver;
  readonly bridge: RemoteBridge;
  readonly host: ServerHost | null = null;
  /** A client side's update loops, one per client (index = client - 1); none for a server. */
  private readonly clientLoops: UpdateLoop[] = [];
  /** Datagrams bcsim could not read, by source address. */
  readonly unreadable = new UnreadableCounter();
  /**
   * Datagrams from addresses past the server's client count, from new addresses that opened no
   * connection (unreadable, or not from a client without a slot), GameSpy queries, and socket send errors; places of departed clients given to new ones.
   */
  readonly wire = {
    sent: 0,
    received: 0,
    refusedAddresses: 0,
    unopened: 0,
    placesReused: 0,
    /** A client side's players that joined again after the server ended their connection. */
    rejoins: 0,
    gamespy: 0,
    sendErrors: 0,
    /** Datagrams --loss dropped at our socket: ours not sent, the counterpart's not read. */
    lostOut: 0,
    lostIn: 0,
  };
  private readonly warnings: IntakeWarnings;
  /** The counterpart's messages our transport handed to the game: reliable (in order, once) and unreliable. */
  reliableDelivered = 0;
  unreliableDelivered = 0;
  /** Of the duplicates our transport dropped, the counterpart's keepalives (type 0x00) repeated under a seq it had used. */
  keepaliveDuplicates = 0;
  /** Clients the server removed for a protocol error, with the reason (a bad checksum answer). */
  readonly removals: Array<{
    readonly client: number;
    readonly connection: number;
    readonly timeUs: number;
    readonly reason: string;
  }> = [];
  private readonly checksums: ChecksumCheck;
  /** A client's checksum requests not yet answered, by connection. */
  private readonly askedRounds: AskedRounds;
  /** The test-only planted bug's live hooks (planted-wire.ts), resolved here once; NO_LIVE_PLANTED in a real run. */
  readonly planted: LivePlanted;
  private finished: ((reason: StopReason) => void) | null = null;
  readonly done: Promise<StopReason>;
  stopReason: StopReason | null = null;
  private stopping = false;
  /** With a duration: when the run ends at the latest, goodbye included (goodbye.ts). */
  private endByUs: Micros | null = null;

  constructor(private readonly options: LivePeerOptions) {
    this.clock = options.clock ?? new WallClock(undefined, () => this.stop('error'), setImmediate);
    this.log = new WireLog(options.wireLogBytes);
    this.planted = livePlanted(options.switches);
    this.askedRounds = new AskedRounds(options.scenario.traffic.manifest);
    this.checksums = new ChecksumCheck(options.scenario.traffic.manifest, options.checksums, options.formOnlyRounds);
    this.done = new Promise((resolve) => (this.finished = resolve));
    this.warnings = new IntakeWarnings(options.warn ?? (() => {}));
    const scenario = options.scenario;
    const role = options.role;
    const count = options.clients;
    if (options.sockets.length !== (role === 'client' ? count : 1))
      throw new Error(`live-peer: ${options.sockets.length} sockets for a ${role} of ${count} clients`);
    this.places = new Places(
      this.clock,
      count,
      (client) => this.makeConnection(client),
      (client) => {
        this.bridge.forget(client);
        this.checksums.forget(client);
        // A client side's player joins again in rejoin(), once its fresh loop is in place.
        if (role === 'server') {
          this.traffic.rejoin(client);
          this.wire.placesReused++;
        }
      },
    );
    if (role === 'server') {
      this.host = new ServerHost(
        this.clock,
        scenario.params.updatePeriodMs.server,
        this.connections.map((c) => c.peer),
        {},
      );
      this.places.serve(this.host);
    } else {
      for (const c of this.connections) this.clientLoops.push(this.clientLoop(c));
      this.places.openToServer(
        options.remote === null ? null : { address: options.remote.host, port: options.remote.port },
      );
    }
    this.bridge = new RemoteBridge(this.clock, role, () => this.traffic, joinSteps(scenario.traffic.manifest));
    // A live server answers each real client's Connect when it comes: no staggered joins (those script a simulated session).
    const plan = role === 'server' ? { ...scenario.traffic, joinStaggerUs: ZERO_US } : scenario.traffic;
    this.traffic = new TrafficDriver(plan, this.port(), new RandomStreams(options.seed), count);
    // StateUpdates are drawn at their sender's update tick, not by a timer each.
    this.host?.loop.onUpdate((nowUs) => this.traffic.serverUpdate(nowUs));
  }

  /** A client's own update loop (docs/sources.md 16), drawing its StateUpdates at each tick; started by its join. */
  private clientLoop(c: LiveConnection): UpdateLoop {
    const loop = new UpdateLoop(this.clock, this.options.scenario.params.updatePeriodMs.client, false);
    loop.add(c.peer);
    loop.onUpdate((nowUs) => this.traffic.clientUpdate(c.client, nowUs));
    return loop;
  }

  get role(): Role {
    return this.options.role;
  }

  /** The connection holding each place: index = client - 1. */
  get connections(): LiveConnection[] {
    return this.places.connections;
  }

  /** Starts the updates, the traffic script and the socket; `done` resolves when the run stops. */
  start(): void {
    this.options.sockets.forEach((socket, i) => socket.on('message', (msg, rinfo) => this.onDatagram(msg, rinfo, i)));
    this.host?.loop.start(ZERO_US);
    this.traffic.start();
    const everySecond = this.clock.after(ONE_SECOND_US, () => {
      this.sampleDedup();
      this.clock.reschedule(everySecond, addUs(this.clock.now, ONE_SECOND_US));
    });
    if (this.options.durationUs !== null) {
      const plan = goodbyePlan(this.role, this.options.switches, this.options.durationUs);
      this.endByUs = plan.endByUs;
      this.clock.at(plan.goodbyeAtUs, () => this.stop('duration'));
    }
    this.clock.catchUp();
  }

  /** Ends the run: a client first says goodbye (until the connection ends, or the plan's end at the latest); then the clock stops. */
  stop(reason: StopReason): void {
    if (this.stopping) {
      // A second Ctrl-C does not wait for the goodbye.
      if (reason === 'signal') this.finish();
      return;
    }
    this.stopping = true;
    this.stopReason = reason;
    this.traffic.stop();
    // A client side says goodbye on every connection still open, and ends once they all have.
    const leaving = this.role === 'client' ? this.connections.filter((c) => !connectionEnded(c.peer.state)) : [];
    if (leaving.length > 0 && reason !== 'error') {
      for (const c of leaving) c.peer.disconnect();
      // The end is its own timer, so the run ends exactly then, not at the next poll.
      this.clock.at(
        reason === 'duration' && this.endByUs !== null ? this.endByUs : addUs(this.clock.now, DISCONNECT_GRACE_US),
        () => this.finish(),
      );
      const poll = this.clock.after(DISCONNECT_POLL_US, () => {
        if (this.allEnded()) this.finish();
        else this.clock.reschedule(poll, addUs(this.clock.now, DISCONNECT_POLL_US));
      });
      this.clock.catchUp();
      return;
    }
    this.finish();
  }

  private finish(): void {
    if (this.finished === null) return;
    this.sampleDedup();
    for (const loop of this.clientLoops) loop.stop();
    this.host?.loop.stop();
    this.clock.stop();
    for (const socket of this.options.sockets) socket.removeAllListeners('message');
    this.finished?.(this.stopReason ?? 'signal');
    this.finished = null;
  }

  /** --loss: this datagram is lost (a draw only when there is a loss). */
  private lost(): boolean {
    const loss = this.options.loss;
    return loss !== undefined && loss.stream.next() < loss.probability;
  }

  /** A client side's player joins its server again on a fresh connection (rejoinAfterUs). */
  private rejoin(client: number): void {
    if (this.stopping) return;
    // A fresh loop for the fresh connection: the old one ended with its peer. The join starts it.
    this.clientLoops[client - 1].stop();
    const fresh = this.places.rejoin(client);
    // Its liveness counts from now, not from the run's start.
    fresh.peer.activate();
    this.clientLoops[client - 1] = this.clientLoop(fresh);
    this.traffic.rejoin(client);
    this.wire.rejoins++;
  }

  /** True when every connection of a client side has ended. */
  private allEnded(): boolean {
    return this.connections.every((c) => connectionEnded(c.peer.state));
  }

  /** `socketIndex`: which of our sockets it came in on (a client side's k-th socket is client k's). */
  private onDatagram(msg: Buffer, rinfo: RemoteInfo, socketIndex: number): void {
    this.clock.catchUp();
    if (msg.length > 0 && msg[0] === GAMESPY_FIRST_BYTE) {
      this.wire.gamespy++;
      return;
    }
    const wire = new Uint8Array(msg.buffer, msg.byteOffset, msg.length);
    const plain = decrypt(wire);
    // docs/sources.md 30: a reimplementation's wire forms reach the transport in their stock form.
    const read = intake(plain);
    const key = formatHostPort(rinfo);
    if (read.problem !== null) this.unreadable.add(key, plain, read.problem);
    const connection = this.connectionOf(key, rinfo, wire, plain, read, socketIndex);
    if (connection === null) return;
    // A connection reads only its own client's datagrams (planted peer-by-id aside: it hijacks on purpose).
    if (
      this.host !== null &&
      !this.planted.peerById &&
      (connection.address?.address !== rinfo.address || connection.address.port !== rinfo.port)
    )
      throw new Error(
        `live-peer: a datagram from ${key} reached connection ${connection.id} of ${connection.address === null ? 'no address' : formatHostPort(connection.address)}`,
      );
    if (this.planted.stalls(key, msg.length)) return;
    if (this.lost()) {
      this.wire.lostIn++;
      return;
    }
    this.wire.received++;
    const bytes = this.planted.read(read.bytes);
    const arrivedFromUs = this.clock.arrivedFromUs();
    const record: WireRecord = {
      timeUs: this.clock.now,
      ...(arrivedFromUs < this.clock.now ? { arrivedFromUs } : {}),
      from: 'remote',
      connection: connection.id,
      bytes,
      ...(bytes === plain ? {} : { wire: plain }),
      ...(read.deviations.length > 0 ? { deviations: read.deviations } : {}),
    };
    // Read once, by intake: the log need not decode it again.
    this.log.add(record, read.problem !== null);
    this.options.onWire?.(record);
    if (this.host !== null) this.host.arrive(connection.client - 1, bytes, []);
    else connection.peer.arrive(bytes, []);
    this.clock.catchUp();
  }

  /**
   * A client hears only its server; a server maps each new address to the next
   * client number, once that address sends a datagram that opens a connection.
   */
  private connectionOf(
    key: string,
    rinfo: RemoteInfo,
    wire: Uint8Array,
    plain: Uint8Array,
    read: Intake,
    socketIndex: number,
  ): LiveConnection | null {
    if (this.role === 'client') {
      const c = this.connections[socketIndex];
      if (c.address !== null && formatHostPort(c.address) !== key) {
        this.wire.refusedAddresses++;
        return null;
      }
      return c;
    }
    if (this.planted.peerById && !this.places.knows(key)) {
      const hijacked = this.places.byPeerId(plain[0]);
      if (hijacked !== null) return hijacked;
    }
    const found = this.places.forAddress(key, rinfo, read);
    if ('connection' in found) return found.connection;
    if ('unopened' in found) {
      this.wire.unopened++;
      this.warnings.unopened(key, wire, plain, found.unopened);
    } else {
      this.wire.refusedAddresses++;
      this.warnings.refused(key, this.connections.length);
    }
    return null;
  }

  private emit(connection: LiveConnection, given: Uint8Array): void {
    const to = connection.address;
    if (to === null) return;
    const bytes = this.planted.send(given);
    // Scheduled time against the moment the datagram really leaves.
    this.sendLateness.record(this.clock.wallUs() - this.clock.now);
    if (this.lost()) {
      this.wire.lostOut++;
      return;
    }
    const record: WireRecord = { timeUs: this.clock.now, from: 'local', connection: connection.id, bytes };
    this.log.add(record);
    this.options.onWire?.(record);
    this.wire.sent++;
    const socket = this.options.sockets[this.role === 'client' ? connection.client - 1 : 0];
    socket.send(encrypt(bytes), to.port, to.address, (error) => {
      if (error) this.wire.sendErrors++;
    });
  }

  private sendApp(client: number, type: DataType, given: Uint8Array, reliable: boolean, ordered: boolean): number {
    const peer = this.connections[client - 1].peer;
    if (this.host !== null) this.checksums.sent(client, type, given);
    const payload = this.host === null ? this.askedRounds.answer(client, type, given) : given;
    // As Session.sendApp: an oversized unreliable message goes as reliable fragments (transport-layer.md §5).
    if (!(reliable || peer.fragments(type, payload.length))) {
      if (peer.sendMessage(type, payload, reliable, ordered, -1)) this.own.unreliableSent++;
      return -1;
    }
    const uid = this.own.register();
    if (!peer.sendMessage(type, payload, reliable, ordered, uid)) this.own.refused(uid);
    else this.bridge.sentOwn(client, uid, type, payload);
    return uid;
  }

  private port(): TrafficPort {
    const local = this.role;
    return {
      sim: this.clock,
      send: (from, client, type, payload, reliable, ordered) =>
        from === local
          ? this.sendApp(client, type as DataType, payload, reliable, ordered)
          : this.bridge.expect(client, type, payload, reliable),
      // The counterpart's hosts start, leave and die on their own.
      startClient: (client) => {
        this.clientLoops[client - 1]?.start(msToUs(this.options.scenario.params.clientTickOffsetMs));
      },
      disconnect: (client) => {
        if (local === 'client') this.connections[client - 1].peer.disconnect();
      },
      halt: (client) => {
        if (local !== 'client') return;
        this.clientLoops[client - 1].stop();
        this.connections[client - 1].peer.halt();
      },
      slotOf: (client) => (this.host === null ? null : this.host.slotOf(client - 1)),
      setUpdatePeriods: (periods) => {
        const params = this.options.scenario.params.updatePeriodMs;
        this.host?.loop.setPeriod(periods?.server ?? params.server);
        for (const loop of this.clientLoops) loop.setPeriod(periods?.client ?? params.client);
      },
      // Only our own client's loop can wait for its handler; the counterpart's runs on its own.
      stallClient: (client, busyUs) => {
        if (local === 'client') this.clientLoops[client - 1].stall(busyUs);
      },
      stallServer: (busyUs) => {
        if (local === 'server') this.host?.loop.stall(busyUs);
      },
    };
  }

  private makeConnection(client: number): LiveConnection {
    const role = this.role;
    const conn = {
      id: 0,
      client,
      address: null,
      dedupLast: 0,
      dedupMaxPerSecond: 0,
      joinedAtUs: null,
      openedAtUs: null,
      retiredAtUs: null,
      retiredSlot: null,
      removed: false,
    } as unknown as LiveConnection;
    const hooks: TransportHooks = {
      emit: (bytes) => this.emit(conn, bytes),
      deliver: (delivery) => {
        this.reliableDelivered++;
        if (role === 'client') this.askedRounds.delivered(client, delivery.type, delivery.payload);
        const refusal = this.host === null ? null : this.checksums.refusal(client, delivery.type, delivery.payload);
        if (refusal === null) this.bridge.delivered(client, delivery);
        else this.remove(conn, refusal);
      },
      deliverUnreliable: () => this.unreliableDelivered++,
      duplicateReceived: (message) => {
        if (message.type === TYPE_DATA) this.keepaliveDuplicates++;
      },
      gaveUp: (uid) => this.own.gaveUp(uid),
      acknowledged: (uid) => this.own.acknowledged(uid),
      refused: (uid) => this.own.refused(uid),
      newUid: (reliable) => (reliable ? this.own.register(true) : -1),
      sentUnreliable: () => this.own.unreliableSent++,
      stateChanged: (state) => {
        // A connection whose place went to a new client no longer speaks for that place.
        if (role === 'server') {
          if (this.connections[client - 1] === conn) this.host?.connectionChanged(client - 1, state);
        } else if (connectionEnded(state) && !this.stopping) {
          const after = this.options.rejoinAfterUs ?? null;
          if (after !== null && this.connections[client - 1] === conn)
            this.clock.after(after, () => this.rejoin(client));
          else if (this.allEnded()) this.stop('connection-ended');
        }
      },
    };
    const params = { ...this.options.scenario.params, tickMs: this.options.scenario.params.updatePeriodMs[role] };
    const identity = role === 'server' ? SERVER_IDENTITY : clientIdentity(client);
    (conn as { peer: PeerTransport }).peer = new PeerTransport(
      role,
      this.clock,
      this.options.switches,
      params,
      hooks,
      identity,
    );
    return conn;
  }

  /** The server removes a client for a protocol error: a Boot first (PeerTransport.kick). */
  private remove(connection: LiveConnection, reason: string): void {
    const slot = this.host?.slotOf(connection.client - 1);
    if (slot === null || slot === undefined || connection.removed) return;
    connection.removed = true;
    this.removals.push({ client: connection.client, connection: connection.id, timeUs: this.clock.now, reason });
    connection.peer.kick(slot);
  }

  private sampleDedup(): void {
    for (const c of this.connections) {
      const total = c.peer.counters.dedupComparisons;
      c.dedupMaxPerSecond = Math.max(c.dedupMaxPerSecond, total - c.dedupLast);
      c.dedupLast = total;
      if (c.joinedAtUs === null && this.traffic.inGame().includes(c.client)) c.joinedAtUs = this.clock.now;
    }
  }
}
