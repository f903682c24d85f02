// Per-frame resend figures (the k² storm) and the once-per-second samples of the
// server's store and pending lists (growth when ids never match), with peaks.
import type { FrameStats, RtypeServer } from '../transport/index.js';

/** Samples taken once per sampleEveryMs; parallel arrays, plain JSON. */
export interface RtypeSeries {
  everyMs: number;
  tMs: number[];
  storeSize: number[];
  pendingTotal: number[];
  pendingMaxPerUser: number[];
  danglingEntries: number[];
  /** Resend datagrams in the interval that ends at tMs. */
  resendDatagrams: number[];
  /** The most resend datagrams of one frame in that interval. */
  maxResendsPerFrame: number[];
}

export interface ResendFigures {
  datagrams: number;
  calls: number;
  /** Beyond one per frame per (client, packet) the server waits on. */
  excess: number;
  maxPerFrame: number;
  /** The most `sendPacket` calls made for one user in one frame (k² under the storm). */
  maxCallsPerUserPerFrame: number;
  maxExcessPerFrame: number;
  /** Frames by resend datagrams: bucket 0 holds 0, bucket b ≥ 1 holds [2^(b-1), 2^b - 1]. */
  histogram: Array<{ from: number; to: number; frames: number }>;
}

export interface SizePeaks {
  storePeak: number;
  pendingTotalPeak: number;
  pendingMaxPerUserPeak: number;
  danglingPeak: number;
}

export class RtypeMetrics {
  readonly series: RtypeSeries;
  samplesDropped = 0;
  private readonly buckets: number[] = [];
  private datagrams = 0;
  private calls = 0;
  private excess = 0;
  private maxPerFrame = 0;
  private maxCallsPerUser = 0;
  private maxExcess = 0;
  private intervalResends = 0;
  private intervalMax = 0;
  private readonly peaks: SizePeaks = { storePeak: 0, pendingTotalPeak: 0, pendingMaxPerUserPeak: 0, danglingPeak: 0 };

  constructor(
    everyMs: number,
    private readonly maxSamples: number,
  ) {
    this.series = {
      everyMs,
      tMs: [],
      storeSize: [],
      pendingTotal: [],
      pendingMaxPerUser: [],
      danglingEntries: [],
      resendDatagrams: [],
      maxResendsPerFrame: [],
    };
  }

  frame(stats: FrameStats): void {
    const n = stats.resendDatagrams;
    const bucket = n === 0 ? 0 : 32 - Math.clz32(n);
    while (this.buckets.length <= bucket) this.buckets.push(0);
    this.buckets[bucket]++;
    this.datagrams += n;
    this.calls += stats.resendCalls;
    this.excess += stats.excessResends;
    this.maxPerFrame = Math.max(this.maxPerFrame, n);
    this.maxCallsPerUser = Math.max(this.maxCallsPerUser, stats.maxCallsPerUser);
    this.maxExcess = Math.max(this.maxExcess, stats.excessResends);
    this.intervalResends += n;
    this.intervalMax = Math.max(this.intervalMax, n);
  }

  /** One sample of the server's structures at `tMs`; also folds them into the peaks. */
  sample(tMs: number, server: RtypeServer): void {
    const store = server.store.size;
    const total = server.pendingTotal();
    const maxUser = server.pendingMaxPerUser();
    const dangling = server.danglingEntries;
    const p = this.peaks;
    p.storePeak = Math.max(p.storePeak, store);
    p.pendingTotalPeak = Math.max(p.pendingTotalPeak, total);
    p.pendingMaxPerUserPeak = Math.max(p.pendingMaxPerUserPeak, maxUser);
    p.danglingPeak = Math.max(p.danglingPeak, dangling);
    const s = this.series;
    if (s.tMs.length >= this.maxSamples) {
      this.samplesDropped++;
    } else {
      s.tMs.push(tMs);
      s.storeSize.push(store);
      s.pendingTotal.push(total);
      s.pendingMaxPerUser.push(maxUser);
      s.danglingEntries.push(dangling);
      s.resendDatagrams.push(this.intervalResends);
      s.maxResendsPerFrame.push(this.intervalMax);
    }
    this.intervalResends = 0;
    this.intervalMax = 0;
  }

  resends(): ResendFigures {
    return {
      datagrams: this.datagrams,
      calls: this.calls,
      excess: this.excess,
      maxPerFrame: this.maxPerFrame,
      maxCallsPerUserPerFrame: this.maxCallsPerUser,
      maxExcessPerFrame: this.maxExcess,
      histogram: this.buckets.map((frames, b) => ({
        from: b === 0 ? 0 : 2 ** (b - 1),
        to: b === 0 ? 0 : 2 ** b - 1,
        frames,
      })),
    };
  }

  sizePeaks(): SizePeaks {
    return { ...this.peaks };
  }
}
