// Virtual time. The clock is an integer count of microseconds, so hours of
// simulated time accumulate no floating-point drift (issue 2, item 2).

/** Integer microseconds of simulated time. */
export type Micros = number;

export const US_PER_MS = 1_000;
export const US_PER_SECOND = 1_000_000;

export function msToUs(ms: number): Micros {
  return Math.round(ms * US_PER_MS);
}

export function secondsToUs(seconds: number): Micros {
  return Math.round(seconds * US_PER_SECOND);
}

export function usToSeconds(us: Micros): number {
  return us / US_PER_SECOND;
}

const UNIT_US: Record<string, number> = {
  us: 1,
  ms: US_PER_MS,
  s: US_PER_SECOND,
  m: 60 * US_PER_SECOND,
  h: 3_600 * US_PER_SECOND,
};

const DURATION_PART = /(\d+(?:\.\d+)?)(us|ms|s|m|h)/y;

/**
 * Parses "30s", "10m", "4h", "1h30m", "250ms" or a bare number of seconds.
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
  return Math.round(total);
}

/** Formats a duration compactly: 0.095s, 12s, 30m, 4h, 1h30m. */
export function formatDuration(us: Micros): string {
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
export function formatSeconds(us: Micros): string {
  return (us / US_PER_SECOND).toFixed(3);
}
