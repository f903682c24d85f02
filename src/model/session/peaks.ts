// Figures that only exist per simulated second: the most dedup
// comparisons any peer (and each host total) made in one second, and the peaks
// of the totals' queue gauges. A single peer's gauge peaks are kept exactly by
// the peer itself; a total is the sum over connections, sampled once a second.
import { zeroGauges } from '../transport/index.js';
import type { PeerGauges, Role, PeerReadout } from '../transport/index.js';

interface DedupTally {
  last: number;
  max: number;
}

interface ConnectionPeers {
  readonly clientPeer: PeerReadout;
  readonly serverPeer: PeerReadout;
}

export class PeakTally {
  private readonly perPeer = new Map<PeerReadout, DedupTally>();
  private readonly perTotal: Record<Role, DedupTally> = { server: { last: 0, max: 0 }, client: { last: 0, max: 0 } };
  private readonly totalGauges: Record<Role, PeerGauges> = { server: zeroGauges(), client: zeroGauges() };

  sample(connections: readonly ConnectionPeers[], totals: Readonly<Record<Role, PeerReadout>>): void {
    const dedup = { server: 0, client: 0 };
    for (const c of connections) {
      const server = c.serverPeer.counters.dedupComparisons;
      const client = c.clientPeer.counters.dedupComparisons;
      this.note(this.tally(c.serverPeer), server);
      this.note(this.tally(c.clientPeer), client);
      dedup.server += server;
      dedup.client += client;
    }
    for (const role of ['server', 'client'] as const) {
      // Sums of the per-peer counts: a total's counters object is not built every second.
      this.note(this.perTotal[role], dedup[role]);
      const g = totals[role].gauges();
      const peak = this.totalGauges[role];
      for (const key of Object.keys(peak) as Array<keyof PeerGauges>) if (g[key] > peak[key]) peak[key] = g[key];
    }
  }

  /** The most dedup comparisons `peer` made in one simulated second. */
  dedupPerSecond(peer: PeerReadout): number {
    return this.perPeer.get(peer)?.max ?? 0;
  }

  /** The same for a host's total (the server's connections together, or all clients). */
  totalDedupPerSecond(role: Role): number {
    return this.perTotal[role].max;
  }

  /** The highest sampled value of a total's gauges. */
  totalGaugePeaks(role: Role): Readonly<PeerGauges> {
    return this.totalGauges[role];
  }

  private tally(peer: PeerReadout): DedupTally {
    let t = this.perPeer.get(peer);
    if (t === undefined) this.perPeer.set(peer, (t = { last: 0, max: 0 }));
    return t;
  }

  private note(t: DedupTally, total: number): void {
    const delta = total - t.last;
    if (delta > t.max) t.max = delta;
    t.last = total;
  }
}
