// The metrics recorder: a SessionObserver that samples both peers once per
// simulated second into bounded series. It only reads the transport's counters
// and gauges, so recording cannot change a run.
import type { SessionObserver } from '../session/observer.js';
import type { PeerCounters } from '../transport/counters.js';
import type { PeerTransport } from '../transport/peer.js';
import type { Role } from '../transport/roles.js';
import { DEFAULT_MAX_POINTS, Series } from './series.js';
import { DEFAULT_LEAK_RULE, trendOf } from './trend.js';
import type { LeakRule, Trend } from './trend.js';

/** Per-second metrics, named after the summary's P fields. */
export const METRICS = [
  { name: 'ackOutbox', unit: 'entries', kind: 'gauge', queue: true, title: 'ACK-outbox entries' },
  { name: 'ackOutboxDeadZone', unit: 'entries', kind: 'gauge', queue: true, title: 'Dead-zone entries (send count 3..8)' },
  { name: 'retransmitQueue', unit: 'messages', kind: 'gauge', queue: true, title: 'Retransmit queue' },
  { name: 'memoryBytes', unit: 'bytes', kind: 'gauge', queue: true, title: 'Modelled memory (bytes)' },
  { name: 'dedupComparisons', unit: 'per second', kind: 'rate', queue: false, title: 'Dedup comparisons per second' },
  { name: 'dedupPerMessage', unit: 'per reliable message', kind: 'ratio', queue: false, title: 'Dedup comparisons per reliable message' },
  { name: 'retransmits', unit: 'per second', kind: 'rate', queue: false, title: 'Retransmits per second' },
  { name: 'fragmentRetransmits', unit: 'per second', kind: 'rate', queue: false, title: 'Fragment retransmits per second' },
  { name: 'packetsSent', unit: 'per second', kind: 'rate', queue: false, title: 'Datagrams sent per second' },
  { name: 'bytesSent', unit: 'bytes per second', kind: 'rate', queue: false, title: 'Bytes sent per second' },
  { name: 'ackBytesSent', unit: 'bytes per second', kind: 'rate', queue: false, title: 'ACK bytes sent per second' },
  { name: 'ackBytesPerPacket', unit: 'bytes per datagram', kind: 'ratio', queue: false, title: 'ACK bytes per datagram' },
  { name: 'deferredMessages', unit: 'per second', kind: 'rate', queue: false, title: 'Game messages deferred (datagram full) per second' },
] as const;

export type MetricName = (typeof METRICS)[number]['name'];

type CounterKey = keyof PeerCounters;
const RATE_COUNTERS: Partial<Record<MetricName, CounterKey>> = {
  dedupComparisons: 'dedupComparisons',
  retransmits: 'retransmits',
  fragmentRetransmits: 'fragmentRetransmits',
  packetsSent: 'packetsSent',
  bytesSent: 'bytesSent',
  ackBytesSent: 'ackBytesSent',
  deferredMessages: 'deferredMessages',
};

export interface RecordedRun {
  readonly endS: number;
  readonly series: Record<Role, Record<MetricName, Series>>;
}

export class MetricsRecorder implements SessionObserver {
  readonly series: Record<Role, Record<MetricName, Series>>;
  private readonly previous: Record<Role, PeerCounters | null> = { server: null, client: null };
  private lastSampleUs = 0;
  endS = 0;

  constructor(readonly maxPoints = DEFAULT_MAX_POINTS) {
    const make = () => Object.fromEntries(METRICS.map((m) => [m.name, new Series(maxPoints)])) as Record<MetricName, Series>;
    this.series = { server: make(), client: make() };
  }

  sample(timeUs: number, peers: Readonly<Record<Role, PeerTransport>>): void {
    const elapsedS = (timeUs - this.lastSampleUs) / 1e6;
    if (elapsedS <= 0) return;
    // The sample at t covers (t - elapsed, t]; stamp it at the interval's start.
    const tS = this.lastSampleUs / 1e6;
    for (const role of ['server', 'client'] as const) {
      const peer = peers[role];
      const c = peer.counters;
      const before = this.previous[role];
      const delta = (key: CounterKey) => (c[key] as number) - (before ? (before[key] as number) : 0);
      const s = this.series[role];
      const g = peer.gauges();
      s.ackOutbox.add(tS, g.ackOutbox);
      s.ackOutboxDeadZone.add(tS, g.deadZone);
      s.retransmitQueue.add(tS, g.retransmitQueue);
      s.memoryBytes.add(tS, g.memoryBytes);
      for (const [metric, key] of Object.entries(RATE_COUNTERS) as Array<[MetricName, CounterKey]>) s[metric].add(tS, delta(key) / elapsedS);
      const lookups = delta('dedupLookups');
      s.dedupPerMessage.add(tS, lookups === 0 ? 0 : delta('dedupComparisons') / lookups);
      const packets = delta('packetsSent');
      s.ackBytesPerPacket.add(tS, packets === 0 ? 0 : delta('ackBytesSent') / packets);
      this.previous[role] = { ...c };
    }
    this.lastSampleUs = timeUs;
    this.endS = timeUs / 1e6;
  }

  recorded(): RecordedRun {
    return { endS: this.endS, series: this.series };
  }
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
