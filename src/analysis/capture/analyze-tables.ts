// The analyzer's bookkeeping tables (analyze.ts): per sequence number of one
// category, the transmissions and the last one's time; a count over time
// sampled at whole seconds (the ACK-outbox estimate); a sender's network
// update period read from its datagram gaps.
import { usToMs, usToSeconds, msToUsUnrounded } from '../../core/engine/index.js';
import type { OutboxSeries } from './analysis-types.js';

/** One outbox sample per simulated second, as the metrics recorder samples. */
export const SAMPLE_STEP_US = 1_000_000;
/** Samples kept per series before the step doubles (a 5.5-hour capture at 1 s). */
export const MAX_SAMPLES = 20_000;
/** Samples are settled once the input is this far past them. */
const SETTLE_LAG_US = 1_500_000;
/** Past 2^53 µs a time is no longer a whole µs; the capture reader keeps every time below it. */
const MAX_TIME_US = Number.MAX_SAFE_INTEGER;

const NOT_SEEN = Number.NaN;
const PAGE_BITS = 12;
const PAGE = 1 << PAGE_BITS;

/** Per sequence number of one category: transmissions and the last one's time, in pages allocated on use. */
export class SeqTable {
  highest = -1;
  private readonly counts: Array<Uint32Array | undefined> = [];
  private readonly last: Array<Float64Array | undefined> = [];
  /** Fragmented messages by seq. */
  readonly fragmented = new Map<number, FragmentedMessage>();

  count(seq: number): number {
    return this.counts[seq >> PAGE_BITS]?.[seq & (PAGE - 1)] ?? 0;
  }

  lastUs(seq: number): number {
    const page = this.last[seq >> PAGE_BITS];
    return page === undefined ? NOT_SEEN : page[seq & (PAGE - 1)];
  }

  record(seq: number, timeUs: number, count: number): void {
    const p = seq >> PAGE_BITS;
    let counts = this.counts[p];
    let last = this.last[p];
    if (counts === undefined || last === undefined) {
      counts = this.counts[p] = new Uint32Array(PAGE);
      last = this.last[p] = new Float64Array(PAGE).fill(NOT_SEEN);
    }
    counts[seq & (PAGE - 1)] = count;
    last[seq & (PAGE - 1)] = timeUs;
  }
}

interface FragmentState {
  count: number;
  lastUs: number;
}

export interface FragmentedMessage {
  fragCount: number | null;
  readonly frags: Map<number, FragmentState>;
  rounds: number;
  completeRounds: number;
  roundStartUs: number;
  lastResendUs: number;
  readonly roundIndices: Set<number>;
  lastUs: number;
}

/**
 * A count over time, sampled at whole steps. A change effective at time b counts
 * at the samples k with k·step > b; since births are dated back a little (to
 * the entry's estimated creation), a sample is settled only once the input is
 * SETTLE_LAG_US past it. `current` is the live count as changes arrive (peak).
 */
export class StepSeries {
  current = 0;
  peak = 0;
  peakUs = Number.NaN;
  readonly values: number[] = [];
  /** Changes dated before a sample already settled (out-of-order input): moved to the next sample. */
  late = 0;
  private stride = 1;
  private next: number;
  private settled = 0;
  private readonly pending = new Map<number, number>();

  constructor(private readonly startIndex: number) {
    this.next = startIndex;
  }

  /** Samples settled one by one plus stretches laid down in bulk: the work done, which follows the changes, not the time span. */
  steps = 0;

  /** Settles the samples more than SETTLE_LAG_US before `timeUs`. */
  advance(timeUs: number): void {
    // The last index k with k·step < timeUs − lag.
    this.settleThrough(Math.ceil((timeUs - SETTLE_LAG_US) / SAMPLE_STEP_US) - 1, timeUs);
  }

  /** Settles every sample at or before `endUs`: the input is over. */
  finish(endUs: number): void {
    this.settleThrough(Math.floor(endUs / SAMPLE_STEP_US), endUs);
  }

  /** A change of `delta` effective at `effectiveUs`, seen at `nowUs`. */
  add(delta: number, effectiveUs: number, nowUs: number): void {
    this.current += delta;
    if (this.current > this.peak) {
      this.peak = this.current;
      this.peakUs = nowUs;
    }
    // Strictly after: a sample taken at the very instant of an update sees the state before it, as the simulator samples.
    let index = Math.floor(effectiveUs / SAMPLE_STEP_US) + 1;
    if (index < this.next) {
      this.late++;
      index = this.next;
    }
    this.pending.set(index, (this.pending.get(index) ?? 0) + delta);
  }

  series(): OutboxSeries {
    return {
      startS: usToSeconds(this.startIndex * SAMPLE_STEP_US),
      stepS: usToSeconds(this.stride * SAMPLE_STEP_US),
      values: this.values,
    };
  }

  /**
   * Settles the samples up to index `last` (of time `timeUs`). A stretch with
   * no pending change holds one value throughout and is laid down at once, so
   * a capture whose clock jumps 10^9 s costs one series of samples, not 10^9 steps.
   */
  private settleThrough(last: number, timeUs: number): void {
    // Beyond it an index would no longer step by one: refused rather than spun on.
    if (timeUs > MAX_TIME_US) throw new Error(`StepSeries: time ${timeUs} µs is past 2^53 µs`);
    while (this.next <= last) {
      this.steps++;
      if (this.pending.has(this.next)) this.settle();
      else this.fill(Math.min(last, this.nextChange() - 1));
    }
  }

  /** The first index at or after `next` with a pending change; +∞ if none. */
  private nextChange(): number {
    let first = Number.POSITIVE_INFINITY;
    for (const index of this.pending.keys()) if (index >= this.next && index < first) first = index;
    return first;
  }

  /**
   * Settles `next`..`last`, none of which has a change: the samples the stride
   * keeps all hold `settled`. The stride is widened first until they fit, so
   * the work is at most one series, however long the stretch.
   */
  private fill(last: number): void {
    while (this.values.length + this.keptThrough(last) > MAX_SAMPLES) this.halve();
    const count = this.keptThrough(last);
    for (let i = 0; i < count; i++) this.values.push(this.settled);
    this.steps += count;
    this.next = last + 1;
    if (this.values.length >= MAX_SAMPLES) this.halve();
  }

  /** How many of the samples `next`..`last` the stride keeps. */
  private keptThrough(last: number): number {
    const offset = (this.next - this.startIndex) % this.stride;
    const kept = offset === 0 ? this.next : this.next + this.stride - offset;
    return kept > last ? 0 : Math.floor((last - kept) / this.stride) + 1;
  }

  private settle(): void {
    const delta = this.pending.get(this.next);
    if (delta !== undefined) {
      this.settled += delta;
      this.pending.delete(this.next);
    }
    if ((this.next - this.startIndex) % this.stride === 0) {
      this.values.push(this.settled);
      if (this.values.length >= MAX_SAMPLES) this.halve();
    }
    this.next++;
  }

  private halve(): void {
    let j = 0;
    for (let i = 0; i < this.values.length; i += 2) this.values[j++] = this.values[i];
    this.values.length = j;
    this.stride *= 2;
  }
}

/**
 * A sender's network update period: the shortest gap between its datagrams
 * (1 ms buckets, 1..999 ms) seen at least three times. An end that does not
 * send at every update leaves gaps of whole multiples of the period, so the
 * most common gap can be a multiple; the shortest recurring one is not.
 */
export class PeriodEstimate {
  private readonly counts = new Uint8Array(1000);
  private best = 1000;
  private lastUs = Number.NaN;

  datagram(timeUs: number): void {
    const gap = Math.round(usToMs(timeUs - this.lastUs));
    this.lastUs = timeUs;
    if (!(gap >= 1 && gap < this.best)) return;
    if (++this.counts[gap] >= 3) this.best = gap;
  }

  /** In µs; NaN until some gap has recurred three times. */
  get periodUs(): number {
    return this.best < 1000 ? msToUsUnrounded(this.best) : Number.NaN;
  }
}
