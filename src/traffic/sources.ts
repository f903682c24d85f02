// Arrival processes for one phase: StateUpdates per direction, reliable game
// events from the measured mix, and lobby chat. Each source reschedules one
// timer, so a source costs one event per message it sends.
import { TYPE_GAME } from '../codec/index.js';
import type { RandomStream, Simulator, Timer } from '../engine/index.js';
import { bernoulli, exponential, uniformInt } from '../engine/index.js';
import type { Role } from '../transport/roles.js';
import { MESSAGES_PER_EVENT, MEASURED_MIX, drawEvent } from './mix.js';
import { Opcode, templatePayload } from './payloads.js';
import type { Arrival, UpdatePeriods } from './plan.js';

export interface TrafficPort {
  readonly sim: Simulator;
  /** Sends an application message; returns its accounting uid. */
  send(from: Role, type: number, payload: Uint8Array, reliable: boolean, ordered: boolean): number;
  disconnect(from: Role): void;
  /** Sets both roles' update periods for a phase; null or a missing role = the scenario's. */
  setUpdatePeriods(periods: UpdatePeriods | null): void;
}

/** Calls `fire` at the arrivals of a Poisson or periodic process of `perSecond`. */
export function startArrivals(sim: Simulator, perSecond: number, arrival: Arrival, stream: RandomStream, fire: () => void): Timer | null {
  if (!(perSecond > 0)) return null;
  const meanUs = 1e6 / perSecond;
  const startUs = sim.now;
  let k = 0;
  // Periodic arrivals sit at start + round(k * period), k = 0, 1, …, so no rounding
  // drift accumulates and a phase [start, end) holds exactly rate * length of them.
  const nextDelay = (): number =>
    arrival === 'periodic' ? startUs + Math.round(++k * meanUs) - sim.now : Math.max(1, Math.round(exponential(stream, meanUs)));
  const timer = sim.after(arrival === 'periodic' ? 0 : nextDelay(), () => {
    fire();
    sim.reschedule(timer, sim.now + nextDelay());
  });
  return timer;
}

export class PayloadSalt {
  private value = 0;
  next(): number {
    return ++this.value;
  }
}

/** Unreliable StateUpdates (`32 LL 00`), whole-message size uniform in [min, max]. */
export function stateUpdateSender(port: TrafficPort, from: Role, sizes: { min: number; max: number }, stream: RandomStream, salt: PayloadSalt): () => void {
  return () => {
    const wireBytes = sizes.min === sizes.max ? sizes.min : uniformInt(stream, sizes.min, sizes.max);
    port.send(from, TYPE_GAME, templatePayload(Opcode.StateUpdate, wireBytes - 3, salt.next()), false, false);
  };
}

/** Reliable game events drawn from the measured mix; StartFiring goes out as a pair. */
export function reliableEventSender(port: TrafficPort, clientShare: number, stream: RandomStream, salt: PayloadSalt): () => void {
  return () => {
    const from: Role = bernoulli(stream, clientShare) ? 'client' : 'server';
    const { kind, payloadBytes } = drawEvent(stream);
    const payload = templatePayload(kind.opcode, payloadBytes, salt.next());
    // Both copies are queued at the same instant, so they share a datagram.
    for (let i = 0; i < kind.copies; i++) port.send(from, TYPE_GAME, payload, true, false);
  };
}

/** Reliable messages/s -> events/s, given the pairs in the mix. */
export function eventsPerSecond(reliablePerSecond: number): number {
  return reliablePerSecond / MESSAGES_PER_EVENT;
}

const CHAT = MEASURED_MIX.find((kind) => kind.name === 'Chat') as (typeof MEASURED_MIX)[number];

export function chatSender(port: TrafficPort, stream: RandomStream, salt: PayloadSalt): () => void {
  return () => {
    const from: Role = bernoulli(stream, 0.5) ? 'client' : 'server';
    const bytes = CHAT.payloadBytes[uniformInt(stream, 0, CHAT.payloadBytes.length - 1)];
    port.send(from, TYPE_GAME, templatePayload(CHAT.opcode, bytes, salt.next()), true, false);
  };
}
