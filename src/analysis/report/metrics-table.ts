// The comparison's rows: one metric per row, one mode per column. Shared by the
// terminal table, report.md and report.html so all three say the same thing.
import { figureOf } from '../../model/session/index.js';
import type { FigureRef } from '../../model/session/index.js';
import { counterRow } from '../../model/transport/index.js';
import type { Comparison, ComparedRun } from './compare.js';
import { connectionKeys, connectionsOf, isMultiClient, keyLabel } from './connections.js';
import { fmt } from '../../core/output/index.js';

export interface Row {
  readonly label: string;
  /** Rows are highlighted against the first column, in the row's better direction. */
  readonly value: (run: ComparedRun) => number;
  readonly format?: (value: number) => string;
  /** true: lower is better; false: higher is better; null: not coloured. A peer figure's comes from the counter schema. */
  readonly lowerIsBetter: boolean | null;
  /** The peer figure (counter schema name) a row shows: one end's, or the sum of both ends'. */
  readonly figure?: { readonly ref: FigureRef; readonly peers: 'server' | 'client' | 'sum' };
}

/** Not measured in this column (a connection its run never had): no colour, printed as a dash. */
const MISSING = Number.NaN;

/** The counter schema's direction of a figure. */
function lowerIsBetterOf(ref: FigureRef): boolean | null {
  return counterRow(ref.split('.')[0])?.lowerIsBetter ?? null;
}

/** A figure of each end, server then client: gauges, maxima, peaks and ratios. */
const both = (label: string, ref: FigureRef): Row[] =>
  (['server', 'client'] as const).map((peers) => ({
    label: `${label} (${peers})`,
    value: (r: ComparedRun) => figureOf(r.summary.peers[peers], ref),
    lowerIsBetter: lowerIsBetterOf(ref),
    figure: { ref, peers },
  }));

/** A count over both ends. */
const sum = (label: string, ref: FigureRef): Row => ({
  label,
  value: (r) => figureOf(r.summary.peers.server, ref) + figureOf(r.summary.peers.client, ref),
  lowerIsBetter: lowerIsBetterOf(ref),
  figure: { ref, peers: 'sum' },
});

/**
 * Send-to-delivery latency of reliable messages, ms, per
 * sequence category: high (types 0x32 and up, the game's) then low.
 */
const latency = (): Row[] =>
  (['high', 'low'] as const).flatMap((category) =>
    (['p50', 'p99', 'max'] as const).map((stat) => ({
      label: `send-to-delivery latency ${stat}, ${category} types (ms)`,
      value: (r: ComparedRun) => r.summary.delivery.latencyMs[category][stat],
      lowerIsBetter: true,
    })),
  );

export const ROWS: readonly Row[] = [
  ...both('ACK-outbox peak', 'ackOutbox.max'),
  ...both('dead-zone peak', 'ackOutboxDeadZone.max'),
  ...both('ACK-outbox at end', 'ackOutbox.final'),
  ...both('retransmit queue peak', 'retransmitQueue.max'),
  ...both('modelled memory peak (bytes)', 'memoryBytes.max'),
  ...both('dedup comparisons per message, peak', 'dedupComparisonsMaxPerMessage'),
  ...both('dedup comparisons per message, mean', 'dedupPerMessage'),
  ...both('dedup comparisons per second, peak', 'dedupComparisonsMaxPerSecond'),
  sum('dedup comparisons, total', 'dedupComparisons'),
  ...both('ACK bytes per datagram, peak', 'ackBytesPerPacketMax'),
  ...both('ACK bytes per datagram, mean', 'ackBytesPerPacket'),
  sum('ACK bytes sent', 'ackBytesSent'),
  sum('game messages deferred (datagram full)', 'deferredMessages'),
  sum('retransmits', 'retransmits'),
  sum('fragment retransmits', 'fragmentRetransmits'),
  { label: 'reliable messages lost', value: (r) => r.summary.delivery.reliableLost, lowerIsBetter: true },
  { label: 'duplicate deliveries', value: (r) => r.summary.delivery.duplicateDeliveries, lowerIsBetter: true },
  { label: 'out-of-order deliveries', value: (r) => r.summary.delivery.outOfOrderDeliveries, lowerIsBetter: true },
  ...latency(),
  {
    label: 'queues flagged as leaking',
    value: (r) => r.trends.filter((t) => t.trend.leak).length,
    lowerIsBetter: true,
  },
];

/**
 * The rows of a comparison: ROWS with one client. With more than one,
 * the paired rows say "server total" / "client total" and the ACK-outbox peak of
 * every connection follows the totals' pair, server side by slot, then client side.
 */
export function rowsFor(comparison: Comparison): readonly Row[] {
  if (!isMultiClient(comparison)) return ROWS;
  const totals = ROWS.map(
    (row): Row => ({
      ...row,
      label: row.label.replace(/ \(server\)$/, ' (server total)').replace(/ \(client\)$/, ' (client total)'),
    }),
  );
  const at = ROWS.findIndex((r) => r.label === 'ACK-outbox peak (client)') + 1;
  const perConnection = (['server', 'client'] as const).flatMap((side) =>
    connectionKeys(comparison, side).map(
      (key): Row => ({
        label: `ACK-outbox peak, ${side === 'server' ? 'server connection' : 'client'} ${keyLabel(key)}`,
        value: (r) => connectionsOf(r.summary, side)[key]?.ackOutbox.max ?? MISSING,
        lowerIsBetter: lowerIsBetterOf('ackOutbox.max'),
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

/** 'better', 'worse' or null against the first column, in the row's direction (a missing value, or a row without one, is neither). */
function judge(
  value: number,
  base: number,
  first: boolean,
  lowerIsBetter: boolean | null = true,
): 'better' | 'worse' | null {
  if (first || lowerIsBetter === null || value === base || Number.isNaN(value) || Number.isNaN(base)) return null;
  return value < base === lowerIsBetter ? 'better' : 'worse';
}

/**
 * A cell's colour against the first column's: judge() on the values, but only
 * when the figures shown differ (6,490 beside 6,490 is neither, whatever the
 * digits behind them).
 */
export function cellVerdict(row: Row, run: ComparedRun, base: ComparedRun, first: boolean): 'better' | 'worse' | null {
  if (first || cell(row, run) === cell(row, base)) return null;
  return judge(row.value(run), row.value(base), first, row.lowerIsBetter);
}

/** True when every row is better lower (the reports' caption says so). */
export function allLowerIsBetter(rows: readonly Row[]): boolean {
  return rows.every((row) => row.lowerIsBetter === true);
}
