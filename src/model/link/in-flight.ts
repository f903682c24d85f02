// Datagrams travelling on a link, between send() and their arrival event. A
// flight is a reused record whose arrival callback is made once, with its
// record: a closure over five values per datagram costs ~200 bytes, measured at
// a sixth of what a simulated hour of long-session allocates.
import { DOUBLE_SEED_US } from '../../core/engine/index.js';
import type { Micros, Timer } from '../../core/engine/index.js';

/** Spare flights a link keeps for reuse: an explicit bound on the pool. */
export const MAX_SPARE_FLIGHTS = 1024;

export class Flight {
  bytes: Uint8Array = NO_BYTES;
  uids: readonly number[] = NO_UIDS;
  /** Send order on the link. */
  index = 0;
  sentAtUs: Micros = DOUBLE_SEED_US;
  duplicate = false;
  /** The scheduler's callback: lands this flight. Made once per record. */
  readonly land: () => void;
  /** Its arrival timer, made at the first flight and rescheduled by the next: no timer object per datagram. */
  timer: Timer | null = null;

  constructor(onLand: (flight: Flight) => void) {
    this.land = () => onLand(this);
  }
}

const NO_BYTES = new Uint8Array(0);
const NO_UIDS: readonly number[] = [];

/** A link's flights: taken at send, given back when they land. */
export class FlightPool {
  private readonly spare: Flight[] = [];
  /** Flights handed out again instead of made. */
  reused = 0;

  constructor(private readonly onLand: (flight: Flight) => void) {}

  get size(): number {
    return this.spare.length;
  }

  take(bytes: Uint8Array, uids: readonly number[], index: number, sentAtUs: Micros, duplicate: boolean): Flight {
    let flight = this.spare.pop();
    if (flight === undefined) flight = new Flight(this.onLand);
    else this.reused++;
    flight.bytes = bytes;
    flight.uids = uids;
    flight.index = index;
    flight.sentAtUs = sentAtUs;
    flight.duplicate = duplicate;
    return flight;
  }

  /** Takes back a landed flight, after its fields were read; drops its references. */
  give(flight: Flight): void {
    if (flight.bytes === NO_BYTES) throw new Error('link: a flight given back twice');
    flight.bytes = NO_BYTES;
    flight.uids = NO_UIDS;
    if (this.spare.length < MAX_SPARE_FLIGHTS) this.spare.push(flight);
  }
}
