// How long an end took to ACK the other end's transmissions, as the wire shows
// it: from a message's latest transmission to the first ACK that answers it.
// Fixed buckets (1 ms to 100 ms, 10 ms to 1 s, 100 ms to 10 s, then one),
// so the memory is the same however long the session: 282 counters per end.
// Cumulative: a reader that wants a window keeps a copy and takes the difference.

import { usToMs } from '../../core/engine/index.js';

const FINE_MS = 100;
const MID_MS = 1_000;
const COARSE_MS = 10_000;
/** Buckets: 0..99 ms by 1, 100..990 by 10, 1,000..9,900 by 100, and 10 s or more. */
const LATENCY_BUCKETS = FINE_MS + (MID_MS - FINE_MS) / 10 + (COARSE_MS - MID_MS) / 100 + 1;

/** The bucket of a latency in ms. */
function bucketOf(ms: number): number {
  if (!(ms >= 0)) return 0;
  if (ms < FINE_MS) return Math.floor(ms);
  if (ms < MID_MS) return FINE_MS + Math.floor((ms - FINE_MS) / 10);
  if (ms < COARSE_MS) return FINE_MS + 90 + Math.floor((ms - MID_MS) / 100);
  return LATENCY_BUCKETS - 1;
}

/** The lowest latency (ms) of bucket `b`: what a percentile that falls in it reports. */
function bucketFloorMs(b: number): number {
  if (b < FINE_MS) return b;
  if (b < FINE_MS + 90) return FINE_MS + (b - FINE_MS) * 10;
  if (b < LATENCY_BUCKETS - 1) return MID_MS + (b - FINE_MS - 90) * 100;
  return COARSE_MS;
}

export class LatencyHistogram {
  readonly counts = new Uint32Array(LATENCY_BUCKETS);
  total = 0;

  addUs(latencyUs: number): void {
    this.counts[bucketOf(usToMs(latencyUs))]++;
    this.total++;
  }
}

/**
 * The `q`-quantile (0..1) in ms of the latencies counted in `now` but not in `before`
 * (a copy of `now.counts` taken earlier), at its bucket's lower edge; null when there are none.
 */
export function latencyQuantileMs(now: Uint32Array, before: Uint32Array | null, q: number): number | null {
  let total = 0;
  for (let b = 0; b < LATENCY_BUCKETS; b++) total += now[b] - (before?.[b] ?? 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (let b = 0; b < LATENCY_BUCKETS; b++) {
    seen += now[b] - (before?.[b] ?? 0);
    if (seen >= rank) return bucketFloorMs(b);
  }
  return COARSE_MS;
}
