// The comparison's rows: one metric per row, one mode per column. Shared by the
// terminal table, report.md and report.html so all three say the same thing.
import type { PeerSummary } from '../session/summary.js';
import type { Comparison, ComparedRun } from './compare.js';
import { connectionKeys, connectionsOf, isMultiClient, keyLabel } from './connections.js';
import { fmt } from './format.js';

export interface Row {
  readonly label: string;
  /** Lower is better for every row; rows are highlighted against the first column. */
  readonly value: (run: ComparedRun) => number;
  readonly format?: (value: number) => string;
}

/** Not measured in this column (a connection its run never had): no colour, printed as a dash. */
export const MISSING = Number.NaN;

const both = (label: string, get: (p: PeerSummary) => number): Row[] => [
  { label: `${label} (server)`, value: (r) => get(r.summary.peers.server) },
  { label: `${label} (client)`, value: (r) => get(r.summary.peers.client) },
];

/**
 * Send-to-delivery latency of reliable messages (issue 11, item 6), ms, per
 * sequence category: high (types 0x32 and up, the game's) then low.
 */
const latency = (): Row[] =>
  (['high', 'low'] as const).flatMap((category) =>
    (['p50', 'p99', 'max'] as const).map((stat) => ({
      label: `send-to-delivery latency ${stat}, ${category} types (ms)`,
      value: (r: ComparedRun) => r.summary.delivery.latencyMs[category][stat],
    })),
  );

export const ROWS: readonly Row[] = [
  ...both('ACK-outbox peak', (p) => p.ackOutbox.max),
  ...both('dead-zone peak', (p) => p.ackOutboxDeadZone.max),
  ...both('ACK-outbox at end', (p) => p.ackOutbox.final),
  ...both('retransmit queue peak', (p) => p.retransmitQueue.max),
  ...both('modelled memory peak (bytes)', (p) => p.memoryBytes.max),
  ...both('dedup comparisons per message, peak', (p) => p.dedupComparisons.maxPerMessage),
  ...both('dedup comparisons per message, mean', (p) => p.dedupComparisons.perReliableMessage),
  ...both('dedup comparisons per second, peak', (p) => p.dedupComparisons.maxPerSecond),
  { label: 'dedup comparisons, total', value: (r) => r.summary.peers.server.dedupComparisons.total + r.summary.peers.client.dedupComparisons.total },
  ...both('ACK bytes per datagram, peak', (p) => p.ackBytesPerPacketMax),
  ...both('ACK bytes per datagram, mean', (p) => (p.packetsSent === 0 ? 0 : p.ackBytesSent / p.packetsSent)),
  { label: 'ACK bytes sent', value: (r) => r.summary.peers.server.ackBytesSent + r.summary.peers.client.ackBytesSent },
  { label: 'game messages deferred (datagram full)', value: (r) => r.summary.peers.server.deferredMessages + r.summary.peers.client.deferredMessages },
  { label: 'retransmits', value: (r) => r.summary.peers.server.retransmits + r.summary.peers.client.retransmits },
  { label: 'fragment retransmits', value: (r) => r.summary.peers.server.fragmentRetransmits + r.summary.peers.client.fragmentRetransmits },
  { label: 'reliable messages lost', value: (r) => r.summary.delivery.reliableLost },
  { label: 'duplicate deliveries', value: (r) => r.summary.delivery.duplicateDeliveries },
  { label: 'out-of-order deliveries', value: (r) => r.summary.delivery.outOfOrderDeliveries },
  ...latency(),
  { label: 'queues flagged as leaking', value: (r) => r.trends.filter((t) => t.trend.leak).length },
];

/**
 * The rows of a comparison: ROWS with one client. With more than one (issue 12),
 * the paired rows say "server total" / "client total" and the ACK-outbox peak of
 * every connection follows the totals' pair, server side by slot, then client side.
 */
export function rowsFor(comparison: Comparison): readonly Row[] {
  if (!isMultiClient(comparison)) return ROWS;
  const totals = ROWS.map((row): Row => ({ ...row, label: row.label.replace(/ \(server\)$/, ' (server total)').replace(/ \(client\)$/, ' (client total)') }));
  const at = ROWS.findIndex((r) => r.label === 'ACK-outbox peak (client)') + 1;
  const perConnection = (['server', 'client'] as const).flatMap((side) =>
    connectionKeys(comparison, side).map(
      (key): Row => ({
        label: `ACK-outbox peak, ${side === 'server' ? 'server connection' : 'client'} ${keyLabel(key)}`,
        value: (r) => connectionsOf(r.summary, side)[key]?.ackOutbox.max ?? MISSING,
      }),
    ),
  );
  return [...totals.slice(0, at), ...perConnection, ...totals.slice(at)];
}

export function cell(row: Row, run: ComparedRun): string {
  const v = row.value(run);
  if (Number.isNaN(v)) return '–';
  return row.format ? row.format(v) : fmt(v);
}

/** 'better', 'worse' or null against the first column (lower is better; a missing value is neither). */
export function judge(value: number, base: number, first: boolean): 'better' | 'worse' | null {
  if (first || value === base || Number.isNaN(value) || Number.isNaN(base)) return null;
  return value < base ? 'better' : 'worse';
}
