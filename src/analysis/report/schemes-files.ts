// The report set of `bcsim compare schemes-side-by-side`: BC
// stock, BC fixed, R-Type documented and R-Type repaired on one workload, with
// delivery, latency, bandwidth and memory side by side; and the terminal view.
import type { TerminalStyle } from '../../core/output/index.js';
import { bcScenarioDocument } from '../../rtype/schemes/index.js';
import type { SchemeColumn, SchemesComparison } from '../../rtype/schemes/index.js';
import { msToSeconds } from '../../core/engine/index.js';
import { VERSION } from '../../version.js';
import { writeFolderAtomic, durationLabel, fmt, round4 } from '../../core/output/index.js';
import { schemeHtml, schemeMarkdown, schemeTerminal } from './scheme-document.js';
import type { SchemeDocument } from './scheme-document.js';
import { chartFigure } from './scheme-page.js';
import type { RowGroup } from './scheme-tables.js';

const SCHEMES_COMPARE_SCHEMA = 'bcsim.schemes/1';

const pct = (part: number, whole: number) => (whole === 0 ? '–' : `${fmt((100 * part) / whole, 4)} %`);
const slash = (...values: number[]) => values.map((v) => fmt(v)).join(' / ');
const f = (c: SchemeColumn) => c.figures;

const SCHEME_ROW_GROUPS: readonly RowGroup<SchemeColumn>[] = [
  {
    title: 'Critical events (BC: reliable messages, join included; R-Type: deaths × clients)',
    rows: [
      { label: 'due', cell: (c) => fmt(f(c).critical.due) },
      {
        label: 'delivered',
        cell: (c) => `${fmt(f(c).critical.delivered)} (${pct(f(c).critical.delivered, f(c).critical.due)})`,
      },
      { label: 'lost', cell: (c) => fmt(f(c).critical.lost) },
      { label: 'in flight at the end', cell: (c) => fmt(f(c).critical.inFlight) },
      { label: 'duplicate copies delivered', cell: (c) => fmt(f(c).critical.duplicates) },
      {
        label: 'latency p50 / p99 / max (ms)',
        cell: (c) => slash(f(c).latencyMs.p50, f(c).latencyMs.p99, f(c).latencyMs.max),
      },
    ],
  },
  {
    title: 'Unreliable updates (BC StateUpdates, R-Type positions; both ways)',
    rows: [
      {
        label: 'sent / delivered',
        cell: (c) =>
          `${slash(f(c).unreliable.sent, f(c).unreliable.delivered)} (${pct(f(c).unreliable.delivered, f(c).unreliable.sent)})`,
      },
    ],
  },
  {
    title: 'Bandwidth (codec bytes, no IP/UDP/TCP headers)',
    rows: [
      { label: 'server→client bytes', cell: (c) => fmt(f(c).wire.serverToClientBytes) },
      { label: 'client→server bytes (UDP)', cell: (c) => fmt(f(c).wire.clientToServerBytes) },
      { label: 'confirmation side channel bytes (TCP)', cell: (c) => fmt(f(c).wire.sideChannelBytes) },
      { label: 'total bytes', cell: (c) => fmt(f(c).wire.totalBytes) },
      { label: 'bytes per client per second', cell: (c) => fmt(Math.round(f(c).wire.bytesPerClientSecond)) },
      { label: 'UDP datagrams, both ways', cell: (c) => fmt(f(c).wire.datagrams) },
      { label: 'resends (BC retransmits, R-Type resend datagrams)', cell: (c) => fmt(f(c).wire.resends) },
    ],
  },
  {
    title: 'Memory (modelled bytes)',
    rows: [
      { label: 'server: peak / final', cell: (c) => slash(f(c).memory.serverPeakBytes, f(c).memory.serverFinalBytes) },
      { label: 'clients together: peak', cell: (c) => fmt(f(c).memory.clientPeakBytes) },
    ],
  },
  { title: 'Run', rows: [{ label: 'trace hash', cell: (c) => c.traceHash.slice(0, 16) }] },
];

function schemesFindings(c: SchemesComparison): string[] {
  const each = (value: (col: SchemeColumn) => string) =>
    c.columns.map((col) => `${col.label} ${value(col)}`).join(', ');
  return [
    `Critical events delivered: ${each((col) => `${fmt(f(col).critical.delivered)} of ${fmt(f(col).critical.due)} (${pct(f(col).critical.delivered, f(col).critical.due)})`)}.`,
    `Lost: ${each((col) => fmt(f(col).critical.lost))}; in flight at the end: ${each((col) => fmt(f(col).critical.inFlight))}; duplicate copies: ${each((col) => fmt(f(col).critical.duplicates))}.`,
    `Latency p50 / p99 / max: ${each((col) => `${slash(f(col).latencyMs.p50, f(col).latencyMs.p99, f(col).latencyMs.max)} ms`)}.`,
    `Unreliable updates delivered: ${each((col) => pct(f(col).unreliable.delivered, f(col).unreliable.sent))} (the links lose ${fmt(100 * c.scenario.link.loss)} %).`,
    `Bytes per client per second: ${each((col) => fmt(Math.round(f(col).wire.bytesPerClientSecond)))}; resends: ${each((col) => fmt(f(col).wire.resends))}.`,
    `Server memory peak (modelled): ${each((col) => `${fmt(f(col).memory.serverPeakBytes)} B`)}; clients: ${each((col) => `${fmt(f(col).memory.clientPeakBytes)} B`)}.`,
  ];
}

const SERIES = [
  { metric: 'serverMemoryBytes', title: 'Server memory, modelled', unit: 'bytes' },
  {
    metric: 'resendsPerSecond',
    title: 'Resends per second (BC server retransmits, R-Type resend datagrams)',
    unit: 'per second',
  },
] as const;

function caption(c: SchemesComparison): string {
  return [
    `scenario ${c.scenario.name}`,
    `seed ${c.seed}`,
    `${durationLabel(msToSeconds(c.durationMs))} simulated`,
    `bcsim ${VERSION}`,
    ...c.columns.map((col) => `${col.label} trace ${col.traceHash.slice(0, 16)}`),
  ].join(' · ');
}

const heads = (c: SchemesComparison) => c.columns.map((col) => col.label);

/** What each side ran: the shared parameters, the BC scenario built from them, the R-Type config. */
function settings(c: SchemesComparison): object {
  const { name, description, source, ...shared } = c.scenario;
  return {
    shared: { ...shared, durationMs: c.durationMs, seed: c.seed },
    bcScenario: { ...bcScenarioDocument(c.scenario), duration: msToSeconds(c.durationMs), seed: c.seed },
    rtypeConfig: { ...c.rtypeConfig, preset: undefined },
  };
}

export function schemesSummaryJson(c: SchemesComparison): string {
  const document = {
    schema: SCHEMES_COMPARE_SCHEMA,
    version: VERSION,
    scenario: c.scenario.name,
    description: c.scenario.description,
    source: c.scenario.source,
    seed: c.seed,
    simulatedSeconds: msToSeconds(c.durationMs),
    findings: schemesFindings(c),
    settings: settings(c),
    columns: c.columns.map((col) => ({ id: col.id, label: col.label, traceHash: col.traceHash, figures: col.figures })),
    // Each run's own summary: bcsim.summary/1 for BC, bcsim.rtype/1 (its series in timeseries.csv) for R-Type.
    runs: Object.fromEntries(c.columns.map((col) => [col.id, col.bc ?? { ...col.rtype, series: undefined }])),
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** Long format: time,scheme,metric,value (value = the mean of a bucket of at most 300, as BC's). */
export function schemesTimeseriesCsv(c: SchemesComparison): string {
  const lines = ['time,scheme,metric,value'];
  for (const col of c.columns)
    for (const s of SERIES)
      for (const b of col.series[s.metric]) lines.push(`${b.t},${col.id},${s.metric},${round4(b.mean)}`);
  return `${lines.join('\n')}\n`;
}

function schemesDocument(c: SchemesComparison): SchemeDocument<SchemeColumn> {
  const how = 'How each scheme turns the shared workload into traffic: src/rtype/schemes/bc-side.ts and rtype-side.ts.';
  return {
    name: c.scenario.name,
    caption: caption(c),
    description: c.scenario.description,
    findings: schemesFindings(c),
    heads: heads(c),
    groups: SCHEME_ROW_GROUPS,
    columns: c.columns,
    timeSeries: {
      markdown: `\`timeseries.csv\` has ${SERIES.map((s) => `\`${s.metric}\``).join(' and ')} per second, and \`report.html\` draws them.`,
      html: null,
    },
    charts: SERIES.map((s) =>
      chartFigure(
        {
          id: s.metric,
          title: s.title,
          unit: s.unit,
          lines: c.columns.map((col) => ({ label: col.label, points: col.series[s.metric] })),
          caption: 'Bucket mean as a line, min–max as a band.',
        },
        msToSeconds(c.durationMs),
      ),
    ),
    settings: {
      markdown: `Scenario file: \`${c.scenario.source}\`. ${how}`,
      html: `Scenario file: ${c.scenario.source}. ${how}`,
      summary: 'settings',
      value: settings(c),
    },
  };
}

export function schemesReportHtml(c: SchemesComparison): string {
  return schemeHtml(schemesDocument(c));
}

export function writeSchemesReport(dir: string, c: SchemesComparison): string[] {
  const doc = schemesDocument(c);
  return writeFolderAtomic(dir, {
    'summary.json': schemesSummaryJson(c),
    'timeseries.csv': schemesTimeseriesCsv(c),
    'report.md': schemeMarkdown(doc),
    'report.html': schemeHtml(doc),
  });
}

export function renderSchemesCompare(c: SchemesComparison, style: TerminalStyle): string {
  return schemeTerminal(schemesDocument(c), style);
}
