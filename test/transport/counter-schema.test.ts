// One counter schema. The schema, the peer's counters and
// gauges, the summary's peer objects, the CSV's metrics and the report tables'
// rows agree, and each check reports a disagreement planted into it.
import { describe, expect, it } from 'vitest';
import { METRICS } from '../../src/model/metrics/index.js';
import { runComparison } from '../../src/analysis/report/compare.js';
import { timeseriesCsv } from '../../src/analysis/report/documents.js';
import { ROWS } from '../../src/analysis/report/metrics-table.js';
import type { Row } from '../../src/analysis/report/metrics-table.js';
import { PEER_ROWS } from '../../src/analysis/report/summary-table.js';
import { loadScenario } from '../../src/model/scenario/load.js';
import { figureOf } from '../../src/model/session/summary.js';
import type { PeerSummary } from '../../src/model/session/summary.js';
import {
  COUNTER_NAMES,
  COUNTER_SCHEMA,
  GAUGE_NAMES,
  counterRow,
  newPeerCounters,
  peakCounter,
  schemaMismatches,
  zeroGauges,
} from '../../src/model/transport/counter-schema.js';
import type { CounterRow, GaugeName } from '../../src/model/transport/counter-schema.js';
import { sumCounters } from '../../src/model/transport/totals.js';

const ROWS_OF: readonly CounterRow[] = COUNTER_SCHEMA;

// One short comparison serves every check on real output: 2 simulated minutes, stock and fixed.
const comparison = runComparison(loadScenario('lossy-link'), { durationUs: 120e6 });
const summaries = comparison.runs.map((r) => r.summary);

/** The summary paths a peer object holds, in its key order (a gauge's two fields, a group's members). */
function pathsOf(peer: object): string[] {
  return Object.entries(peer).flatMap(([key, value]) =>
    value !== null && typeof value === 'object' ? Object.keys(value).map((f) => `${key}.${f}`) : [key],
  );
}

/** The paths the schema says a peer object holds, in order. */
function schemaPaths(rows: readonly CounterRow[]): string[] {
  const out = rows.flatMap((row) =>
    row.summary === false
      ? []
      : row.kind === 'gauge'
        ? [`${row.name}.final`, `${row.name}.max`]
        : [row.summary === true ? row.name : row.summary],
  );
  // The summary nests a group where its first member stands.
  const order: string[] = [];
  for (const path of out) {
    const group = path.includes('.') ? path.split('.')[0] : path;
    let at = -1;
    order.forEach((p, i) => {
      if (p.startsWith(`${group}.`)) at = i;
    });
    if (at >= 0 && !rows.some((r) => r.kind === 'gauge' && r.name === group)) order.splice(at + 1, 0, path);
    else order.push(path);
  }
  return [...order, 'state'];
}

/** Where a summary's peer object and the schema disagree. */
function summaryMismatches(peer: object, rows: readonly CounterRow[] = ROWS_OF): string[] {
  const actual = pathsOf(peer);
  const expected = schemaPaths(rows);
  const out: string[] = [];
  for (const p of actual) if (!expected.includes(p)) out.push(`summary field ${p} is not in the counter schema`);
  for (const p of expected) if (!actual.includes(p)) out.push(`schema figure ${p} is missing from the summary`);
  if (out.length === 0 && actual.join() !== expected.join())
    out.push(`summary order ${actual.join(',')} is not the schema's`);
  return out;
}

/** The metric names of a CSV, in order of first appearance. */
function csvMetrics(csv: string): string[] {
  const names: string[] = [];
  for (const line of csv.trim().split('\n').slice(1)) {
    const metric = line.split(',')[3];
    if (!names.includes(metric)) names.push(metric);
  }
  return names;
}

function csvMismatches(metrics: readonly string[]): string[] {
  const charted = ROWS_OF.filter((r) => 'chart' in r && r.chart !== undefined).map((r) => r.name);
  const out = metrics.filter((m) => !charted.includes(m)).map((m) => `CSV metric ${m} is not a charted schema row`);
  out.push(...charted.filter((m) => !metrics.includes(m)).map((m) => `charted schema row ${m} is not in the CSV`));
  if (out.length === 0 && metrics.join() !== charted.join()) out.push('CSV metrics are not in the schema order');
  return out;
}

/** Where a comparison table row disagrees with the schema: an unknown figure, a wrong direction, a sum of a non-count. */
function rowMismatches(rows: readonly Row[], sample: PeerSummary): string[] {
  const out: string[] = [];
  for (const row of rows) {
    if (row.figure === undefined) continue;
    const name = row.figure.ref.split('.')[0];
    const schema = counterRow(name);
    if (schema === undefined) {
      out.push(`table row "${row.label}" shows ${name}, which is not in the counter schema`);
      continue;
    }
    if (row.lowerIsBetter !== schema.lowerIsBetter)
      out.push(`table row "${row.label}" colours ${name} against the schema's direction`);
    if (row.figure.peers === 'sum' && schema.kind !== 'count')
      out.push(`table row "${row.label}" adds up ${name}, a ${schema.kind}`);
    if (!Number.isFinite(figureOf(sample, row.figure.ref)))
      out.push(`table row "${row.label}": ${row.figure.ref} is not a number`);
  }
  return out;
}

describe('the counter schema', () => {
  it('has unique names, and ratios and peak rates of counts', () => {
    const names = ROWS_OF.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
    expect(new Set(COUNTER_NAMES).size).toBe(COUNTER_NAMES.length);
    for (const row of ROWS_OF) {
      expect(row.description.length, row.name).toBeGreaterThan(0);
      expect(row.unit.length, row.name).toBeGreaterThan(0);
      const of = row.kind === 'ratio' ? row.of : row.kind === 'peakRate' ? [row.of] : [];
      for (const n of of) expect(counterRow(n)?.kind, `${row.name} of ${n}`).toBe('count');
      expect({ count: 'sum', max: 'max', gauge: 'sum', peakRate: 'sampled', ratio: 'ratio' }[row.kind], row.name).toBe(
        row.aggregation,
      );
    }
  });

  it("keeps the summary's names: a row is its own summary field, or dedupComparisons + the field", () => {
    for (const row of ROWS_OF) {
      if (typeof row.summary !== 'string') continue;
      const [group, field] = row.summary.split('.');
      if (row.kind === 'ratio') continue; // computed, not stored: it keeps its CSV name
      const flat = field === 'total' ? group : `${group}${field[0].toUpperCase()}${field.slice(1)}`;
      expect(row.name, row.summary).toBe(flat);
    }
  });

  it('is the shape of the counters and gauges of every peer, and reports a field it lacks or misses', () => {
    const counters = newPeerCounters();
    expect(Object.keys(counters)).toEqual(COUNTER_NAMES);
    expect(Object.values(counters).every((v) => v === 0)).toBe(true);
    expect(Object.keys(zeroGauges())).toEqual(GAUGE_NAMES);
    expect(schemaMismatches(counters, zeroGauges())).toEqual([]);
    // Planted: an extra counter, a missing one, a gauge the schema lacks.
    const missing: Record<string, number> = { ...counters };
    delete missing.retransmits;
    expect(schemaMismatches({ ...counters, ackResends: 0 }, zeroGauges())).toEqual([
      'counters field "ackResends" is not in the counter schema',
    ]);
    expect(schemaMismatches(missing, zeroGauges())).toEqual([
      'counters field "retransmits" of the counter schema is missing',
    ]);
    expect(schemaMismatches(counters, { ...zeroGauges(), deadZone: 0 })).toEqual([
      'gauges field "deadZone" is not in the counter schema',
    ]);
  });

  it("is the shape of a simulated peer's counters and gauges", async () => {
    const { runScenario } = await import('../../src/model/session/run.js');
    const { session } = runScenario(loadScenario('lossy-link'), { preset: 'stock', durationUs: 20e6 });
    for (const c of session.connections) {
      for (const peer of [c.serverPeer, c.clientPeer]) {
        expect(schemaMismatches(peer.counters, peer.gauges())).toEqual([]);
        expect(Object.keys(peer.counters)).toEqual(COUNTER_NAMES);
      }
    }
    expect(schemaMismatches(session.totals.server.counters, session.totals.server.gauges())).toEqual([]);
  });

  it('aggregates a host total as it says: counts add up, maxima and peaks take the largest', () => {
    const a = newPeerCounters();
    const b = newPeerCounters();
    COUNTER_NAMES.forEach((name, i) => {
      a[name] = i + 1;
      b[name] = 2 * (i + 1);
    });
    b.messagesPerPacketMax = 0;
    const total = sumCounters([a, b]);
    for (const name of COUNTER_NAMES) {
      const row = counterRow(name) ?? counterRow(name.replace(/Max$/, ''));
      const isMax = row?.kind === 'max' || (row?.kind === 'gauge' && name === peakCounter(row.name as GaugeName));
      expect(total[name], name).toBe(isMax ? Math.max(a[name], b[name]) : a[name] + b[name]);
    }
    expect(total.messagesPerPacketMax).toBe(a.messagesPerPacketMax);
  });

  it("is the summary's peer objects, field for field and in order, and reports a difference", () => {
    for (const summary of summaries) {
      const peers = [
        summary.peers.server,
        summary.peers.client,
        ...Object.values(summary.peers.server.connections),
        ...Object.values(summary.peers.clients),
      ];
      for (const peer of peers) {
        // A connection's own client and slot, and the server's connections, are not peer figures.
        const figures = Object.fromEntries(
          Object.entries(peer).filter(([key]) => !['connections', 'client', 'slot'].includes(key)),
        );
        expect(summaryMismatches(figures)).toEqual([]);
      }
    }
    const p = summaries[0].peers.client;
    // Planted: a renamed field, and a schema row the summary does not have.
    const { ackBytesPerPacketMax, ...rest } = p;
    expect(summaryMismatches({ ...rest, ackBytesMaxPerPacket: ackBytesPerPacketMax })).toEqual([
      'summary field ackBytesMaxPerPacket is not in the counter schema',
      'schema figure ackBytesPerPacketMax is missing from the summary',
    ]);
    const extraRow: CounterRow = {
      name: 'nacksSent',
      kind: 'count',
      aggregation: 'sum',
      unit: 'messages',
      lowerIsBetter: true,
      summary: true,
      description: 'planted',
    };
    expect(summaryMismatches(p, [...ROWS_OF, extraRow])).toEqual([
      'schema figure nacksSent is missing from the summary',
    ]);
  });

  it("is the CSV's metrics and the charts, in order, and reports a difference", () => {
    const csv = timeseriesCsv(comparison);
    expect(csv.split('\n')[0]).toBe('time,mode,peer,metric,value');
    expect(csvMismatches(csvMetrics(csv))).toEqual([]);
    expect(csvMismatches(METRICS.map((m) => m.name))).toEqual([]);
    for (const m of METRICS) {
      const row = counterRow(m.name);
      expect(row && 'chart' in row ? row.chart : undefined).toBe(m.title);
      expect(m.queue).toBe(row?.kind === 'gauge');
    }
    expect(csvMismatches([...csvMetrics(csv), 'nacksSent'])).toEqual([
      'CSV metric nacksSent is not a charted schema row',
    ]);
    expect(csvMismatches(csvMetrics(csv).slice(1))).toEqual(['charted schema row ackOutbox is not in the CSV']);
  });

  it("is the report tables' rows: each peer figure is a schema row, coloured in its direction", () => {
    const sample = summaries[0].peers.server;
    expect(ROWS.filter((r) => r.figure !== undefined).length).toBeGreaterThan(20);
    expect(rowMismatches(ROWS, sample)).toEqual([]);
    // Every row is lower-is-better today (the reports' caption says so).
    expect(ROWS.every((r) => r.lowerIsBetter === true)).toBe(true);
    for (const row of PEER_ROWS)
      for (const ref of row.figures) expect(Number.isFinite(figureOf(sample, ref)), `${row.label}: ${ref}`).toBe(true);
    // Planted: an unknown figure, a flipped direction, a sum of a maximum.
    const base = ROWS[0];
    const planted: Row[] = [
      { ...base, label: 'nacks', figure: { ref: 'nacksSent' as never, peers: 'server' } },
      { ...base, label: 'flipped', lowerIsBetter: false },
      { ...base, label: 'summed max', figure: { ref: 'ackBytesPerPacketMax', peers: 'sum' } },
    ];
    expect(rowMismatches(planted, sample)).toEqual([
      'table row "nacks" shows nacksSent, which is not in the counter schema',
      'table row "flipped" colours ackOutbox against the schema\'s direction',
      'table row "summed max" adds up ackBytesPerPacketMax, a max',
    ]);
  });

  it('every figure the summary holds can be read by its schema name', () => {
    const p = summaries[0].peers.server;
    expect(figureOf(p, 'dedupComparisonsMaxPerMessage')).toBe(p.dedupComparisons.maxPerMessage);
    expect(figureOf(p, 'dedupComparisons')).toBe(p.dedupComparisons.total);
    expect(figureOf(p, 'ackOutboxDeadZone.max')).toBe(p.ackOutboxDeadZone.max);
    expect(figureOf(p, 'ackBytesPerPacket')).toBe(p.packetsSent === 0 ? 0 : p.ackBytesSent / p.packetsSent);
    expect(() => figureOf(p, 'messagesSent' as never)).toThrow(/not in the summary/);
  });
});
