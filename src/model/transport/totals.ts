// A host's totals over its connections: a server holds one peer state per
// client, and its cost is their sum. Counters add up; the per-peer
// maxima ("the most in one datagram", "the highest queue") take the largest.
import { COUNTER_NAMES, GAUGE_NAMES, MAX_AGGREGATED, newPeerCounters, zeroGauges } from './counter-schema.js';
import type { PeerCounters, PeerGauges } from './counter-schema.js';
import type { ConnectionState } from './lifecycle.js';
import { totalIntervalPeaks } from './interval-peaks.js';
import type { IntervalPeakValues } from './interval-peaks.js';

/** What observers and summaries read of a peer, or of a host's total over its peers. */
export interface PeerReadout {
  readonly counters: PeerCounters;
  gauges(): PeerGauges;
  readonly state: ConnectionState | string;
  /** The charted figures' highest values since the last sample; absent where nothing tracks them. */
  readonly intervalPeaks?: Readonly<IntervalPeakValues>;
}

const SUMMED = COUNTER_NAMES.filter((key) => !MAX_AGGREGATED.has(key));
const MAXED = COUNTER_NAMES.filter((key) => MAX_AGGREGATED.has(key));

export function sumCounters(all: readonly PeerCounters[]): PeerCounters {
  const total = newPeerCounters();
  for (const c of all) {
    for (const key of SUMMED) total[key] += c[key];
    for (const key of MAXED) if (c[key] > total[key]) total[key] = c[key];
  }
  return total;
}

function sumGauges(all: readonly PeerGauges[]): PeerGauges {
  const total = zeroGauges();
  for (const g of all) for (const key of GAUGE_NAMES) total[key] += g[key];
  return total;
}

/** "open" when every peer agrees, else "open×2,timed-out×1" in a fixed order. */
function combinedState(states: readonly string[]): string {
  if (states.length === 0) return 'none';
  const counts = new Map<string, number>();
  for (const s of states) counts.set(s, (counts.get(s) ?? 0) + 1);
  if (counts.size === 1) return states[0];
  return [...counts.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([s, n]) => `${s}×${n}`)
    .join(',');
}

/** A host's total as a readout, computed when read (once per sample, not per event). */
export class PeerTotal implements PeerReadout {
  constructor(private readonly peers: () => readonly PeerReadout[]) {}

  /** With one peer the total is that peer's own figures (counters are >= 0): no sum is made. */
  get counters(): PeerCounters {
    const peers = this.peers();
    return peers.length === 1 ? peers[0].counters : sumCounters(peers.map((p) => p.counters));
  }

  gauges(): PeerGauges {
    const peers = this.peers();
    return peers.length === 1 ? peers[0].gauges() : sumGauges(peers.map((p) => p.gauges()));
  }

  get intervalPeaks(): Readonly<IntervalPeakValues> {
    const peers = this.peers();
    const one = peers.length === 1 ? peers[0].intervalPeaks : undefined;
    return (
      one ??
      totalIntervalPeaks(
        this.gauges(),
        peers.map((p) => p.intervalPeaks),
      )
    );
  }

  get state(): string {
    return combinedState(this.peers().map((p) => p.state));
  }
}
