import { ceilToSecondMs } from '../../core/engine/index.js';
// The generator's timing model: how long the join may take on the run's link, so that windowed
// faults can be placed where combat is guaranteed whatever the join's real length.

/** Phase 1 never starts before this on any link: the measured join plus ship selection (6.265 s on a perfect link). */
const JOIN_MIN_MS = 6_000;
/** The transport's update interval. */
export const TICK_MS = 95;

/** Smallest k with P(NegBin failures before `successes` successes <= k) >= q. */
function negBinQuantile(successes: number, p: number, q: number): number {
  if (p <= 0) return 0;
  // pmf(k) = C(k + r - 1, k) (1-p)^r p^k
  let pmf = (1 - p) ** successes;
  let cdf = pmf;
  let k = 0;
  while (cdf < q && k < 500) {
    k++;
    pmf *= ((k + successes - 1) / k) * p;
    cdf += pmf;
  }
  return k;
}

export interface JoinInputs {
  /** Extra delay one datagram may see on one leg (latency, jitter, slot, bandwidth queue). */
  readonly perLegMs: number;
  /** Loss probability a join datagram sees. */
  readonly joinLoss: number;
  /** Join messages the drop rules are sure to drop. */
  readonly joinRuleRetries: number;
  /** Time between two retransmits of one message. */
  readonly retryGapMs: number;
  /** The last client starts its join this long after the first (clients.ts staggerMs). */
  readonly staggerMs: number;
}

/** Phase 1 never starts before this: the last client's join cannot finish earlier. */
export function joinMinMs(staggerMs: number): number {
  return JOIN_MIN_MS + staggerMs;
}

/**
 * The join's allowance: perfect-link time, per-message delays, and retries at the 99.99th
 * percentile, for the last client to start (the join phase ends when every client has joined).
 */
export function joinAllowanceMs(j: JoinInputs): number {
  const joinRetries = negBinQuantile(12, j.joinLoss, 0.9999) + j.joinRuleRetries;
  return ceilToSecondMs(joinMinMs(j.staggerMs) + 500 + 24 * j.perLegMs + joinRetries * j.retryGapMs);
}
