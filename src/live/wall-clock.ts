// The live mode's clock: the engine's Scheduler driven by the
// wall clock. Timers sit in the Simulator's heap; one Node timer is armed for
// the earliest, and when it fires every event due by the wall clock runs in
// (time, insertion) order. Inside a callback `now` is the time the event was due,
// as in a simulated run, so periodic loops do not drift; outside one, call
// catchUp() first (a socket read does) and `now` is the wall time.
//
// A process can stall (descheduled on a busy machine, a long GC, SIGSTOP). When
// the earliest event is more than STALL_US late, everything that fell due runs
// once at the wall time, as a game's frame loop would, rather than in a burst:
// a burst would send one message's re-sends milliseconds apart. Datagrams read
// just after a stall may have arrived any time during it (`arrivedFromUs`). A
// starved process drains its socket slowly, so with an event loop to watch
// (`nextTurn`) the drain also lasts while every turn of the loop reads a
// datagram: a turn with none means the socket's queue was empty.
//
// This is the only place bcsim reads a clock: the simulation never does.
import { Simulator, maxUs, minUs, addUs, micros, nanosToUs, usToMs } from '../core/engine/index.js';
import type { Micros, Scheduler, Timer } from '../core/engine/index.js';

/** An event this late means the process stalled (the update loops tick every 95 ms or less). */
const STALL_US = 250_000;
/**
 * Reads this soon after a stall was noticed are taken to be draining what queued up during it, and
 * so is each read within STALL_DRAIN_GAP_US of the one before (a busy machine drains slowly).
 */
const STALL_DRAIN_US = micros(250_000);
const STALL_DRAIN_GAP_US = micros(10_000);

/** The process's stalls, as the clock noticed them. */
export interface StallFigures {
  count: number;
  longestUs: number;
  totalUs: number;
}

/** Microseconds since `origin`, from the monotonic high-resolution clock. */
export type WallSource = () => Micros;

export function monotonicMicros(): WallSource {
  const origin = process.hrtime.bigint();
  return () => nanosToUs(process.hrtime.bigint() - origin);
}

/** Lateness samples kept for the percentiles (a ring: the latest ones). */
const MAX_LATENESS_SAMPLES = 100_000;

export interface LatenessFigures {
  /** Samples taken (the percentiles cover the latest MAX_LATENESS_SAMPLES). */
  count: number;
  p50: number;
  p99: number;
  max: number;
}

/** How late things happened against their scheduled time, µs. */
export class LatenessRing {
  private readonly samples = new Float64Array(MAX_LATENESS_SAMPLES);
  private count = 0;

  record(lateUs: number): void {
    this.samples[this.count++ % MAX_LATENESS_SAMPLES] = lateUs;
  }

  figures(): LatenessFigures {
    const n = Math.min(this.count, MAX_LATENESS_SAMPLES);
    if (n === 0) return { count: 0, p50: 0, p99: 0, max: 0 };
    const sorted = Float64Array.from(this.samples.subarray(0, n)).sort();
    return {
      count: this.count,
      p50: sorted[Math.floor(0.5 * (n - 1))],
      p99: sorted[Math.floor(0.99 * (n - 1))],
      max: sorted[n - 1],
    };
  }
}

export class WallClock implements Scheduler {
  private readonly queue = new Simulator();
  private armed: NodeJS.Timeout | null = null;
  private armedForUs = Number.POSITIVE_INFINITY;
  private stopped = false;
  private inside = false;
  /** Dispatch lateness: wall time at dispatch minus due time. */
  readonly dispatchLateness = new LatenessRing();
  /** Callbacks that threw; the first error is kept and the clock stops. */
  failure: unknown = null;
  /** Stalls noticed (counters only: nothing grows). */
  readonly stalls: StallFigures = { count: 0, longestUs: 0, totalUs: 0 };
  /** The latest stall: from the first event it delayed to when it was noticed. */
  /** The latest stall's start, and until when reads still drain what queued up during it. */
  private lastStall = { fromUs: Number.NaN as Micros, drainUntilUs: Number.NaN as Micros };
  /** Watching the loop's turns after a stall: reads in this turn, and the wall time the watch ends at the latest. */
  private turnWatch = { on: false, reads: 0, untilUs: 0 as Micros };

  constructor(
    readonly wallUs: WallSource = monotonicMicros(),
    private readonly onFailure: (error: unknown) => void = () => {},
    /** Runs a callback after the event loop's next turn (setImmediate); null: the drain is judged by wall time alone. */
    private readonly nextTurn: ((fn: () => void) => void) | null = null,
  ) {}

  get now(): Micros {
    return this.queue.now;
  }

  get eventCount(): number {
    return this.queue.eventCount;
  }

  at(atUs: Micros, fn: () => void): Timer {
    const timer = this.queue.at(maxUs(atUs, this.queue.now), fn);
    this.arm();
    return timer;
  }

  after(delayUs: Micros, fn: () => void): Timer {
    return this.at(addUs(this.queue.now, delayUs), fn);
  }

  cancel(timer: Timer): boolean {
    return this.queue.cancel(timer);
  }

  reschedule(timer: Timer, atUs: Micros): void {
    this.queue.reschedule(timer, maxUs(atUs, this.queue.now));
    this.arm();
  }

  /** Runs every event due by the wall clock, then sets `now` to the wall time. */
  catchUp(): void {
    if (this.stopped || this.inside) return;
    this.inside = true;
    try {
      for (;;) {
        const wall = this.wallUs();
        const due = this.queue.nextDueUs;
        if (due === null || due > wall) {
          if (wall > this.queue.now) this.queue.runUntil(wall);
          break;
        }
        if (wall - due > STALL_US) this.stalled(due, wall);
        this.dispatchLateness.record(wall - due);
        this.queue.step();
        // A callback stopped the clock: `now` stays the time that callback was due.
        if (this.stopped) break;
      }
    } catch (error) {
      this.failure = error;
      this.stop();
      this.onFailure(error);
    } finally {
      this.inside = false;
    }
    this.arm();
  }

  /**
   * The earliest time a datagram read now may have arrived: now, or the start
   * of a stall it may have waited through in the socket's queue.
   */
  arrivedFromUs(): Micros {
    const now = this.queue.now;
    const stall = this.lastStall;
    if (!(now <= stall.drainUntilUs) && !this.turnWatch.on) return now;
    this.turnWatch.reads++;
    stall.drainUntilUs = maxUs(stall.drainUntilUs, addUs(now, STALL_DRAIN_GAP_US));
    return minUs(now, stall.fromUs);
  }

  private stalled(fromUs: Micros, wallUs: Micros): void {
    const lengthUs = wallUs - fromUs;
    this.stalls.count++;
    this.stalls.totalUs += lengthUs;
    this.stalls.longestUs = Math.max(this.stalls.longestUs, lengthUs);
    this.lastStall = { fromUs, drainUntilUs: addUs(wallUs, STALL_DRAIN_US) };
    this.queue.postponeDue(wallUs);
    // A stall of L queued at most L of datagrams: however slowly, they are read within another L.
    const watching = this.turnWatch.on;
    this.turnWatch = { on: this.nextTurn !== null, reads: 1, untilUs: addUs(wallUs, micros(lengthUs)) };
    if (this.turnWatch.on && !watching) this.watchTurn();
  }

  /** After each turn of the loop: a turn that read nothing (or the watch's end) ends the drain. */
  private watchTurn(): void {
    this.nextTurn?.(() => {
      const watch = this.turnWatch;
      if (this.stopped || watch.reads === 0 || this.wallUs() > watch.untilUs) {
        watch.on = false;
        return;
      }
      watch.reads = 0;
      this.watchTurn();
    });
  }

  /** Cancels the armed Node timer; pending events never run. */
  stop(): void {
    this.stopped = true;
    this.disarm();
  }

  private disarm(): void {
    if (this.armed !== null) clearTimeout(this.armed);
    this.armed = null;
  }

  private arm(): void {
    if (this.stopped || this.inside) return;
    const due = this.queue.nextDueUs;
    if (due === null) return;
    if (this.armed !== null && due >= this.armedForUs) return;
    this.disarm();
    this.armedForUs = due;
    // Node timers have millisecond resolution and fire ~0.7 ms late at p50 (measured). Polling
    // the last millisecond instead brought that to ~0.1 ms but doubled the CPU, and grows with
    // the event rate (each event spins up to 1 ms): not worth it for 95 ms update loops.
    const delayMs = Math.max(0, Math.floor(usToMs(due - this.wallUs())));
    this.armed = setTimeout(() => {
      this.armed = null;
      this.armedForUs = Number.POSITIVE_INFINITY;
      this.catchUp();
    }, delayMs);
  }
}
