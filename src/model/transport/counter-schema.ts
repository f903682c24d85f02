// The counter schema: one row per figure a peer reports.
// It drives the peer's counters and gauges (their names, types and zeroes),
// a host's totals over its connections (the aggregation), the run summary
// (`bcsim.summary/1`: which figures, where, in which order), the per-second
// metrics (the CSV's metric names and the charts' titles and units), and the
// direction the report tables colour. Adding a counter is adding one row here,
// plus the code that increments it.
//
// The schema describes the counters; it does not store them. A peer's counters
// stay one plain object of numeric fields, incremented inline
// (`this.counters.retransmits++`); `newPeerCounters()` builds that object.
//
// Names do not change on the way: a row's name is the field in the peer's
// counters (or gauges), the key in the summary's peer objects and the metric
// name in timeseries.csv. The one nesting in the summary is the
// `dedupComparisons` group: its rows are named `dedupComparisons` (the group's
// `total`) and `dedupComparisons` + the field's name capitalised
// (`dedupComparisonsMaxPerMessage` is `dedupComparisons.maxPerMessage`). Ratios
// are computed, never stored: the one in that group keeps the CSV name it has
// always had (`dedupPerMessage`, summarised as `dedupComparisons.perReliableMessage`).

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
type CounterKind = 'count' | 'max' | 'gauge' | 'peakRate' | 'ratio';

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

// Summary rows are in the summary's order (its JSON key order); rows with
// `summary: false` may stand anywhere. Charted rows are in the charts' order
// (the CSV's and report.html's).
export const COUNTER_SCHEMA = [
  // Gauges: levels the peer reports, and their peaks.
  {
    name: 'ackOutbox',
    kind: 'gauge',
    aggregation: 'sum',
    unit: 'entries',
    lowerIsBetter: true,
    summary: true,
    chart: 'ACK-outbox entries',
    description: 'ACK entries waiting in the ACK-outbox to be sent or freed.',
  },
  {
    name: 'ackOutboxDeadZone',
    kind: 'gauge',
    aggregation: 'sum',
    unit: 'entries',
    lowerIsBetter: true,
    summary: true,
    chart: 'Dead-zone entries (send count 3..8)',
    description: 'ACK-outbox entries sent 3 to 8 times, which only pass 2 (behind its gate) sends again.',
  },
  {
    name: 'retransmitQueue',
    kind: 'gauge',
    aggregation: 'sum',
    unit: 'messages',
    lowerIsBetter: true,
    summary: true,
    chart: 'Retransmit queue',
    description: 'Reliable messages and fragments sent and not yet ACKed.',
  },
  {
    name: 'firstSendQueue',
    kind: 'gauge',
    aggregation: 'sum',
    unit: 'messages',
    lowerIsBetter: true,
    summary: true,
    description: 'Messages waiting for their first send.',
  },
  {
    name: 'memoryBytes',
    kind: 'gauge',
    aggregation: 'sum',
    unit: 'bytes',
    lowerIsBetter: true,
    summary: true,
    peakIncludesFinal: true,
    chart: 'Modelled memory (bytes)',
    description: 'Modelled transport memory: queued messages, ACK entries and receive buffers.',
  },
  // The receiver's duplicate check (the summary's dedupComparisons group).
  {
    name: 'dedupComparisons',
    kind: 'count',
    aggregation: 'sum',
    unit: 'comparisons',
    lowerIsBetter: true,
    summary: 'dedupComparisons.total',
    chart: 'Dedup comparisons per second',
    description: 'Comparisons the duplicate check made: stock scans the ACK-outbox, fixed looks up a hashed index.',
  },
  {
    name: 'dedupLookups',
    kind: 'count',
    aggregation: 'sum',
    unit: 'messages',
    lowerIsBetter: null,
    summary: false,
    description: 'Reliable messages and fragments the duplicate check looked up.',
  },
  {
    name: 'dedupComparisonsMaxPerMessage',
    kind: 'max',
    aggregation: 'max',
    unit: 'comparisons',
    lowerIsBetter: true,
    summary: 'dedupComparisons.maxPerMessage',
    description: 'Most comparisons one lookup made.',
  },
  {
    name: 'dedupComparisonsMaxPerSecond',
    kind: 'peakRate',
    aggregation: 'sampled',
    of: 'dedupComparisons',
    unit: 'comparisons per second',
    lowerIsBetter: true,
    summary: 'dedupComparisons.maxPerSecond',
    description: 'Most comparisons in one simulated second.',
  },
  {
    name: 'dedupPerMessage',
    kind: 'ratio',
    aggregation: 'ratio',
    of: ['dedupComparisons', 'dedupLookups'],
    unit: 'per reliable message',
    lowerIsBetter: true,
    summary: 'dedupComparisons.perReliableMessage',
    chart: 'Dedup comparisons per reliable message',
    description: 'Comparisons per lookup.',
  },
  // Retransmission.
  {
    name: 'retransmits',
    kind: 'count',
    aggregation: 'sum',
    unit: 'messages',
    lowerIsBetter: true,
    summary: true,
    chart: 'Retransmits per second',
    description: 'Reliable messages and fragments sent again because their ACK did not come in time.',
  },
  {
    name: 'fragmentRetransmits',
    kind: 'count',
    aggregation: 'sum',
    unit: 'fragments',
    lowerIsBetter: true,
    summary: true,
    chart: 'Fragment retransmits per second',
    description: 'The retransmits that were fragments.',
  },
  {
    name: 'retransmitReentries',
    kind: 'count',
    aggregation: 'sum',
    unit: 'messages',
    lowerIsBetter: true,
    summary: true,
    description: 'Retransmitted messages queued again as a new entry (stock re-entry).',
  },
  // Send side.
  {
    name: 'packetsSent',
    kind: 'count',
    aggregation: 'sum',
    unit: 'datagrams',
    lowerIsBetter: true,
    summary: true,
    chart: 'Datagrams sent per second',
    description: 'Datagrams sent.',
  },
  {
    name: 'bytesSent',
    kind: 'count',
    aggregation: 'sum',
    unit: 'bytes',
    lowerIsBetter: true,
    summary: true,
    chart: 'Bytes sent per second',
    description: 'Bytes sent: datagram headers, ACKs and game messages.',
  },
  {
    name: 'ackBytesSent',
    kind: 'count',
    aggregation: 'sum',
    unit: 'bytes',
    lowerIsBetter: true,
    summary: true,
    chart: 'ACK bytes sent per second',
    description: 'Bytes of ACKs sent.',
  },
  {
    name: 'ackBytesPerPacket',
    kind: 'ratio',
    aggregation: 'ratio',
    of: ['ackBytesSent', 'packetsSent'],
    unit: 'bytes per datagram',
    lowerIsBetter: true,
    summary: false,
    chart: 'ACK bytes per datagram',
    description: 'ACK bytes per datagram sent.',
  },
  {
    name: 'gameBytesSent',
    kind: 'count',
    aggregation: 'sum',
    unit: 'bytes',
    lowerIsBetter: null,
    summary: true,
    description: 'Bytes of game messages sent (datagram headers and ACKs excluded).',
  },
  {
    name: 'ackBytesPerPacketMax',
    kind: 'max',
    aggregation: 'max',
    unit: 'bytes',
    lowerIsBetter: true,
    summary: true,
    description: 'Largest share of one datagram taken by ACKs.',
  },
  {
    name: 'acksSent',
    kind: 'count',
    aggregation: 'sum',
    unit: 'ACKs',
    lowerIsBetter: true,
    summary: true,
    description: 'ACKs sent, every resend of an ACK-outbox entry included.',
  },
  {
    name: 'messagesSent',
    kind: 'count',
    aggregation: 'sum',
    unit: 'messages',
    lowerIsBetter: null,
    summary: false,
    description: 'Messages sent in datagrams, ACKs excluded.',
  },
  // The ACK-outbox's entries.
  {
    name: 'ackEntriesCreated',
    kind: 'count',
    aggregation: 'sum',
    unit: 'entries',
    lowerIsBetter: null,
    summary: false,
    description: 'ACK-outbox entries created.',
  },
  {
    name: 'ackEntriesRefreshed',
    kind: 'count',
    aggregation: 'sum',
    unit: 'entries',
    lowerIsBetter: null,
    summary: false,
    description: 'ACK-outbox entries found again by a duplicate arrival.',
  },
  {
    name: 'ackEntriesFreed',
    kind: 'count',
    aggregation: 'sum',
    unit: 'entries',
    lowerIsBetter: null,
    summary: false,
    description: 'ACK-outbox entries freed.',
  },
  {
    name: 'ackEntriesRefused',
    kind: 'count',
    aggregation: 'sum',
    unit: 'entries',
    lowerIsBetter: true,
    summary: true,
    description: 'New ACK entries refused because the outbox was at its limit (those ACKs are never sent).',
  },
  {
    name: 'deferredMessages',
    kind: 'count',
    aggregation: 'sum',
    unit: 'messages',
    lowerIsBetter: true,
    summary: true,
    chart: 'Game messages deferred (datagram full) per second',
    description: 'First sends that waited at least one update because a datagram was full.',
  },
  {
    name: 'keepalivesSent',
    kind: 'count',
    aggregation: 'sum',
    unit: 'messages',
    lowerIsBetter: null,
    summary: true,
    description: 'Keepalives sent, echoes included.',
  },
  // ACK handling on the sender.
  {
    name: 'acksReceived',
    kind: 'count',
    aggregation: 'sum',
    unit: 'ACKs',
    lowerIsBetter: null,
    summary: true,
    description: 'ACKs received.',
  },
  {
    name: 'acksMatched',
    kind: 'count',
    aggregation: 'sum',
    unit: 'ACKs',
    lowerIsBetter: null,
    summary: true,
    description: 'ACKs that matched a queued message or fragment.',
  },
  {
    name: 'acksUnmatched',
    kind: 'count',
    aggregation: 'sum',
    unit: 'ACKs',
    lowerIsBetter: true,
    summary: true,
    description: 'ACKs that matched nothing in a non-empty retransmit queue.',
  },
  {
    name: 'acksOnEmptyQueue',
    kind: 'count',
    aggregation: 'sum',
    unit: 'ACKs',
    lowerIsBetter: true,
    summary: true,
    description: 'ACKs that arrived while the retransmit queue was empty.',
  },
  // Receive side.
  {
    name: 'packetsReceived',
    kind: 'count',
    aggregation: 'sum',
    unit: 'datagrams',
    lowerIsBetter: null,
    summary: false,
    description: 'Datagrams read.',
  },
  {
    name: 'bytesReceived',
    kind: 'count',
    aggregation: 'sum',
    unit: 'bytes',
    lowerIsBetter: null,
    summary: false,
    description: 'Bytes of the datagrams read.',
  },
  {
    name: 'malformedReceived',
    kind: 'count',
    aggregation: 'sum',
    unit: 'datagrams',
    lowerIsBetter: true,
    summary: false,
    description: 'Datagrams that did not decode.',
  },
  {
    name: 'reliableReceived',
    kind: 'count',
    aggregation: 'sum',
    unit: 'messages',
    lowerIsBetter: null,
    summary: true,
    description: 'Reliable messages and fragments received, duplicates included.',
  },
  {
    name: 'duplicatesReceived',
    kind: 'count',
    aggregation: 'sum',
    unit: 'messages',
    lowerIsBetter: true,
    summary: true,
    description: 'Reliable messages and fragments received again after they were taken.',
  },
  {
    name: 'deliveredReliable',
    kind: 'count',
    aggregation: 'sum',
    unit: 'messages',
    lowerIsBetter: null,
    summary: false,
    description: 'Reliable messages delivered to the game.',
  },
  {
    name: 'deliveredUnreliable',
    kind: 'count',
    aggregation: 'sum',
    unit: 'messages',
    lowerIsBetter: null,
    summary: false,
    description: 'Unreliable messages delivered to the game.',
  },
  {
    name: 'invalidFragments',
    kind: 'count',
    aggregation: 'sum',
    unit: 'fragments',
    lowerIsBetter: true,
    summary: false,
    description: 'Fragments that cannot belong to any message (fragment 0 announcing 0 fragments).',
  },
  {
    name: 'gaveUp',
    kind: 'count',
    aggregation: 'sum',
    unit: 'messages',
    lowerIsBetter: true,
    summary: true,
    description: 'Messages the sender gave up on: retry limit, age limit or peer timeout.',
  },
  {
    name: 'sendRejected',
    kind: 'count',
    aggregation: 'sum',
    unit: 'messages',
    lowerIsBetter: true,
    summary: true,
    description: 'Messages refused because a queue was at its limit.',
  },
  {
    name: 'windowStalls',
    kind: 'count',
    aggregation: 'sum',
    unit: 'updates',
    lowerIsBetter: true,
    summary: true,
    description: 'Updates in which the send window held first sends back.',
  },
  {
    name: 'outOfWindow',
    kind: 'count',
    aggregation: 'sum',
    unit: 'messages',
    lowerIsBetter: true,
    summary: true,
    description: 'Reliable messages dropped unACKed because they lay past the send window (stale copies).',
  },
  {
    name: 'forcedReliable',
    kind: 'count',
    aggregation: 'sum',
    unit: 'messages',
    lowerIsBetter: null,
    summary: true,
    description: 'Unreliable messages too large for one fragment, sent as reliable fragments.',
  },
  {
    name: 'messagesPerPacketMax',
    kind: 'max',
    aggregation: 'max',
    unit: 'messages',
    lowerIsBetter: null,
    summary: true,
    description: 'Most messages one datagram carried (up to 33 measured in combat).',
  },
  {
    name: 'keepalivesEchoed',
    kind: 'count',
    aggregation: 'sum',
    unit: 'messages',
    lowerIsBetter: null,
    summary: true,
    description: 'Keepalives sent as echoes of the counterpart’s.',
  },
  {
    name: 'wrapConflicts',
    kind: 'count',
    aggregation: 'sum',
    unit: 'messages',
    lowerIsBetter: true,
    summary: true,
    description: 'Arrivals at a seq whose receive slot held a different message (switch wrapReceive decides).',
  },
  {
    name: 'inboxOverflows',
    kind: 'count',
    aggregation: 'sum',
    unit: 'datagrams',
    lowerIsBetter: true,
    summary: true,
    description: 'Datagrams dropped because the socket inbox was full.',
  },
  {
    name: 'updates',
    kind: 'count',
    aggregation: 'sum',
    unit: 'updates',
    lowerIsBetter: null,
    summary: true,
    description: 'Network updates run.',
  },
  {
    name: 'gateShutDatagrams',
    kind: 'count',
    aggregation: 'sum',
    unit: 'datagrams',
    lowerIsBetter: true,
    summary: true,
    description: 'Datagrams sent with the pass-2 gate shut while the dead zone held entries.',
  },
  // Limits hit: each explicit bound of the transport counts the times it was reached.
  // Not in the summary; the refusals also count in sendRejected, ackEntriesRefused or inboxOverflows.
  {
    name: 'firstSendQueueFull',
    kind: 'count',
    aggregation: 'sum',
    unit: 'messages',
    lowerIsBetter: true,
    summary: false,
    description: 'Messages refused because the first-send queue was at firstSendQueueLimit.',
  },
  {
    name: 'retransmitQueueFull',
    kind: 'count',
    aggregation: 'sum',
    unit: 'messages',
    lowerIsBetter: true,
    summary: false,
    description: 'Reliable messages not queued for retransmission because the queue was at retransmitQueueLimit.',
  },
  {
    name: 'unsendableRefused',
    kind: 'count',
    aggregation: 'sum',
    unit: 'messages',
    lowerIsBetter: true,
    summary: false,
    description:
      'Messages refused by the wire limits: over 255 fragments, or too large for one datagram and not fragmentable.',
  },
  {
    name: 'keepaliveSlotBusy',
    kind: 'count',
    aggregation: 'sum',
    unit: 'messages',
    lowerIsBetter: null,
    summary: false,
    description: 'Keepalives not sent because the one out-of-band keepalive slot still held one waiting for room.',
  },
  {
    name: 'receiveBufferLimitHits',
    kind: 'count',
    aggregation: 'sum',
    unit: 'messages',
    lowerIsBetter: true,
    summary: false,
    description: 'Times a receive buffer reached MAX_HELD_PIECES; the run then ends with a limit error.',
  },
] as const satisfies readonly CounterRow[];

type Row = (typeof COUNTER_SCHEMA)[number];
type RowOf<K extends CounterKind> = Extract<Row, { kind: K }>;

/** Every row's name: the figures a peer reports. */
export type FigureName = Row['name'];
export type GaugeName = RowOf<'gauge'>['name'];
/** The peer's counters: counts, per-event maxima, and each gauge's exact peak. */
export type CounterName = RowOf<'count' | 'max'>['name'] | `${GaugeName}Max`;
export type CountName = RowOf<'count'>['name'];
export type PeakRateName = RowOf<'peakRate'>['name'];
/** Rows recorded once a simulated second (the CSV's metrics and the charts). */
export type ChartedName = Extract<Row, { chart: string }>['name'];

/** A peer's counters: plain numbers, incremented inline by the transport. */
export type PeerCounters = { [K in CounterName]: number };
/** A peer's levels, read when observed. */
export type PeerGauges = { [K in GaugeName]: number };

/** The counter that keeps a gauge's exact peak. */
export function peakCounter<G extends GaugeName>(gauge: G): `${G}Max` {
  return `${gauge}Max`;
}

/** The counters' names in the counters object's order: a gauge's peak stands at its gauge's row. */
export const COUNTER_NAMES: readonly CounterName[] = COUNTER_SCHEMA.flatMap((row): CounterName[] =>
  row.kind === 'count' || row.kind === 'max' ? [row.name] : row.kind === 'gauge' ? [peakCounter(row.name)] : [],
);

export const GAUGE_NAMES: readonly GaugeName[] = COUNTER_SCHEMA.flatMap((row): GaugeName[] =>
  row.kind === 'gauge' ? [row.name] : [],
);

/** Counters whose total over connections is the largest (per-event maxima and gauge peaks); the rest add up. */
export const MAX_AGGREGATED: ReadonlySet<CounterName> = new Set(
  COUNTER_SCHEMA.flatMap((row): CounterName[] =>
    row.kind === 'max' ? [row.name] : row.kind === 'gauge' ? [peakCounter(row.name)] : [],
  ),
);

const BY_NAME: ReadonlyMap<string, CounterRow> = new Map(COUNTER_SCHEMA.map((row) => [row.name, row]));

/** The row of `name`, or undefined when the schema has none. */
export function counterRow(name: string): CounterRow | undefined {
  return BY_NAME.get(name);
}

/**
 * The text of an object with every name of `names` at 0, in their order. JSON.parse makes
 * each object of it with its fields inside the object, under one hidden class, as an object
 * literal would, so the hot path's `counters.x++` is a store at a fixed offset. Built field
 * by field instead, an object this wide falls back to a dictionary, ~7 % slower per run.
 */
function zeroText(names: readonly string[]): string {
  return JSON.stringify(Object.fromEntries(names.map((name) => [name, 0])));
}

const ZERO_COUNTERS = zeroText(COUNTER_NAMES);
const ZERO_GAUGES = zeroText(GAUGE_NAMES);

export function newPeerCounters(): PeerCounters {
  return JSON.parse(ZERO_COUNTERS) as PeerCounters;
}

export function zeroGauges(): PeerGauges {
  return JSON.parse(ZERO_GAUGES) as PeerGauges;
}

/**
 * How `counters` and `gauges` (a peer's, or any object claiming to be one)
 * disagree with the schema: a field the schema lacks, a schema field missing,
 * a field that is not a number. Empty when they agree.
 */
export function schemaMismatches(counters: object, gauges: object): string[] {
  const out: string[] = [];
  const check = (what: string, obj: object, expected: readonly string[]) => {
    const want = new Set(expected);
    for (const [key, value] of Object.entries(obj)) {
      if (!want.has(key)) out.push(`${what} field "${key}" is not in the counter schema`);
      else if (typeof value !== 'number') out.push(`${what} field "${key}" is ${typeof value}, not a number`);
    }
    for (const key of expected)
      if (!Object.prototype.hasOwnProperty.call(obj, key))
        out.push(`${what} field "${key}" of the counter schema is missing`);
  };
  check('counters', counters, COUNTER_NAMES);
  check('gauges', gauges, GAUGE_NAMES);
  return out;
}
