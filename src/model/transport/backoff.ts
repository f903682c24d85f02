// Retransmit intervals (transport-layer.md §4 strategies 0/1/2; docs/sources.md 11).
import { millis, msToUs } from '../../core/engine/index.js';
import type { Micros, Millis } from '../../core/engine/index.js';
import type { RetransmitPolicy } from './switches.js';

/** Interval to wait after the `retransmitCount`-th retransmit (0 = after the first send). */
export function retransmitIntervalUs(policy: RetransmitPolicy, retransmitCount: number): Micros {
  let ms: Millis;
  switch (policy.backoff) {
    case 'fixed':
      ms = millis(policy.baseMs);
      break;
    case 'linear':
      ms = millis(Math.min(policy.capMs, policy.baseMs + policy.stepMs * retransmitCount));
      break;
    case 'exponential':
      // Clamp the exponent first: 2^count overflows long before the cap matters.
      ms = millis(Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(retransmitCount, 30)));
      break;
  }
  return msToUs(ms);
}
