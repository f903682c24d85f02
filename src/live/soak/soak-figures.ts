// The figures a soak reports, declared once: each drives a column of
// timeseries.csv, a chart of report.html and a row of the side-by-side table.
// A figure is read per connection per minute (MinuteRow) and combined over
// the connections of that minute: the worst (max), the total (sum) or the mean.
import type { MinuteRow } from '../../analysis/capture/index.js';

export interface SoakFigure {
  readonly name: string;
  /** Short, for the table's rows; `title` heads the chart. */
  readonly label: string;
  readonly title: string;
  readonly unit: string;
  /** How the connections of one minute combine. */
  readonly over: 'max' | 'sum' | 'mean';
  readonly of: (row: MinuteRow) => number | null;
}

export const SOAK_FIGURES: readonly SoakFigure[] = [
  {
    name: 'serverAckOutboxPeak',
    label: 'server ACK-outbox, peak (entries)',
    title: "Server ACK-outbox estimate (the minute's peak, worst connection)",
    unit: 'entries',
    over: 'max',
    of: (r) => r.serverAckOutboxPeak,
  },
  {
    name: 'serverDeadZonePeak',
    label: 'server dead zone, peak (entries)',
    title: "Server dead zone: entries at 3 to 8 sends (two-pass only; the minute's peak, worst connection)",
    unit: 'entries',
    over: 'max',
    of: (r) => r.serverDeadZonePeak,
  },
  {
    name: 'staleAcks',
    label: 'stale ACKs per minute',
    // The analyzer settles which repeats were stale in sweeps two minutes apart, so the count comes in steps.
    title: 'Stale ACKs from the server (per minute as the analysis settles them, every 2 minutes; all connections)',
    unit: 'ACKs',
    over: 'sum',
    of: (r) => r.staleAcks,
  },
  {
    name: 'ackBytesPerDatagram',
    label: 'ACK bytes per server datagram',
    title: 'ACK bytes per server datagram (mean over connections)',
    unit: 'bytes',
    over: 'mean',
    of: (r) => r.ackBytesPerDatagram,
  },
  {
    name: 'serverResends',
    label: 'server re-sends per minute',
    title: 'Server re-sends (per minute, all connections)',
    unit: 'transmissions',
    over: 'sum',
    of: (r) => r.serverResends,
  },
  {
    name: 'longestServerGapMs',
    label: 'longest server gap (ms)',
    title: 'Longest gap between server datagrams (worst connection)',
    unit: 'ms',
    over: 'max',
    of: (r) => r.longestServerGapMs,
  },
  {
    name: 'givenUp',
    label: 'our messages given up per minute',
    title: "Our messages given up (per minute, all clients; our transport's count)",
    unit: 'messages',
    over: 'sum',
    of: (r) => r.givenUp,
  },
  {
    name: 'ackLatencyP50Ms',
    label: 'server ACK latency p50 (ms)',
    title: "Server's ACK latency, median (worst connection)",
    unit: 'ms',
    over: 'max',
    of: (r) => r.ackLatencyMs?.p50 ?? null,
  },
  {
    name: 'ackLatencyP99Ms',
    label: 'server ACK latency p99 (ms)',
    title: "Server's ACK latency, 99th percentile (worst connection)",
    unit: 'ms',
    over: 'max',
    of: (r) => r.ackLatencyMs?.p99 ?? null,
  },
  {
    name: 'serverDatagramsPerS',
    label: 'server datagrams/s',
    title: 'Server datagrams per second (all connections)',
    unit: 'datagrams/s',
    over: 'sum',
    of: (r) => r.datagramsPerS.serverToClient,
  },
  {
    name: 'serverBytesPerS',
    label: 'server bytes/s',
    title: 'Server bytes per second (all connections)',
    unit: 'bytes/s',
    over: 'sum',
    of: (r) => r.bytesPerS.serverToClient,
  },
  {
    name: 'clientDatagramsPerS',
    label: 'our datagrams/s',
    title: 'Our datagrams per second (all clients)',
    unit: 'datagrams/s',
    over: 'sum',
    of: (r) => r.datagramsPerS.clientToServer,
  },
  {
    name: 'serverBoots',
    label: 'server Boots + Disconnects per minute',
    title: 'Boots and Disconnects from the server (per minute, all connections)',
    unit: 'messages',
    over: 'sum',
    of: (r) => r.serverBoots + r.serverDisconnects,
  },
];

/** Fewer minutes than this give no slope: a few minutes' trend says nothing about a leak. */
const MIN_MINUTES_FOR_SLOPE = 10;

export interface MinutePoint {
  readonly startS: number;
  readonly seconds: number;
  /** Null when no connection had the figure that minute (no estimate, no ACK). */
  readonly value: number | null;
}

/** One figure over the session: each minute's rows combined over the connections. */
export function figureSeries(rows: readonly MinuteRow[], figure: SoakFigure): MinutePoint[] {
  const byMinute = new Map<number, MinuteRow[]>();
  for (const r of rows) {
    const list = byMinute.get(r.startS);
    if (list === undefined) byMinute.set(r.startS, [r]);
    else list.push(r);
  }
  return [...byMinute.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([startS, list]) => {
      const values = list.map(figure.of).filter((v): v is number => v !== null);
      let value: number | null = null;
      if (values.length > 0) {
        const sum = values.reduce((a, b) => a + b, 0);
        value = figure.over === 'max' ? Math.max(...values) : figure.over === 'sum' ? sum : sum / values.length;
      }
      return { startS, seconds: list[0].seconds, value };
    });
}

/** The largest minute, the mean over minutes with a value, and the least-squares slope per hour (null: too few). */
export function figureSummary(points: readonly MinutePoint[]): {
  max: number | null;
  mean: number | null;
  slopePerHour: number | null;
} {
  const known = points.filter((p) => p.value !== null) as Array<MinutePoint & { value: number }>;
  if (known.length === 0) return { max: null, mean: null, slopePerHour: null };
  const max = Math.max(...known.map((p) => p.value));
  const mean = known.reduce((a, p) => a + p.value, 0) / known.length;
  if (known.length < MIN_MINUTES_FOR_SLOPE) return { max, mean, slopePerHour: null };
  const xs = known.map((p) => p.startS / 3600);
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  let num = 0;
  let den = 0;
  known.forEach((p, i) => {
    num += (xs[i] - mx) * (p.value - mean);
    den += (xs[i] - mx) ** 2;
  });
  return { max, mean, slopePerHour: den === 0 ? null : num / den };
}
