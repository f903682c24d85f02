// Discrete-event engine: a virtual clock and a binary min-heap of timers ordered
// by (time, insertion sequence), so events at the same instant run in the order
// they were scheduled. It knows nothing about Bridge Commander.
import { LimitError } from './limits.js';
import type { Scheduler, Timer } from './scheduler.js';
import { DOUBLE_SEED_US, ZERO_US, addUs } from './time.js';
import type { Micros } from './time.js';

interface TimerSlot {
  at: Micros;
  seq: number;
  heapIndex: number;
  fn: () => void;
}

/**
 * Explicit bound on pending timers: a runaway scheduler is a bug, not a workload.
 * It bounds memory: a pending datagram arrival (slot, closure,
 * up to 512 bytes and a uid per message) measured 650-1,900 bytes, so 150,000
 * stay under ~285 MB. Real scenarios keep a few thousand pending.
 */
export const MAX_PENDING_EVENTS = 150_000;

// The clock and the timer slots hold a double from their first store (DOUBLE_SEED_US, time.ts).
function newSlot(at: Micros, seq: number, heapIndex: number, fn: () => void): TimerSlot {
  return { at, seq, heapIndex, fn };
}
newSlot(DOUBLE_SEED_US, 0, -1, () => {});

export class Simulator implements Scheduler {
  private readonly heap: TimerSlot[] = [];
  private nowUs: Micros = DOUBLE_SEED_US;
  private nextSeq = 0;
  private dispatched = 0;

  constructor() {
    this.nowUs = ZERO_US;
  }

  /** Current simulated time in microseconds. */
  get now(): Micros {
    return this.nowUs;
  }

  /** Number of events dispatched so far. */
  get eventCount(): number {
    return this.dispatched;
  }

  /** Due time of the next pending timer, or null when idle (the wall-clock driver arms on it). */
  get nextDueUs(): Micros | null {
    return this.heap.length === 0 ? null : this.heap[0].at;
  }

  /** Number of timers waiting to fire. */
  get pendingCount(): number {
    return this.heap.length;
  }

  /** Schedules `fn` at absolute time `atUs` (an integer, not in the past). */
  at(atUs: Micros, fn: () => void): Timer {
    assertTime(atUs, this.nowUs);
    this.assertRoom();
    const slot = newSlot(atUs, this.nextSeq++, this.heap.length, fn);
    this.heap.push(slot);
    this.siftUp(slot.heapIndex);
    return slot;
  }

  /** Schedules `fn` after `delayUs` microseconds. */
  after(delayUs: Micros, fn: () => void): Timer {
    return this.at(addUs(this.nowUs, delayUs), fn);
  }

  /** Removes a pending timer. Returns false if it already fired or was cancelled. */
  cancel(timer: Timer): boolean {
    const slot = timer as TimerSlot;
    const index = slot.heapIndex;
    if (index < 0 || this.heap[index] !== slot) return false;
    this.removeAt(index);
    return true;
  }

  /**
   * Moves a timer to a new time. A fired or cancelled timer is scheduled again.
   * It takes a fresh insertion sequence, as if it had just been scheduled.
   */
  reschedule(timer: Timer, atUs: Micros): void {
    assertTime(atUs, this.nowUs);
    const slot = timer as TimerSlot;
    const pending = slot.heapIndex >= 0 && this.heap[slot.heapIndex] === slot;
    if (!pending) this.assertRoom();
    slot.at = atUs;
    slot.seq = this.nextSeq++;
    if (pending) {
      // The key only grows or shrinks; one of the two sifts is a no-op.
      this.siftUp(slot.heapIndex);
      this.siftDown(slot.heapIndex);
    } else {
      slot.heapIndex = this.heap.length;
      this.heap.push(slot);
      this.siftUp(slot.heapIndex);
    }
  }

  /**
   * Moves every timer due at or before `toUs` to `toUs`, keeping their
   * (time, insertion) order, and returns how many moved. The wall-clock driver
   * uses it after its process stalled: what fell due runs once, when it really
   * runs, instead of periodic timers firing in a burst (wall-clock.ts).
   */
  postponeDue(toUs: Micros): number {
    assertTime(toUs, this.nowUs);
    const due = this.heap.filter((slot) => slot.at <= toUs).sort((a, b) => (runsBefore(a, b) ? -1 : 1));
    for (const slot of due) this.reschedule(slot, toUs);
    return due.length;
  }

  /** Dispatches every event due at or before `endUs`, then sets the clock to `endUs`. */
  runUntil(endUs: Micros): void {
    assertTime(endUs, this.nowUs);
    const heap = this.heap;
    while (heap.length > 0 && heap[0].at <= endUs) this.dispatchHead();
    this.nowUs = endUs;
  }

  /**
   * Dispatches events until none are pending. `maxEvents` bounds a run that
   * keeps scheduling forever; exceeding it throws rather than hangs.
   */
  runUntilIdle(maxEvents = Number.MAX_SAFE_INTEGER): void {
    const limit = this.dispatched + maxEvents;
    while (this.heap.length > 0) {
      if (this.dispatched >= limit) throw new Error(`simulator: not idle after ${maxEvents} events`);
      this.dispatchHead();
    }
  }

  /** Dispatches the next event, if any. Returns false when idle. */
  step(): boolean {
    if (this.heap.length === 0) return false;
    this.dispatchHead();
    return true;
  }

  /** A timer about to join the heap must fit under the bound. */
  private assertRoom(): void {
    if (this.heap.length >= MAX_PENDING_EVENTS) {
      throw new LimitError(
        `simulator: more than ${MAX_PENDING_EVENTS.toLocaleString('en-US')} pending events (datagrams in flight and timers); lower the latency, rates or duplication`,
      );
    }
  }

  private dispatchHead(): void {
    const heap = this.heap;
    const slot = heap[0];
    const last = heap.pop() as TimerSlot;
    if (last !== slot) {
      heap[0] = last;
      this.siftDown(0);
    }
    slot.heapIndex = -1;
    this.nowUs = slot.at;
    this.dispatched++;
    slot.fn();
  }

  private removeAt(index: number): void {
    const heap = this.heap;
    const removed = heap[index];
    const last = heap.pop() as TimerSlot;
    removed.heapIndex = -1;
    if (last !== removed) {
      heap[index] = last;
      last.heapIndex = index;
      this.siftUp(index);
      this.siftDown(last.heapIndex);
    }
  }

  private siftUp(index: number): void {
    const heap = this.heap;
    const slot = heap[index];
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parent = heap[parentIndex];
      if (runsBefore(parent, slot)) break;
      heap[index] = parent;
      parent.heapIndex = index;
      index = parentIndex;
    }
    heap[index] = slot;
    slot.heapIndex = index;
  }

  private siftDown(index: number): void {
    const heap = this.heap;
    const length = heap.length;
    const slot = heap[index];
    for (;;) {
      const left = 2 * index + 1;
      if (left >= length) break;
      const right = left + 1;
      let child = left;
      let childSlot = heap[left];
      if (right < length) {
        const rightSlot = heap[right];
        if (runsBefore(rightSlot, childSlot)) {
          child = right;
          childSlot = rightSlot;
        }
      }
      if (runsBefore(slot, childSlot)) break;
      heap[index] = childSlot;
      childSlot.heapIndex = index;
      index = child;
    }
    heap[index] = slot;
    slot.heapIndex = index;
  }
}

/** The heap order: earlier time first, then earlier insertion (deterministic ties). */
function runsBefore(a: TimerSlot, b: TimerSlot): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

function assertTime(atUs: Micros, nowUs: Micros): void {
  // Math.floor is cheaper than Number.isSafeInteger on heap numbers (times past 2^31 µs).
  if (atUs >= nowUs && Math.floor(atUs) === atUs && atUs <= Number.MAX_SAFE_INTEGER) return;
  if (!Number.isSafeInteger(atUs)) throw new Error(`simulator: time ${atUs} is not an integer number of microseconds`);
  throw new Error(`simulator: time ${atUs}us is before now (${nowUs}us)`);
}
