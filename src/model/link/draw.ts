// Shared draw helper for the link's fault decisions.
import type { RandomStream } from '../../core/engine/index.js';

/**
 * True with probability p. Certain outcomes (p <= 0 or p >= 1) consume no draw,
 * so a fault configured "always" or "never" leaves its stream untouched; any
 * other p consumes exactly one uniform per decision.
 */
export function chance(stream: RandomStream | null, p: number): boolean {
  if (p <= 0) return false;
  if (p >= 1) return true;
  return (stream as RandomStream).next() < p;
}

/** True when a decision with probability p would need a draw. */
export function needsDraw(p: number): boolean {
  return p > 0 && p < 1;
}
