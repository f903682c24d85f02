// Arrival processes for one phase: StateUpdates per direction, reliable game
// events from the measured mix, and lobby chat. Game events and chat reschedule
// one timer each (an event per message); StateUpdates, most of the traffic, are
// queued at their sender's update tick and cost no event.
import { TYPE_GAME } from '../../core/codec/index.js';
import type { RandomStream, Scheduler, Timer } from '../../core/engine/index.js';
import {
  DOUBLE_SEED_US,
  ZERO_US,
  addUs,
  bernoulli,
  exponential,
  micros,
  uniformInt,
  usPerEvent,
} from '../../core/engine/index.js';
import type { Micros } from '../../core/engine/index.js';
import type { Role } from '../transport/index.js';
import { FULL_MIX, MEASURED_MIX, drawEvent } from './mix.js';
import type { EventMix } from './mix.js';
import { Opcode, templatePayload } from './payloads.js';
import type { Arrival, UpdatePeriods } from './plan.js';

/** What the traffic script may do to a session of one server and N clients. */
export interface TrafficPort {
  readonly sim: Scheduler;
  /**
   * Sends an application message on connection `client` (1-based): from that
   * client to the server, or from the server to that client. Returns its uid.
   */
  send(from: Role, client: number, type: number, payload: Uint8Array, reliable: boolean, ordered: boolean): number;
  /** Client `client` starts its network updates (its join follows). */
  startClient(client: number): void;
  /** Client `client` leaves gracefully. */
  disconnect(client: number): void;
  /** Client `client`'s host goes away without a word. */
  halt(client: number): void;
  /** The slot the server gave client `client`, once it has one. */
  slotOf(client: number): number | null;
  /** Sets every host's update periods for a phase; null or a missing role = the scenario's. */
  setUpdatePeriods(periods: UpdatePeriods | null): void;
  /**
   * Client `client`'s game handler, running now inside its network update, keeps
   * that host busy for `busyUs`: its next update waits (traffic.treeHashing in-update).
   */
  stallClient(client: number, busyUs: Micros): void;
  /** The server's handler, running now inside its update, keeps it busy for `busyUs` (traffic.serverChecks in-update). */
  stallServer(busyUs: Micros): void;
}

/** Calls `fire` at the arrivals of a Poisson or periodic process of `perSecond`. */
export function startArrivals(
  sim: Scheduler,
  perSecond: number,
  arrival: Arrival,
  stream: RandomStream,
  fire: () => void,
): Timer | null {
  if (!(perSecond > 0)) return null;
  const meanUs = usPerEvent(perSecond);
  const startUs = sim.now;
  let k = 0;
  // Periodic arrivals sit at start + round(k * period), k = 0, 1, …, so no rounding
  // drift accumulates and a phase [start, end) holds exactly rate * length of them.
  const nextDelay = (): Micros =>
    micros(
      arrival === 'periodic'
        ? startUs + Math.round(++k * meanUs) - sim.now
        : Math.max(1, Math.round(exponential(stream, meanUs))),
    );
  const timer = sim.after(arrival === 'periodic' ? ZERO_US : nextDelay(), () => {
    fire();
    sim.reschedule(timer, addUs(sim.now, nextDelay()));
  });
  return timer;
}

export class PayloadSalt {
  private value = 0;
  next(): number {
    return ++this.value;
  }
}

/**
 * Unreliable StateUpdates (`32 LL 00`) on one connection and direction, whole-message size
 * uniform in [min, max], arriving as a Poisson or periodic process of `perSecond`. No timer:
 * the sender's update tick calls `due(now)`, which queues every arrival up to now. The
 * stream is the source's own and draws, per arrival, its size and then the gap to the next,
 * as one timer per StateUpdate did, so the arrival times and sizes are those of that model;
 * only the moment each is queued moves to the update that sends it.
 */
export class StateUpdateSource {
  private readonly meanUs: number;
  private readonly startUs: Micros;
  /** Periodic arrivals sit at start + round(k * period): no rounding drift accumulates. */
  private arrivals = 0;
  /** When the next StateUpdate arrives; Infinity once stopped. Seeded with a double: it is one. */
  private nextUs: number = DOUBLE_SEED_US;

  constructor(
    private readonly port: TrafficPort,
    private readonly from: Role,
    private readonly client: number,
    perSecond: number,
    private readonly arrival: Arrival,
    private readonly sizes: { readonly min: number; readonly max: number },
    private readonly stream: RandomStream,
    private readonly salt: PayloadSalt,
  ) {
    if (!(perSecond > 0)) throw new Error(`traffic: a StateUpdate source needs a positive rate, not ${perSecond}`);
    this.meanUs = usPerEvent(perSecond);
    this.startUs = port.sim.now;
    this.nextUs = arrival === 'periodic' ? this.startUs : this.startUs + this.gapUs();
  }

  /** Queues every StateUpdate that arrived at or before `nowUs` (an update tick: they leave in it). */
  due(nowUs: Micros): void {
    while (this.nextUs <= nowUs) this.arrive();
  }

  /**
   * The source ends now (its phase ended, the ship died, the player left): what arrived
   * before now is queued, as it would have been; an arrival at now belongs to what follows.
   */
  stop(nowUs: Micros): void {
    while (this.nextUs < nowUs) this.arrive();
    this.nextUs = Number.POSITIVE_INFINITY;
  }

  private arrive(): void {
    const sizes = this.sizes;
    const wireBytes = sizes.min === sizes.max ? sizes.min : uniformInt(this.stream, sizes.min, sizes.max);
    this.port.send(
      this.from,
      this.client,
      TYPE_GAME,
      templatePayload(Opcode.StateUpdate, wireBytes - 3, this.salt.next()),
      false,
      false,
    );
    this.nextUs =
      this.arrival === 'periodic'
        ? this.startUs + Math.round(++this.arrivals * this.meanUs)
        : this.nextUs + this.gapUs();
  }

  private gapUs(): number {
    return Math.max(1, Math.round(exponential(this.stream, this.meanUs)));
  }
}

/**
 * Who originates game messages: each in-game player at clientShare x
 * rate, the server at (1 - clientShare) x rate. A player's message goes to the
 * server (which relays it to the others); the server's goes to every client.
 */
export class Origins {
  constructor(
    readonly ratePerSecond: number,
    readonly clientShare: number,
  ) {}

  /** Messages per second originated with `players` in game. */
  total(players: number): number {
    return players === 0 ? 0 : this.ratePerSecond * (players * this.clientShare + 1 - this.clientShare);
  }

  /**
   * Draws an origin: a player (one of `inGame`), or null for the server. With one
   * player this is a single Bernoulli(clientShare) draw, p exactly clientShare
   * (the general formula may round it).
   */
  draw(stream: RandomStream, inGame: readonly number[]): number | null {
    const n = inGame.length;
    const byPlayers = n * this.clientShare;
    const p = n === 1 ? this.clientShare : byPlayers / (byPlayers + 1 - this.clientShare);
    if (!bernoulli(stream, p)) return null;
    return n === 1 ? inGame[0] : inGame[uniformInt(stream, 0, n - 1)];
  }
}

/** Sends one game message from its origin: a player to the server, or the server to every player. */
function sendFromOrigin(
  port: TrafficPort,
  origin: number | null,
  inGame: readonly number[],
  payload: Uint8Array,
  copies: number,
): void {
  if (origin !== null) {
    // Both copies are queued at the same instant, so they share a datagram.
    for (let i = 0; i < copies; i++) port.send('client', origin, TYPE_GAME, payload, true, false);
    return;
  }
  for (const client of inGame)
    for (let i = 0; i < copies; i++) port.send('server', client, TYPE_GAME, payload, true, false);
}

/**
 * Reliable game events drawn from the measured mix; StartFiring goes out as a pair.
 * `senders`: the players that start messages; `receivers`: those the server sends its own to.
 */
export function reliableEventSender(
  port: TrafficPort,
  origins: Origins,
  senders: () => readonly number[],
  receivers: () => readonly number[],
  stream: RandomStream,
  salt: PayloadSalt,
  mix: EventMix = FULL_MIX,
): () => void {
  return () => {
    const players = senders();
    if (players.length === 0) return;
    const origin = origins.draw(stream, players);
    const { kind, payloadBytes } = drawEvent(stream, mix);
    sendFromOrigin(port, origin, receivers(), templatePayload(kind.opcode, payloadBytes, salt.next()), kind.copies);
  };
}

/** Reliable messages/s -> events/s, given the pairs in the mix. */
export function eventsPerSecond(reliablePerSecond: number, mix: EventMix = FULL_MIX): number {
  return reliablePerSecond / mix.messagesPerEvent;
}

const CHAT = MEASURED_MIX.find((kind) => kind.name === 'Chat') as (typeof MEASURED_MIX)[number];

/** Lobby chat: half from the players, half from the server (one player's view). */
export const CHAT_CLIENT_SHARE = 0.5;

export function chatSender(
  port: TrafficPort,
  origins: Origins,
  senders: () => readonly number[],
  receivers: () => readonly number[],
  stream: RandomStream,
  salt: PayloadSalt,
): () => void {
  return () => {
    const players = senders();
    if (players.length === 0) return;
    const origin = origins.draw(stream, players);
    const bytes = CHAT.payloadBytes[uniformInt(stream, 0, CHAT.payloadBytes.length - 1)];
    sendFromOrigin(port, origin, receivers(), templatePayload(CHAT.opcode, bytes, salt.next()), 1);
  };
}
