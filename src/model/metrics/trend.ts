// Growth over the last half of a run, and the leak verdict built on it:
// a queue that keeps growing is a leak.
import type { Bucket } from './series.js';

export interface Trend {
  /** Least-squares slope of bucket means over the last half, units per hour. */
  slopePerHour: number;
  /** Mean over the last half. */
  lastHalfMean: number;
  /** Mean of the last eighth of the run minus mean of the fifth eighth. */
  growthOverLastHalf: number;
  leak: boolean;
}

export interface LeakRule {
  /** Growth across the last half must reach this many units… */
  readonly minGrowth: number;
  /** …and this share of the last-half mean. */
  readonly minRelativeGrowth: number;
}

export const DEFAULT_LEAK_RULE: LeakRule = { minGrowth: 5, minRelativeGrowth: 0.2 };

const SEGMENTS = 4;

/**
 * The last half is cut into four segments. A leak is a queue whose segment means
 * never fall and whose growth from the first segment to the last is large in
 * absolute and in relative terms. Flat, noisy or saw-tooth queues (fill and
 * drain) are not leaks; the regression slope is reported for reading only.
 */
export function trendOf(points: readonly Bucket[], endS: number, rule: LeakRule = DEFAULT_LEAK_RULE): Trend {
  const halfS = endS / 2;
  const half = points.filter((p) => mid(p) >= halfS);
  if (half.length < SEGMENTS)
    return {
      slopePerHour: 0,
      lastHalfMean: half.length ? half[half.length - 1].mean : 0,
      growthOverLastHalf: 0,
      leak: false,
    };
  let sw = 0;
  let sx = 0;
  let sy = 0;
  for (const p of half) {
    sw += p.count;
    sx += p.count * mid(p);
    sy += p.count * p.mean;
  }
  const mx = sx / sw;
  const my = sy / sw;
  let sxy = 0;
  let sxx = 0;
  for (const p of half) {
    const dx = mid(p) - mx;
    sxy += p.count * dx * (p.mean - my);
    sxx += p.count * dx * dx;
  }
  const slopePerSecond = sxx === 0 ? 0 : sxy / sxx;
  const segmentS = (endS - halfS) / SEGMENTS;
  const means: number[] = [];
  for (let i = 0; i < SEGMENTS; i++)
    means.push(meanOver(half, halfS + i * segmentS, i === SEGMENTS - 1 ? Infinity : halfS + (i + 1) * segmentS));
  const growth = means[SEGMENTS - 1] - means[0];
  const neverFalls = means.every((m, i) => i === 0 || m >= means[i - 1]);
  const leak = neverFalls && growth >= rule.minGrowth && growth >= rule.minRelativeGrowth * Math.abs(my);
  return { slopePerHour: slopePerSecond * 3600, lastHalfMean: my, growthOverLastHalf: growth, leak };
}

function mid(p: Bucket): number {
  return p.t + p.width / 2;
}

function meanOver(points: readonly Bucket[], fromS: number, toS: number): number {
  let w = 0;
  let s = 0;
  for (const p of points) {
    const m = mid(p);
    if (m >= fromS && m < toS) {
      w += p.count;
      s += p.count * p.mean;
    }
  }
  return w === 0 ? 0 : s / w;
}
