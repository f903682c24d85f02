// A bounded time series: at most `maxPoints` buckets, each keeping min, max and
// mean of the samples it covers. When full, neighbouring buckets merge pairwise
// and the bucket width doubles, so a 24 h run costs the same memory as 1 h.
// Optionally the first `headS` seconds are also kept at the base width, never
// merged (at most headS / baseWidthS buckets): the join, where a run's first
// re-sends happen, stays readable second by second however long the run.

export interface Bucket {
  /** Start of the bucket, simulated seconds. */
  t: number;
  /** Width in simulated seconds. */
  width: number;
  min: number;
  max: number;
  mean: number;
  count: number;
}

export const DEFAULT_MAX_POINTS = 300;

export interface SeriesSnapshot {
  readonly maxPoints: number;
  readonly widthS: number;
  readonly buckets: readonly Bucket[];
  readonly headS: number;
  readonly head: readonly Bucket[];
}

export class Series {
  private readonly buckets: Bucket[] = [];
  private readonly headBuckets: Bucket[] = [];
  private widthS: number;
  private readonly baseWidthS: number;

  constructor(
    readonly maxPoints = DEFAULT_MAX_POINTS,
    baseWidthS = 1,
    /** Seconds from 0 kept at the base width too (0: none). */
    readonly headS = 0,
  ) {
    if (maxPoints < 2 || maxPoints % 2 !== 0) throw new Error('series: maxPoints must be an even number >= 2');
    this.widthS = baseWidthS;
    this.baseWidthS = baseWidthS;
  }

  /**
   * Adds a sample at time `tS` (seconds); samples must come in time order.
   * `high`: the highest value the figure took in the interval the sample
   * closes, when known (a peak between two samples); it raises the bucket's max only.
   */
  add(tS: number, value: number, high = value): void {
    if (tS < this.headS)
      addTo(this.headBuckets, Math.floor(tS / this.baseWidthS) * this.baseWidthS, this.baseWidthS, value, high);
    const start = Math.floor(tS / this.widthS) * this.widthS;
    const last = this.buckets[this.buckets.length - 1];
    if (last !== undefined && start < last.t) throw new Error('series: samples must be added in time order');
    if (addTo(this.buckets, start, this.widthS, value, high) && this.buckets.length > this.maxPoints) this.halve();
  }

  points(): readonly Bucket[] {
    return this.buckets;
  }

  /** The first `headS` seconds at the base width (empty when headS is 0). */
  head(): readonly Bucket[] {
    return this.headBuckets;
  }

  get bucketWidth(): number {
    return this.widthS;
  }

  /** Its state as plain data, to cross a worker-thread boundary (compare's parallel columns). */
  snapshot(): SeriesSnapshot {
    return {
      maxPoints: this.maxPoints,
      widthS: this.widthS,
      buckets: this.buckets.map((b) => ({ ...b })),
      headS: this.headS,
      head: this.headBuckets.map((b) => ({ ...b })),
    };
  }

  static fromSnapshot(snapshot: SeriesSnapshot): Series {
    const series = new Series(snapshot.maxPoints, snapshot.widthS, snapshot.headS);
    series.buckets.push(...snapshot.buckets.map((b) => ({ ...b })));
    series.headBuckets.push(...snapshot.head.map((b) => ({ ...b })));
    return series;
  }

  /** Merges pairs of buckets aligned on the doubled width. */
  private halve(): void {
    this.widthS *= 2;
    const merged: Bucket[] = [];
    for (const b of this.buckets) {
      const start = Math.floor(b.t / this.widthS) * this.widthS;
      const into = merged[merged.length - 1];
      if (into !== undefined && into.t === start) {
        const count = into.count + b.count;
        into.mean = (into.mean * into.count + b.mean * b.count) / count;
        into.count = count;
        into.min = Math.min(into.min, b.min);
        into.max = Math.max(into.max, b.max);
      } else {
        // A literal, not a spread: one hidden class for every bucket (halving is ~13 ms a column otherwise).
        merged.push({ t: start, width: this.widthS, min: b.min, max: b.max, mean: b.mean, count: b.count });
      }
    }
    this.buckets.length = 0;
    this.buckets.push(...merged);
  }
}

/** Adds a sample to the bucket at `start`: the last one, or a new one (then true). */
function addTo(buckets: Bucket[], start: number, width: number, value: number, high: number): boolean {
  const top = high > value ? high : value;
  const last = buckets[buckets.length - 1];
  if (last !== undefined && last.t === start) {
    last.min = Math.min(last.min, value);
    last.max = Math.max(last.max, top);
    last.mean += (value - last.mean) / ++last.count;
    return false;
  }
  buckets.push({ t: start, width, min: value, max: top, mean: value, count: 1 });
  return true;
}
