// Sampling helpers over a RandomStream. Each draw consumes a fixed number of
// uniforms, so a stream's sequence depends only on the calls made on it.
import type { RandomStream } from './random.js';

export function bernoulli(stream: RandomStream, p: number): boolean {
  return stream.next() < p;
}

export function uniform(stream: RandomStream, min: number, max: number): number {
  return min + (max - min) * stream.next();
}

/** Integer in [min, max], both inclusive. */
export function uniformInt(stream: RandomStream, min: number, max: number): number {
  return min + Math.floor((max - min + 1) * stream.next());
}

export function exponential(stream: RandomStream, mean: number): number {
  // 1 - u is in (0, 1], so the log is finite.
  return -mean * Math.log(1 - stream.next());
}

/** Normal draw by Box-Muller; always consumes two uniforms. */
export function normal(stream: RandomStream, mean: number, stdDev: number): number {
  const u1 = 1 - stream.next();
  const u2 = stream.next();
  return mean + stdDev * Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/** Picks an index with probability proportional to weights[i]. */
export function weightedIndex(stream: RandomStream, weights: readonly number[], totalWeight: number): number {
  let r = stream.next() * totalWeight;
  for (let i = 0; i < weights.length; i++) {
    r -= weights[i];
    if (r < 0) return i;
  }
  return weights.length - 1;
}
