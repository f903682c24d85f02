// The shape of one counter-schema row (counter-schema.ts): what a figure is, how a host's
// total over its connections is made, and where it is reported.

/**
 * - `count`: a running count the peer increments. A host's total is the sum.
 * - `max`: the largest value one event had (one datagram, one lookup). The total is the largest.
 * - `gauge`: a level the peer reports in `gauges()` (a queue's length, modelled
 *   memory). The peer keeps its exact peak in the counter `<name>Max`; the
 *   summary has `{final, max}`. The total's level is the sum; its peak is the
 *   larger of the peers' peaks and the sum's peak as sampled once a second.
 * - `peakRate`: the most a count grew in one simulated second, measured by the
 *   session's once-a-second samples (not by the peer). A total's is measured on its own sum.
 * - `ratio`: `of[0] / of[1]` (0 when `of[1]` is 0), computed from counts, never
 *   stored; a total's is computed from its summed counts. In the summary it is
 *   the ratio over the whole run, rounded to 3 decimals; as a metric, the ratio
 *   of each second's increases.
 */
export type CounterKind = 'count' | 'max' | 'gauge' | 'peakRate' | 'ratio';

interface RowCommon {
  readonly name: string;
  /** What one unit counts: "messages", "bytes", "entries", ... (a chart's axis for gauges and ratios). */
  readonly unit: string;
  /** true: lower is better (a cost, a fault); false: higher is better; null: neither (activity). */
  readonly lowerIsBetter: boolean | null;
  /** One line: what it counts. */
  readonly description: string;
  /**
   * In the summary's peer objects: true under the row's own name, a
   * `dedupComparisons.<field>` path in that group, or false (the peer's own
   * counter only, not in `bcsim.summary/1`).
   */
  readonly summary: boolean | `${string}.${string}`;
}

/** Recorded once a simulated second and charted: the chart's title. */
interface Charted {
  readonly chart?: string;
}

export type CounterRow = RowCommon &
  (
    | ({ readonly kind: 'count'; readonly aggregation: 'sum' } & Charted)
    | { readonly kind: 'max'; readonly aggregation: 'max' }
    | ({
        readonly kind: 'gauge';
        readonly aggregation: 'sum' /** The summary's max includes the final level. */;
        readonly peakIncludesFinal?: boolean;
      } & Charted)
    | { readonly kind: 'peakRate'; readonly aggregation: 'sampled' /** The count it measures. */; readonly of: string }
    | ({
        readonly kind: 'ratio';
        readonly aggregation: 'ratio' /** Numerator and denominator, both counts. */;
        readonly of: readonly [string, string];
      } & Charted)
  );
