// What the reports say about each connection of a multi-client run:
// which columns had more than one client, the slots in table order, and the
// worst connection each run charts beside the server total.
import type { PeerSeries } from '../../model/metrics/index.js';
import type { ConnectionSummary, Summary } from '../../model/session/index.js';
import { connectionKey } from '../../model/session/index.js';
import type { Comparison, ComparedRun } from './compare.js';

/** True when any column ran more than one client: only then do reports add per-connection rows and series. */
export function isMultiClient(comparison: Comparison): boolean {
  return comparison.runs.some((r) => r.summary.session.clients > 1);
}

/** "slot 3", or "client 2 (not connected)" for a client the server never accepted. */
export function keyLabel(key: string): string {
  return /^\d+$/.test(key) ? `slot ${key}` : `client ${key.replace(/^client/, '')} (not connected)`;
}

/**
 * The connection keys of one side over every column, in summary order (slots
 * ascending, then clients that never connected): server side from
 * `peers.server.connections`, client side from `peers.clients`.
 */
export function connectionKeys(comparison: Comparison, side: 'server' | 'client'): string[] {
  const keys: string[] = [];
  for (const run of comparison.runs) {
    for (const key of Object.keys(connectionsOf(run.summary, side))) if (!keys.includes(key)) keys.push(key);
  }
  const slot = (k: string) => (/^\d+$/.test(k) ? Number(k) : Number.POSITIVE_INFINITY);
  const client = (k: string) => (/^\d+$/.test(k) ? 0 : Number(k.replace(/^client/, '')));
  return keys.sort((a, b) => slot(a) - slot(b) || client(a) - client(b));
}

export function connectionsOf(summary: Summary, side: 'server' | 'client'): Record<string, ConnectionSummary> {
  return side === 'server' ? summary.peers.server.connections : summary.peers.clients;
}

export interface ChartedConnection {
  /** Its key in the summary ("3"), and "slot 3" to print. */
  readonly key: string;
  readonly label: string;
  readonly client: number;
  readonly series: Record<'server' | 'client', PeerSeries>;
}

/** The connection the recorder kept for this run (highest server-side ACK-outbox peak), or null with one client. */
export function worstConnection(run: ComparedRun): ChartedConnection | null {
  const worst = run.recorded.worst;
  if (!worst) return null;
  const entry = Object.values(run.summary.peers.clients).find((c) => c.client === worst.client);
  const key = connectionKey(worst.client, entry?.slot ?? null);
  return { key, label: keyLabel(key), client: worst.client, series: worst.series };
}

/** The highest ACK-outbox peak of any single connection, either end (the capture's 20–33 is per connection). */
export function perConnectionOutboxMax(summary: Summary): number {
  const all = [...Object.values(summary.peers.server.connections), ...Object.values(summary.peers.clients)];
  return all.reduce((m, c) => Math.max(m, c.ackOutbox.max), 0);
}
