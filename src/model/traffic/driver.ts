// Runs a TrafficPlan on the simulator for one server and N clients:
// one phase at a time, cycling if asked. Each client joins (reactively: each
// join step replies to a delivery), then takes part in whatever phase is on.
// StateUpdates flow per connection and direction; game events come from the
// players and the server (sources.ts), and the server relays each player's
// reliable game message to every other player, as a dedicated server does.
import { TYPE_GAME } from '../../core/codec/index.js';
import { ZERO_US, msToUsUnrounded, scaleUs } from '../../core/engine/index.js';
import type { Micros, RandomStream, RandomStreams, Timer } from '../../core/engine/index.js';
import type { Delivery, Role } from '../transport/index.js';
import { SHIP_SELECTION_MS, STATE_UPDATES_START_AFTER_SELECTION_MS, joinPayload, joinSteps } from './join.js';
import type { JoinStep } from './join.js';
import { ShipDeaths } from './deaths.js';
import type { DeathHost, DeathStage } from './deaths.js';
import type { Phase, TrafficPlan } from './plan.js';
import { eventMix } from './mix.js';
import {
  CHAT_CLIENT_SHARE,
  Origins,
  PayloadSalt,
  chatSender,
  eventsPerSecond,
  StateUpdateSource,
  reliableEventSender,
  startArrivals,
} from './sources.js';
import type { TrafficPort } from './sources.js';

export interface PhaseStart {
  readonly kind: Phase['kind'];
  readonly index: number;
  readonly startUs: Micros;
}

/** Explicit bound on the phase log kept for reports. */
const MAX_PHASE_LOG = 10_000;

type ClientStatus = 'idle' | 'joining' | 'in-game' | 'gone';

/** Who is in game, who has a ship, who is fed; each in client order. */
interface Membership {
  readonly inGame: readonly number[];
  readonly withShips: readonly number[];
  readonly fed: readonly number[];
}

export class TrafficDriver {
  readonly phaseLog: PhaseStart[] = [];
  /** Relayed player messages (one per other player per message). */
  relayed = 0;
  private current = -1;
  /** The last phase ended and nothing repeats: no source starts again. */
  private planOver = false;
  /** The phase's own timers: its end and its session-wide sources. */
  private timers: Timer[] = [];
  /** Each client's join timers. */
  private readonly clientTimers = new Map<number, Timer[]>();
  /**
   * The current phase's StateUpdate sources: index 2(k - 1) is client k's own, 2(k - 1) + 1
   * the server's to client k; null where none runs. Drawn at the senders' update ticks.
   */
  private readonly stateUpdateSources: Array<StateUpdateSource | null>;
  /** The session-wide event source; restarted when the players in game change. */
  private eventTimer: Timer | null = null;
  private readonly status: ClientStatus[];
  /** inGame / withShips / fed, or null once a status or a ship changed. */
  private members: Membership | null = null;
  /** Ship deaths (traffic.deaths), null when the plan has none. */
  readonly deaths: ShipDeaths | null;
  /** Clients of the first join phase still joining; the phase ends when none is left. */
  private readonly joiningInPhase = new Set<number>();
  private readonly lateJoiners: ReadonlySet<number>;
  private readonly joinAwaiting = new Map<number, { client: number; step: JoinStep }>();
  /** The join of the plan's checksum manifest (docs/sources.md 31). */
  readonly join: readonly JoinStep[];
  private readonly salt = new PayloadSalt();
  private readonly streams: {
    stateUpdates: Array<Record<Role, RandomStream>>;
    reliable: RandomStream;
    chat: RandomStream;
  };

  constructor(
    private readonly plan: TrafficPlan,
    private readonly port: TrafficPort,
    streams: RandomStreams,
    private readonly clients = 1,
  ) {
    // Client 1 keeps the stream names of the one-client model, so its runs are unchanged.
    const suffix = (k: number) => (k === 1 ? '' : `.${k}`);
    this.streams = {
      stateUpdates: Array.from({ length: clients }, (_, i) => ({
        client: streams.stream(`traffic.stateUpdates.client${suffix(i + 1)}`),
        server: streams.stream(`traffic.stateUpdates.server${suffix(i + 1)}`),
      })),
      reliable: streams.stream('traffic.reliable'),
      chat: streams.stream('traffic.chat'),
    };
    // Only a plan with deaths takes the stream: the draws of every other source stay as they were.
    this.deaths =
      plan.deaths === null
        ? null
        : new ShipDeaths(plan.deaths, this.deathHost(), streams.stream('traffic.deaths'), this.salt);
    this.status = Array.from({ length: clients + 1 }, () => 'idle');
    this.stateUpdateSources = Array.from({ length: 2 * clients }, () => null);
    const late = new Set<number>();
    for (const phase of plan.phases) if (phase.kind === 'join' && phase.client !== undefined) late.add(phase.client);
    this.lateJoiners = late;
    this.join = joinSteps(plan.manifest);
  }

  start(): void {
    // Without a join phase, the clients are in game from the start.
    if (!this.plan.phases.some((p) => p.kind === 'join' && p.client === undefined)) {
      for (let k = 1; k <= this.clients; k++) {
        if (this.lateJoiners.has(k)) continue;
        this.port.startClient(k);
        this.setStatus(k, 'in-game');
      }
    }
    if (this.plan.phases.length > 0) this.enter(0);
  }

  /** Stops every source and pending join step: nothing more is sent (a live run ending). */
  stop(): void {
    this.cancelTimers();
    for (let k = 1; k <= this.clients; k++) this.cancelClientTimers(k);
    this.deaths?.endAll();
    this.joinAwaiting.clear();
  }

  /**
   * A live server's place for `client` was taken by a new client after the last
   * one left: everything of the old one is dropped and the join starts again.
   */
  rejoin(client: number): void {
    this.cancelClientTimers(client);
    for (const [uid, waiting] of this.joinAwaiting) if (waiting.client === client) this.joinAwaiting.delete(uid);
    this.joiningInPhase.delete(client);
    this.deaths?.end(client, false);
    this.setStatus(client, 'idle');
    this.startJoin(client);
    this.startEventSource();
  }

  /** Players in game, in client order. */
  inGame(): readonly number[] {
    return this.membership().inGame;
  }

  /** Players in game with a ship: they start game messages. */
  private withShips(): readonly number[] {
    return this.membership().withShips;
  }

  /** Players in game the server sends the game to: without a ship too, unless traffic.deaths.whileDead is nothing. */
  private fed(): readonly number[] {
    return this.membership().fed;
  }

  /**
   * The three lists, rebuilt only after a status or ship change: every game event reads
   * them, and building them per event cost three arrays and a closure each time.
   */
  private membership(): Membership {
    if (this.members !== null) return this.members;
    const inGame: number[] = [];
    for (let k = 1; k <= this.clients; k++) if (this.status[k] === 'in-game') inGame.push(k);
    this.members = {
      inGame,
      withShips: inGame.filter((k) => this.deaths?.stageOf(k) === undefined),
      fed: inGame.filter((k) => this.isFed(k)),
    };
    return this.members;
  }

  /** Every change of `status` goes through here, and of a death's stage through stageChanged: the cached lists never go stale. */
  private setStatus(client: number, status: ClientStatus): void {
    this.status[client] = status;
    this.members = null;
  }

  /** On the selection screen the server feeds a player the game, or nothing (whileDead); a wreck is fed. */
  private isFed(client: number): boolean {
    return this.deaths === null || !this.deaths.shipless(client) || this.plan.deaths?.whileDead === 'game';
  }

  /** What the deaths see of the driver. */
  private deathHost(): DeathHost {
    return {
      port: this.port,
      withShips: () => this.withShips(),
      fed: () => this.fed(),
      stageChanged: (client, stage, restart) => this.stageChanged(client, stage, restart),
    };
  }

  /**
   * A dead player's stage changed. A wreck starts no game message; on the selection screen
   * its own StateUpdates stop (and the server's, unless it is fed); with a ship again, both run.
   * The event source restarts at the rate the senders and the fed players now give.
   */
  private stageChanged(client: number, stage: DeathStage | null, restart: boolean): void {
    this.members = null;
    if (!restart || this.status[client] !== 'in-game' || this.planOver) return;
    if (stage === 'picked') return;
    if (stage !== 'wreck') {
      this.cancelClientTimers(client);
      this.startClientSources(client);
    }
    this.startEventSource();
  }

  /** The session reports every reliable delivery: the join advances on them, and the server relays. */
  onDelivered(to: Role, client: number, uid: number, delivery: Delivery): void {
    if (this.joinAwaiting.size > 0) {
      const waiting = this.joinAwaiting.get(uid);
      if (waiting !== undefined && waiting.step.from !== to) {
        this.joinAwaiting.delete(uid);
        this.joinStepDone(waiting.client, waiting.step);
        return;
      }
    }
    if (to === 'server' && delivery.type === TYPE_GAME && this.status[client] === 'in-game' && this.clients > 1)
      this.relay(client, delivery.payload);
  }

  private relay(from: number, payload: Uint8Array): void {
    // The held bytes are the receiver's view; the relay keeps its own copy.
    const copy = payload.slice();
    for (let k = 1; k <= this.clients; k++) {
      if (k === from || this.status[k] !== 'in-game' || !this.isFed(k)) continue;
      this.port.send('server', k, TYPE_GAME, copy, true, false);
      this.relayed++;
    }
  }

  private enter(index: number): void {
    this.cancelTimers();
    this.current = index;
    const phase = this.plan.phases[index];
    if (this.phaseLog.length < MAX_PHASE_LOG)
      this.phaseLog.push({ kind: phase.kind, index, startUs: this.port.sim.now });
    // A phase's update periods; an instant (leave, late join) keeps the ones in force.
    const instant =
      phase.kind === 'disconnect' || phase.kind === 'timeout' || (phase.kind === 'join' && phase.client !== undefined);
    if (!instant || ('updatePeriodMs' in phase && phase.updatePeriodMs))
      this.port.setUpdatePeriods(('updatePeriodMs' in phase ? phase.updatePeriodMs : undefined) ?? null);
    switch (phase.kind) {
      case 'join':
        if (phase.client !== undefined) {
          this.startJoin(phase.client);
          this.schedule(ZERO_US, () => this.next());
        } else {
          this.startInitialJoins();
        }
        return;
      case 'disconnect':
        for (const k of phase.client === undefined ? this.connected() : [phase.client]) this.leave(k, 'disconnect');
        this.schedule(ZERO_US, () => this.next());
        return;
      case 'timeout':
        this.leave(phase.client, 'halt');
        this.schedule(ZERO_US, () => this.next());
        return;
      default:
        break;
    }
    for (const k of this.inGame()) this.startClientSources(k);
    this.startEventSource();
    if (phase.kind === 'combat') this.deaths?.start();
    if (phase.durationUs !== null) this.schedule(phase.durationUs, () => this.next());
  }

  private startInitialJoins(): void {
    let order = 0;
    for (let k = 1; k <= this.clients; k++) {
      if (this.lateJoiners.has(k) || this.status[k] !== 'idle') continue;
      this.joiningInPhase.add(k);
      const delayUs = scaleUs(this.plan.joinStaggerUs, order++);
      if (delayUs === 0) this.startJoin(k);
      else this.schedule(delayUs, () => this.startJoin(k));
    }
    if (this.joiningInPhase.size === 0) this.schedule(ZERO_US, () => this.next());
  }

  private startJoin(client: number): void {
    if (this.status[client] !== 'idle') return;
    this.setStatus(client, 'joining');
    this.port.startClient(client);
    this.runJoinStep(client, this.join[0]);
  }

  private joinStepDone(client: number, step: JoinStep): void {
    if (this.status[client] !== 'joining') return;
    const dependents = this.join.filter((s) => s.after === step.step);
    for (const next of dependents) {
      const checkMs = this.plan.serverChecks === 'none' ? 0 : (next.checkMs ?? 0);
      const thinkMs = next.from === 'client' && next.round === 2 ? this.plan.round2ThinkMs : next.delayMs + checkMs;
      if (next.from === 'client' && next.hashesTree && this.plan.treeHashing === 'in-update') {
        // The client hashes the tree inside the update that dispatched the request: the reply is
        // queued now and its update loop waits, so the reply leaves with the request's ACK.
        this.runJoinStep(client, next);
        this.port.stallClient(client, msToUsUnrounded(thinkMs));
      } else if (checkMs > 0 && next.delayMs === 0 && this.plan.serverChecks === 'in-update') {
        // The server checks the response inside the update that dispatched it: its loop waits.
        this.runJoinStep(client, next);
        this.port.stallServer(msToUsUnrounded(checkMs));
      } else {
        this.schedule(msToUsUnrounded(thinkMs), () => this.runJoinStep(client, next), client);
      }
    }
    if (dependents.length === 0 && step === this.join[this.join.length - 1]) {
      // Ship selection, then StateUpdates start ~150 ms later.
      this.schedule(
        msToUsUnrounded(SHIP_SELECTION_MS + STATE_UPDATES_START_AFTER_SELECTION_MS),
        () => this.enterGame(client),
        client,
      );
    }
  }

  private enterGame(client: number): void {
    if (this.status[client] !== 'joining') return;
    this.setStatus(client, 'in-game');
    this.clientTimers.delete(client); // its join timers have all fired
    if (
      this.joiningInPhase.delete(client) &&
      this.joiningInPhase.size === 0 &&
      this.plan.phases[this.current].kind === 'join'
    ) {
      this.next();
      return;
    }
    // A late joiner takes part in the phase that is on.
    this.startClientSources(client);
    this.startEventSource();
  }

  private leave(client: number, how: 'disconnect' | 'halt'): void {
    if (this.status[client] === 'idle' || this.status[client] === 'gone') return;
    this.setStatus(client, 'gone');
    this.joiningInPhase.delete(client);
    this.deaths?.end(client, false);
    this.cancelClientTimers(client);
    if (how === 'disconnect') this.port.disconnect(client);
    else this.port.halt(client);
    this.startEventSource();
  }

  /** Clients that started and have not left, in client order. */
  private connected(): number[] {
    const list: number[] = [];
    for (let k = 1; k <= this.clients; k++)
      if (this.status[k] === 'joining' || this.status[k] === 'in-game') list.push(k);
    return list;
  }

  private next(): void {
    const following = this.current + 1;
    if (following < this.plan.phases.length) this.enter(following);
    else if (this.plan.repeatFrom !== null) this.enter(this.plan.repeatFrom);
    else {
      this.cancelTimers();
      this.planOver = true;
    }
  }

  private startClientSources(client: number): void {
    const phase = this.plan.phases[this.current];
    if (phase.kind !== 'combat' && phase.kind !== 'lull') return;
    if (!(phase.stateUpdatesPerSecond > 0)) return;
    const streams = this.streams.stateUpdates[client - 1];
    for (const role of ['client', 'server'] as const) {
      // A player choosing a ship sends none; the server sends it the others' unless whileDead is nothing.
      if (this.deaths?.shipless(client) && (role === 'client' || !this.isFed(client))) continue;
      const index = sourceIndex(role, client);
      this.stateUpdateSources[index]?.stop(this.port.sim.now);
      this.stateUpdateSources[index] = new StateUpdateSource(
        this.port,
        role,
        client,
        phase.stateUpdatesPerSecond,
        phase.arrival,
        phase.stateUpdateBytes,
        streams[role],
        this.salt,
      );
    }
  }

  /** The server's update tick, before it sends: every connection's StateUpdates due by now are queued. */
  serverUpdate(nowUs: Micros): void {
    const sources = this.stateUpdateSources;
    for (let i = 1; i < sources.length; i += 2) sources[i]?.due(nowUs);
  }

  /** Client `client`'s update tick, before it sends: its StateUpdates due by now are queued. */
  clientUpdate(client: number, nowUs: Micros): void {
    this.stateUpdateSources[sourceIndex('client', client)]?.due(nowUs);
  }

  /** (Re)starts the session-wide source of the phase at the rate the players in game give. */
  private startEventSource(): void {
    if (this.eventTimer !== null) this.port.sim.cancel(this.eventTimer);
    this.eventTimer = null;
    const phase = this.plan.phases[this.current];
    const senders = () => this.withShips();
    const receivers = () => this.fed();
    const n = senders().length;
    if (phase.kind === 'combat') {
      const origins = new Origins(phase.reliablePerSecond, phase.clientShare);
      const mix = eventMix(phase.eventKinds);
      const fire = reliableEventSender(this.port, origins, senders, receivers, this.streams.reliable, this.salt, mix);
      this.eventTimer = startArrivals(
        this.port.sim,
        eventsPerSecond(origins.total(n), mix),
        phase.arrival,
        this.streams.reliable,
        fire,
      );
    } else if (phase.kind === 'lobby') {
      const origins = new Origins(phase.chatPerMinute / 60, CHAT_CLIENT_SHARE);
      const fire = chatSender(this.port, origins, senders, receivers, this.streams.chat, this.salt);
      this.eventTimer = startArrivals(this.port.sim, origins.total(n), 'poisson', this.streams.chat, fire);
    }
  }

  private runJoinStep(client: number, step: JoinStep): void {
    if (this.status[client] !== 'joining') return;
    let lastUid = -1;
    const slot = this.port.slotOf(client);
    for (const message of step.messages)
      lastUid = this.port.send(
        step.from,
        client,
        message.type,
        joinPayload(message, slot, client),
        message.reliable,
        message.ordered,
      );
    this.joinAwaiting.set(lastUid, { client, step });
  }

  /** A timer of the phase, or (with `client`) of one client's join or sources. */
  private schedule(delayUs: Micros, fn: () => void, client?: number): void {
    const timer = this.port.sim.after(delayUs, fn);
    if (client === undefined) this.timers.push(timer);
    else this.trackClient(client, timer);
  }

  private trackClient(client: number, timer: Timer | null): void {
    if (timer === null) return;
    let list = this.clientTimers.get(client);
    if (list === undefined) this.clientTimers.set(client, (list = []));
    list.push(timer);
  }

  /** Stops client `client`'s join timers and StateUpdate sources (what arrived before now is queued). */
  private cancelClientTimers(client: number): void {
    for (const timer of this.clientTimers.get(client) ?? []) this.port.sim.cancel(timer);
    this.clientTimers.delete(client);
    for (const role of ['client', 'server'] as const) {
      const index = sourceIndex(role, client);
      this.stateUpdateSources[index]?.stop(this.port.sim.now);
      this.stateUpdateSources[index] = null;
    }
  }

  private cancelTimers(): void {
    this.deaths?.stop();
    for (const timer of this.timers) this.port.sim.cancel(timer);
    this.timers = [];
    if (this.eventTimer !== null) this.port.sim.cancel(this.eventTimer);
    this.eventTimer = null;
    // Join timers survive a phase change; StateUpdate sources belong to the phase.
    for (let k = 1; k <= this.clients; k++) if (this.status[k] === 'in-game') this.cancelClientTimers(k);
  }
}

/** Where a connection's StateUpdate source from `from` sits in the driver's list. */
function sourceIndex(from: Role, client: number): number {
  return 2 * (client - 1) + (from === 'server' ? 1 : 0);
}
