// The metrics recorder: a SessionObserver that samples both peers once per
// simulated second into bounded series. It only reads the transport's counters
// and gauges, so recording cannot change a run. With several clients the
// series are the totals, plus the worst connection's two ends.
import { ZERO_US, usToSeconds } from '../engine/index.js';
import type { Micros } from '../engine/index.js';
import type { ConnectionView, SessionObserver } from '../session/index.js';
import { COUNTER_SCHEMA, checkedFieldName, copyPeerCounters, newPeerCounters } from '../transport/index.js';
import type { ChartedName, CountName, IntervalPeakName, IntervalPeakValues, PeerCounters, PeerGauges, PeerReadout, Role } from '../transport/index.js';
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

/** A readout's series and the counters of its previous sample (rates are deltas). */
interface Track {
  readonly series: PeerSeries;
  /** The same series in METRICS order, for recordSample. */
  readonly ordered: readonly Series[];
  previous: PeerCounters | null;
}

type SampleRecorder = (
  c: Readonly<PeerCounters>,
  before: Readonly<PeerCounters> | null,
  g: Readonly<PeerGauges>,
  peaks: Readonly<IntervalPeakValues> | undefined,
  tS: number,
  elapsedS: number,
  series: readonly Series[],
) => void;

/** The charted figures whose peak between two samples the transport tracks (interval-peaks.ts): their band reaches it. */
const INTERVAL_PEAKED: ReadonlySet<string> = new Set<IntervalPeakName>(['ackOutbox', 'ackOutboxDeadZone', 'retransmitQueue', 'memoryBytes', 'ackBytesPerPacket', 'dedupPerMessage']);

/**
 * Adds one sample to every series: gauges as read, counts as rates over the
 * interval, ratios of two counts' increases. Compiled once from METRICS (names
 * are the schema's checked identifiers), so each read is a fixed-offset load,
 * not a lookup by name (which cost ~1.3 µs a sample).
 */
const recordSample: SampleRecorder = (() => {
  const delta = (key: string) => `(c.${checkedFieldName(key)} - (before === null ? 0 : before.${key}))`;
  const lines = METRICS.map((m, i) => {
    checkedFieldName(m.name);
    const high = INTERVAL_PEAKED.has(m.name) ? `, peaks === undefined ? undefined : peaks.${m.name}` : '';
    if (m.of !== null) return `{ const den = ${delta(m.of[1])}; series[${i}].add(tS, den === 0 ? 0 : ${delta(m.of[0])} / den${high}); }`;
    if (m.kind === 'gauge') return `series[${i}].add(tS, g.${m.name}${high});`;
    return `series[${i}].add(tS, ${delta(m.name)} / elapsedS);`;
  });
  return new Function('c', 'before', 'g', 'peaks', 'tS', 'elapsedS', 'series', lines.join('\n')) as SampleRecorder;
})();

interface ConnectionTrack {
  readonly client: number;
  readonly tracks: Record<Role, Track>;
  /** The view seen at the last sample: its counters give the exact peaks at the end. */
  view: ConnectionView;
}

/**
 * Memory: the totals cost 2 × METRICS × maxPoints buckets.
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

  sample(timeUs: Micros, totals: Readonly<Record<Role, PeerReadout>>, connections: readonly ConnectionView[] = []): void {
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
    return { client: worst.client, ackOutboxMax: best[0], series: { server: worst.tracks.server.series, client: worst.tracks.client.series } };
  }

  recorded(): RecordedRun {
    return { endS: this.endS, series: this.series, worst: this.worstConnection() };
  }

  private track(): Track {
    const ordered = METRICS.map(() => new Series(this.maxPoints));
    return { series: Object.fromEntries(METRICS.map((m, i) => [m.name, ordered[i]])) as PeerSeries, ordered, previous: null };
  }
}

/** Adds one sample of `peer` to `track`: gauges as read, counters as rates over the interval. */
function record(track: Track, peer: PeerReadout, tS: number, elapsedS: number): void {
  const c = peer.counters;
  recordSample(c, track.previous, peer.gauges(), peer.intervalPeaks, tS, elapsedS, track.ordered);
  track.previous = copyPeerCounters(c, track.previous ?? newPeerCounters()); // reused: no object per sample
}

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
