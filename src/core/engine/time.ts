// Virtual time. The clock is an integer count of microseconds, so hours of
// simulated time accumulate no floating-point drift.
//
// Typed time: Micros and Millis are branded numbers, so a
// millisecond value cannot be passed where microseconds are expected. Every
// conversion between units, and the 1000 and 1e6 factors, live in this file
// only; test/layering/time-units.test.ts fails on a hand-written `* 1000` or
// `/ 1e6` anywhere else in src/. Each helper keeps the exact floating-point
// arithmetic of the code it replaced (`x / 1e6` is not `x * 1e-6`), and is a
// one-line function V8 inlines.

/** Integer microseconds of simulated (or wall) time. */
export type Micros = number & { readonly __unit: 'us' };
/** Milliseconds: the unit of scenario parameters and reports. */
export type Millis = number & { readonly __unit: 'ms' };

/**
 * What a conversion accepts: Micros or a plain number, never Millis (and the
 * reverse). A plain number is a value not typed yet; a value of the other
 * unit is a bug the compiler catches.
 */
export type MicrosIn = number & { readonly __unit?: 'us' };
export type MillisIn = number & { readonly __unit?: 'ms' };

/** Conversion factors. Plain numbers: only this file multiplies or divides by them. */
export const US_PER_MS = 1_000;
export const US_PER_SECOND = 1_000_000;
export const MS_PER_SECOND = 1_000;
const NS_PER_US = BigInt(US_PER_MS);

/** Nanoseconds (a bigint, as the live layer's monotonic clock gives them) to whole microseconds, truncated. */
export function nanosToUs(ns: bigint): Micros {
  return Number(ns / NS_PER_US) as Micros;
}

/** Brands a number as microseconds: a literal, a value read from a file, a counter. */
export function micros(n: number): Micros {
  return n as Micros;
}

/** Brands a number as milliseconds: a literal, a value read from a file, a counter. */
export function millis(n: number): Millis {
  return n as Millis;
}

/**
 * The first value of a hot object's time field, before its real one. V8 keeps a field
 * that has held only small integers as a small-integer field; the first time past 2^31 µs
 * (35.8 simulated minutes; official Node 20 builds have 32-bit small integers) widens it to a double field, which replaces the object's hidden
 * class and deoptimises every function compiled against it: ~50 deopts in a 4 h run,
 * ~10 % of its wall time. A field whose first store is this stays a double.
 */
export const DOUBLE_SEED_US = micros(0.5);

/** Zero, and one second, of simulated time. */
export const ZERO_US = micros(0);
export const ONE_SECOND_US = micros(US_PER_SECOND);

/** Milliseconds to integer microseconds, rounded to the nearest. */
export function msToUs(ms: MillisIn): Micros {
  return Math.round(ms * US_PER_MS) as Micros;
}

/** Milliseconds to microseconds, not rounded: `ms * 1000` (whole ms give whole µs). */
export function msToUsUnrounded(ms: MillisIn): Micros {
  return (ms * US_PER_MS) as Micros;
}

/** Microseconds to (fractional) milliseconds: `us / 1000`. */
export function usToMs(us: MicrosIn): Millis {
  return (us / US_PER_MS) as Millis;
}

/** Seconds to integer microseconds, rounded to the nearest. */
export function secondsToUs(seconds: number): Micros {
  return Math.round(seconds * US_PER_SECOND) as Micros;
}

/** Seconds to microseconds, not rounded: `seconds * 1e6`. */
export function secondsToUsUnrounded(seconds: number): Micros {
  return (seconds * US_PER_SECOND) as Micros;
}

/** Microseconds to (fractional) seconds: `us / 1e6`. */
export function usToSeconds(us: MicrosIn): number {
  return us / US_PER_SECOND;
}

/** Milliseconds to (fractional) seconds: `ms / 1000`. */
export function msToSeconds(ms: MillisIn): number {
  return ms / MS_PER_SECOND;
}

/** Seconds to milliseconds, not rounded: `seconds * 1000`. */
export function secondsToMs(seconds: number): Millis {
  return (seconds * MS_PER_SECOND) as Millis;
}

/** Milliseconds rounded up to a whole second: `Math.ceil(ms / 1000) * 1000`. */
export function ceilToSecondMs(ms: MillisIn): Millis {
  return (Math.ceil(ms / MS_PER_SECOND) * MS_PER_SECOND) as Millis;
}

/** Milliseconds rounded to the nearest whole second: `Math.round(ms / 1000) * 1000`. */
export function roundToSecondMs(ms: MillisIn): Millis {
  return (Math.round(ms / MS_PER_SECOND) * MS_PER_SECOND) as Millis;
}

/** Microseconds rounded down to a whole second: `Math.floor(us / 1e6) * 1e6`. */
export function floorToSecondUs(us: MicrosIn): Micros {
  return (Math.floor(us / US_PER_SECOND) * US_PER_SECOND) as Micros;
}

/** `us * factor` microseconds (a whole factor keeps whole µs). */
export function scaleUs(us: Micros, factor: number): Micros {
  return (us * factor) as Micros;
}

/** The mean interval of a process of `perSecond` events a second, in fractional µs: `1e6 / perSecond`. */
export function usPerEvent(perSecond: number): Micros {
  return (US_PER_SECOND / perSecond) as Micros;
}

/** The period of something that happens `perSecond` times a second, rounded to whole µs. */
export function periodUs(perSecond: number): Micros {
  return Math.round(US_PER_SECOND / perSecond) as Micros;
}

/** A count per period of `periodMs` milliseconds, as a rate per second: `(count * 1000) / periodMs`. */
export function perSecondOverMs(count: number, periodMs: MillisIn): number {
  return (count * MS_PER_SECOND) / periodMs;
}

/** A rate per second times a span of microseconds: `(perSecond * us) / 1e6`. */
export function countOverUs(perSecond: number, us: MicrosIn): number {
  return (perSecond * us) / US_PER_SECOND;
}

/** Microseconds needed at `perSecond` units a second for `amount` units: `(amount * 1e6) / perSecond`. */
export function usForAmount(amount: number, perSecond: number): Micros {
  return ((amount * US_PER_SECOND) / perSecond) as Micros;
}

/** `a + b` microseconds. */
export function addUs(a: Micros, b: Micros): Micros {
  return (a + b) as Micros;
}

/** `a - b` microseconds: the span from b to a. */
export function diffUs(a: Micros, b: Micros): Micros {
  return (a - b) as Micros;
}

/** The later of two times. */
export function maxUs(a: Micros, b: Micros): Micros {
  return Math.max(a, b) as Micros;
}

/** The earlier of two times. */
export function minUs(a: Micros, b: Micros): Micros {
  return Math.min(a, b) as Micros;
}

const UNIT_US: Record<string, number> = {
  us: 1,
  ms: US_PER_MS,
  s: US_PER_SECOND,
  m: 60 * US_PER_SECOND,
  h: 3_600 * US_PER_SECOND,
  d: 86_400 * US_PER_SECOND,
};

const DURATION_PART = /(\d+(?:\.\d+)?)(us|ms|s|m|h|d)/y;

/**
 * Parses "30s", "10m", "4h", "1h30m", "7d", "250ms" or a bare number of seconds.
 * Returns null for anything else, so callers can name the field in their error.
 */
export function parseDuration(text: string): Micros | null {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return secondsToUs(Number(trimmed));
  if (trimmed.length === 0) return null;
  let total = 0;
  let pos = 0;
  DURATION_PART.lastIndex = 0;
  while (pos < trimmed.length) {
    DURATION_PART.lastIndex = pos;
    const match = DURATION_PART.exec(trimmed);
    if (match === null) return null;
    total += Number(match[1]) * UNIT_US[match[2]];
    pos = DURATION_PART.lastIndex;
  }
  return Math.round(total) as Micros;
}

/** Formats a duration compactly: 0.095s, 12s, 30m, 4h, 1h30m. */
export function formatDuration(us: MicrosIn): string {
  if (us < US_PER_SECOND || us % US_PER_SECOND !== 0) return `${+(us / US_PER_SECOND).toFixed(6)}s`;
  let seconds = us / US_PER_SECOND;
  const h = Math.floor(seconds / 3600);
  seconds -= h * 3600;
  const m = Math.floor(seconds / 60);
  seconds -= m * 60;
  const parts = [h ? `${h}h` : '', m ? `${m}m` : '', seconds ? `${seconds}s` : ''];
  return parts.join('') || '0s';
}

/** Formats a time stamp as seconds with millisecond precision: "12.345". */
export function formatSeconds(us: MicrosIn): string {
  return (us / US_PER_SECOND).toFixed(3);
}
