// The metrics recorder: a SessionObserver that samples both peers once per
// simulated second into bounded series. It only reads the transport's counters
// and gauges, so recording cannot change a run. With several clients the
// series are the totals, plus the worst connection's two ends.
import { ZERO_US, usToSeconds } from '../../core/engine/index.js';
import type { Micros } from '../../core/engine/index.js';
import type { ConnectionView, SessionObserver } from '../session/index.js';
import { COUNTER_SCHEMA } from '../transport/index.js';
import type { ChartedName, CountName, GaugeName, IntervalPeakName, PeerReadout, Role } from '../transport/index.js';
import { DEFAULT_MAX_POINTS, Series } from './series.js';
import { DEFAULT_LEAK_RULE, trendOf } from './trend.js';
import type { LeakRule, Trend } from './trend.js';

/**
 * Per-second metrics: the counter schema's charted rows, in its order
 * (timeseries.csv's metric names, report.html's charts). A gauge is recorded
 * as read, a count as its rate over the interval, a ratio as the ratio of its
 * two counts' increases (0 when the denominator did not grow).
 */
export interface Metric {
  readonly name: MetricName;
  /** The chart's axis: a gauge's or ratio's unit; a count's per second. */
  readonly unit: string;
  readonly kind: 'gauge' | 'rate' | 'ratio';
  /** Queues (gauges of things held) can leak; rates and ratios only have a slope. */
  readonly queue: boolean;
  readonly title: string;
  /** A ratio's numerator and denominator; null for the others. */
  readonly of: readonly [CountName, CountName] | null;
}

export type MetricName = ChartedName;

export const METRICS: readonly Metric[] = COUNTER_SCHEMA.flatMap((row): Metric[] => {
  if (!('chart' in row)) return [];
  const base = { name: row.name, title: row.chart, queue: row.kind === 'gauge' };
  if (row.kind === 'gauge') return [{ ...base, unit: row.unit, kind: 'gauge', of: null }];
  if (row.kind === 'ratio') return [{ ...base, unit: row.unit, kind: 'ratio', of: row.of }];
  return [{ ...base, unit: row.unit === 'bytes' ? 'bytes per second' : 'per second', kind: 'rate', of: null }];
});

/** One role's series, one per metric. */
export type PeerSeries = Record<MetricName, Series>;

/**
 * The connection a multi-client run charts beside the totals: the
 * one whose server-side ACK-outbox peaked highest, with both its ends.
 */
export interface WorstConnection {
  /** The client's number in the scenario (1-based); the report maps it to its slot. */
  readonly client: number;
  /** Its server-side ACK-outbox peak (exact, = summary peers.server.connections[slot].ackOutbox.max). */
  readonly ackOutboxMax: number;
  /** `server`: the server's peer state for this client; `client`: the client itself. */
  readonly series: Record<Role, PeerSeries>;
}

export interface RecordedRun {
  readonly endS: number;
  /** The totals: the server's over its connections and the clients' (one client: its connection's two peers). */
  readonly series: Record<Role, PeerSeries>;
  /** Runs with more than one client: the worst connection; null with one client. */
  readonly worst: WorstConnection | null;
}

/** A readout's series and the counts of its previous sample (rates are increases). */
interface Track {
  readonly series: PeerSeries;
  /** The same series in METRICS order, for record. */
  readonly ordered: readonly Series[];
  /** Each of COUNTED at the previous sample (0 before the first). */
  readonly previous: Float64Array;
  /** Each of COUNTED's increase since the previous sample; reused by every sample. */
  readonly grew: Float64Array;
}

/** The charted figures whose peak between two samples the transport tracks (interval-peaks.ts): their band reaches it. */
const INTERVAL_PEAKED: ReadonlySet<string> = new Set<IntervalPeakName>([
  'ackOutbox',
  'ackOutboxDeadZone',
  'retransmitQueue',
  'memoryBytes',
  'ackBytesPerPacket',
  'dedupPerMessage',
]);

/** The counts whose increases the metrics chart (rates and both sides of ratios), each once. */
const COUNTED: readonly CountName[] = Object.freeze([
  ...new Set(
    METRICS.flatMap((m): CountName[] => (m.of !== null ? [...m.of] : m.kind === 'rate' ? [m.name as CountName] : [])),
  ),
]);

/** What one sample reads for a metric, in METRICS order: a gauge as read, a count's increase, a ratio of two counts' increases. */
type SampledMetric =
  | { readonly kind: 'gauge'; readonly gauge: GaugeName; readonly peak: IntervalPeakName | null }
  | { readonly kind: 'rate'; readonly count: number }
  | {
      readonly kind: 'ratio';
      readonly numerator: number;
      readonly denominator: number;
      readonly peak: IntervalPeakName | null;
    };

const SAMPLED: readonly SampledMetric[] = Object.freeze(
  METRICS.map((m): SampledMetric => {
    const peak = INTERVAL_PEAKED.has(m.name) ? (m.name as IntervalPeakName) : null;
    if (m.of !== null)
      return { kind: 'ratio', numerator: COUNTED.indexOf(m.of[0]), denominator: COUNTED.indexOf(m.of[1]), peak };
    if (m.kind === 'gauge') return { kind: 'gauge', gauge: m.name as GaugeName, peak };
    return { kind: 'rate', count: COUNTED.indexOf(m.name as CountName) };
  }),
);

/**
 * Adds one sample of `peer` to `track`'s series: gauges as read, counts as rates over
 * the interval, ratios of two counts' increases (0 when the denominator did not grow).
 */
function record(track: Track, peer: PeerReadout, tS: number, elapsedS: number): void {
  const c = peer.counters;
  const { previous, grew, ordered } = track;
  for (let k = 0; k < COUNTED.length; k++) {
    const now = c[COUNTED[k]];
    grew[k] = now - previous[k];
    previous[k] = now;
  }
  const g = peer.gauges();
  const peaks = peer.intervalPeaks;
  for (let i = 0; i < SAMPLED.length; i++) {
    const m = SAMPLED[i];
    if (m.kind === 'rate') {
      ordered[i].add(tS, grew[m.count] / elapsedS);
      continue;
    }
    const high = m.peak === null || peaks === undefined ? undefined : peaks[m.peak];
    if (m.kind === 'gauge') ordered[i].add(tS, g[m.gauge], high);
    else ordered[i].add(tS, grew[m.denominator] === 0 ? 0 : grew[m.numerator] / grew[m.denominator], high);
  }
}

interface ConnectionTrack {
  readonly client: number;
  readonly tracks: Record<Role, Track>;
  /** The view seen at the last sample: its counters give the exact peaks at the end. */
  view: ConnectionView;
}

/**
 * Memory: the totals cost 2 × METRICS × (maxPoints + HEAD_SECONDS) buckets.
 * With more than one client the recorder also keeps every connection's two ends
 * at the same bounded resolution (clients × 2 × METRICS × maxPoints buckets:
 * 16 clients at 300 points ≈ 125k buckets, a few MB, whatever the run's length),
 * because which connection is worst is only known at the end: a connection whose
 * outbox climbs late would otherwise have no history. `recorded()` keeps only
 * the worst one, so a comparison holds one connection per mode, not all of them.
 */
export class MetricsRecorder implements SessionObserver {
  readonly series: Record<Role, PeerSeries>;
  private readonly totals: Record<Role, Track>;
  private readonly connections = new Map<number, ConnectionTrack>();
  private lastSampleUs: Micros = ZERO_US;
  endS = 0;

  constructor(readonly maxPoints = DEFAULT_MAX_POINTS) {
    this.totals = { server: this.track(), client: this.track() };
    this.series = { server: this.totals.server.series, client: this.totals.client.series };
  }

  sample(
    timeUs: Micros,
    totals: Readonly<Record<Role, PeerReadout>>,
    connections: readonly ConnectionView[] = [],
  ): void {
    const elapsedS = usToSeconds(timeUs - this.lastSampleUs);
    if (elapsedS <= 0) return;
    // The sample at t covers (t - elapsed, t]; stamp it at the interval's start.
    const tS = usToSeconds(this.lastSampleUs);
    for (const role of ['server', 'client'] as const) record(this.totals[role], totals[role], tS, elapsedS);
    if (connections.length > 1) {
      for (const view of connections) {
        let c = this.connections.get(view.client);
        if (c === undefined) {
          c = { client: view.client, tracks: { server: this.track(), client: this.track() }, view };
          this.connections.set(view.client, c);
        }
        c.view = view;
        record(c.tracks.server, view.serverPeer, tS, elapsedS);
        record(c.tracks.client, view.clientPeer, tS, elapsedS);
      }
    }
    this.lastSampleUs = timeUs;
    this.endS = usToSeconds(timeUs);
  }

  /**
   * The worst connection: highest server-side ACK-outbox peak, then highest
   * client-side peak, then the lowest client number. null with one client.
   */
  worstConnection(): WorstConnection | null {
    let worst: ConnectionTrack | null = null;
    let best: [number, number] = [-1, -1];
    for (const c of [...this.connections.values()].sort((a, b) => a.client - b.client)) {
      const key: [number, number] = [c.view.serverPeer.counters.ackOutboxMax, c.view.clientPeer.counters.ackOutboxMax];
      if (key[0] > best[0] || (key[0] === best[0] && key[1] > best[1])) {
        worst = c;
        best = key;
      }
    }
    if (worst === null) return null;
    return {
      client: worst.client,
      ackOutboxMax: best[0],
      series: { server: worst.tracks.server.series, client: worst.tracks.client.series },
    };
  }

  recorded(): RecordedRun {
    return { endS: this.endS, series: this.series, worst: this.worstConnection() };
  }

  private track(): Track {
    const ordered = METRICS.map(() => new Series(this.maxPoints, 1, HEAD_SECONDS));
    const series = Object.fromEntries(METRICS.map((m, i) => [m.name, ordered[i]])) as PeerSeries;
    return { series, ordered, previous: new Float64Array(COUNTED.length), grew: new Float64Array(COUNTED.length) };
  }
}

/**
 * The join's window: every series also keeps its first 60 samples (60 s at one
 * a second, 60 × 2 × METRICS buckets a track), so a report can chart the join,
 * where the stuck fragments are re-sent, at full resolution on a 4 h run.
 */
export const HEAD_SECONDS = 60;

/** Memory grows in bytes: 1 KiB is about 13 stranded ACK entries. */
const LEAK_RULES: Partial<Record<MetricName, LeakRule>> = { memoryBytes: { minGrowth: 1024, minRelativeGrowth: 0.2 } };

export interface SeriesTrend {
  readonly peer: Role;
  readonly metric: MetricName;
  /** Queues (gauges of things held) can leak; rates and ratios only have a slope. */
  readonly queue: boolean;
  readonly trend: Trend;
}

/** The growth of every series over the last half of the run; only queues can be flagged as leaks. */
export function seriesTrends(run: RecordedRun): SeriesTrend[] {
  const out: SeriesTrend[] = [];
  for (const peer of ['server', 'client'] as const) {
    for (const m of METRICS) {
      const trend = trendOf(run.series[peer][m.name].points(), run.endS, LEAK_RULES[m.name] ?? DEFAULT_LEAK_RULE);
      out.push({ peer, metric: m.name, queue: m.queue, trend: m.queue ? trend : { ...trend, leak: false } });
    }
  }
  return out;
}
