// Min / median / max of a figure over several runs (the sweep's summary, the
// reproductions' tables): order-free, so the runs may arrive in any order.

export interface Stat {
  readonly min: number;
  /** The middle value; for an even count the mean of the two middle values. */
  readonly median: number;
  readonly max: number;
  /** Runs where the figure had a value (a figure can be null when a run had no data for it). */
  readonly n: number;
}

export function statOf(values: readonly number[]): Stat | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { min: sorted[0], median, max: sorted[sorted.length - 1], n: sorted.length };
}
