// Datagrams the proxy's links hold between their send and their arrival (latency,
// jitter, a bandwidth queue, duplicate copies), counted over every client. A flood
// of BC datagrams through a slow link would otherwise grow them without end, and
// past the scheduler's limit of pending events (MAX_PENDING_EVENTS) stop the
// proxy; past these limits a datagram is dropped before its link and counted.
import { Budget, MAX_PENDING_EVENTS } from '../../core/engine/index.js';

/** Datagrams in flight at once: two thirds of the scheduler's pending events, the rest for timers. */
const MAX_IN_FLIGHT_DATAGRAMS = Math.floor((MAX_PENDING_EVENTS * 2) / 3);
/** Their bytes (decrypted datagrams, each copy counted). */
const MAX_IN_FLIGHT_BYTES = 32 * 1_048_576;

export interface InFlightLimits {
  readonly datagrams: number;
  readonly bytes: number;
}

export class InFlight {
  readonly datagrams: Budget;
  readonly bytes: Budget;
  /** Datagrams dropped before their link because the limits were reached. */
  refused = 0;

  constructor(limits: InFlightLimits = { datagrams: MAX_IN_FLIGHT_DATAGRAMS, bytes: MAX_IN_FLIGHT_BYTES }) {
    this.datagrams = new Budget(limits.datagrams, 'proxy datagrams in flight');
    this.bytes = new Budget(limits.bytes, 'proxy bytes in flight');
  }

  /** Whether a datagram of `bytes` may go into a link (it may come out duplicated: room for two). */
  admits(bytes: number): boolean {
    if (this.datagrams.fits(2) && this.bytes.fits(2 * bytes)) return true;
    this.refused++;
    return false;
  }

  /** A link now holds `copies` (0 when it dropped the datagram at once) of `bytes` each. */
  took(bytes: number, copies: number): void {
    if (!(this.datagrams.take(copies) && this.bytes.take(copies * bytes)))
      throw new Error('proxy in-flight: a link took more than was admitted');
  }

  /** A copy of `bytes` arrived at the far end of its link. */
  landed(bytes: number): void {
    if (this.datagrams.used <= 0) throw new Error('proxy in-flight: a datagram landed that was never in flight');
    this.datagrams.give(1);
    this.bytes.give(bytes);
  }
}
