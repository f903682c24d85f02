// The clock and timer interface the transport, traffic and link layers use.
// Two implementations: the Simulator (virtual time, the product) and the live
// mode's wall-clock driver (src/live/wall-clock.ts). Code below the
// live layer never learns which one it runs on.
import type { Micros } from './time.js';

/** A scheduled callback. Keep the handle to cancel or reschedule it. */
export interface Timer {
  /** Absolute due time. Read-only for callers. */
  readonly at: Micros;
  /** Position in the heap, or -1 when not pending. Internal. */
  readonly heapIndex: number;
}

export interface Scheduler {
  /** Current time in microseconds: inside a callback, the time it was due. */
  readonly now: Micros;
  /** Schedules `fn` at absolute time `atUs` (an integer, not in the past). */
  at(atUs: Micros, fn: () => void): Timer;
  /** Schedules `fn` after `delayUs` microseconds. */
  after(delayUs: Micros, fn: () => void): Timer;
  /** Removes a pending timer. Returns false if it already fired or was cancelled. */
  cancel(timer: Timer): boolean;
  /** Moves a timer to a new time; a fired or cancelled timer is scheduled again. */
  reschedule(timer: Timer, atUs: Micros): void;
}
