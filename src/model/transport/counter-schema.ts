// The counter schema: one row per figure a peer reports.
// It drives the peer's counters and gauges (their names, types and zeroes),
// a host's totals over its connections (the aggregation), the run summary
// (`bcsim.summary/1`: which figures, where, in which order), the per-second
// metrics (the CSV's metric names and the charts' titles and units), and the
// direction the report tables colour. Adding a counter is adding one row to its
// table (counter-rows-*.ts), plus the code that increments it. This file joins the
// tables and derives from them; counter-row.ts is the rows' shape.
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

import type { CounterKind, CounterRow } from './counter-row.js';
import { OUTCOME_ROWS } from './counter-rows-outcomes.js';
import { QUEUE_ROWS } from './counter-rows-queues.js';
import { TRAFFIC_ROWS } from './counter-rows-traffic.js';

export type { CounterRow } from './counter-row.js';

// The tables joined in order. Summary rows are in the summary's order (its JSON key
// order); rows with `summary: false` may stand anywhere. Charted rows are in the charts'
// order (the CSV's and report.html's). A row changes table only where both orders hold.
export const COUNTER_SCHEMA = [
  ...QUEUE_ROWS,
  ...TRAFFIC_ROWS,
  ...OUTCOME_ROWS,
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
