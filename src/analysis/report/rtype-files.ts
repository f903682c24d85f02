// The report set of `bcsim compare rtype-deaths`: summary.json, timeseries.csv,
// report.md and report.html, written together as one folder (atomic-folder.ts),
// and the terminal view. Pure functions of the comparison: same seed, same bytes.
import type { TerminalStyle } from '../../core/output/index.js';
import { msToSeconds, perSecondOverMs } from '../../core/engine/index.js';
import { Series } from '../../model/metrics/index.js';
import type { Bucket } from '../../model/metrics/index.js';
import type { RtypeSummary } from '../../rtype/session/index.js';
import { STORE_ENTRY_BYTES, pendingEntryBytes, rtypeMemorySeries } from '../../rtype/schemes/index.js';
import type { RtypeComparison } from '../../rtype/schemes/index.js';
import { VERSION } from '../../version.js';
import { writeFolderAtomic, durationLabel, round4 } from '../../core/output/index.js';
import { RTYPE_ROW_GROUPS, rtypeFindings } from './rtype-rows.js';
import { schemeHtml, schemeMarkdown, schemeTerminal } from './scheme-document.js';
import type { SchemeDocument } from './scheme-document.js';
import { chartFigure } from './scheme-page.js';

const RTYPE_COMPARE_SCHEMA = 'bcsim.rtype-compare/1';
export const SCHEME_REPORT_FILES = ['summary.json', 'timeseries.csv', 'report.md', 'report.html'] as const;

/** The series charted and written to timeseries.csv, from the runs' once-a-second samples. */
const SERIES: ReadonlyArray<{
  metric: string;
  title: string;
  unit: string;
  values: (s: RtypeSummary) => readonly number[];
}> = [
  { metric: 'storeSize', title: 'Critical-packet store', unit: 'packets', values: (s) => s.series.storeSize },
  {
    metric: 'pendingTotal',
    title: 'Pending-list entries, all users',
    unit: 'entries',
    values: (s) => s.series.pendingTotal,
  },
  {
    metric: 'pendingMaxPerUser',
    title: 'Pending-list entries, longest list',
    unit: 'entries',
    values: (s) => s.series.pendingMaxPerUser,
  },
  {
    metric: 'danglingEntries',
    title: 'Pending entries pointing at expired packets',
    unit: 'entries',
    values: (s) => s.series.danglingEntries,
  },
  {
    metric: 'resendsPerSecond',
    title: 'Resend datagrams per second',
    unit: 'per second',
    values: (s) => s.series.resendDatagrams.map((n) => perSecondOverMs(n, s.series.everyMs)),
  },
  {
    metric: 'maxResendsPerFrame',
    title: 'Most resend datagrams in one frame',
    unit: 'datagrams',
    values: (s) => s.series.maxResendsPerFrame,
  },
  {
    metric: 'serverMemoryBytes',
    title: 'Server memory, modelled',
    unit: 'bytes',
    values: (s) => rtypeMemorySeries(s.series, s.switches),
  },
];

/** A sample at t covers the interval before it: stamped at the interval's start, as BC's recorder does. */
function buckets(summary: RtypeSummary, values: readonly number[]): readonly Bucket[] {
  const series = new Series();
  summary.series.tMs.forEach((tMs, i) => series.add(msToSeconds(tMs - summary.series.everyMs), values[i]));
  return series.points();
}

function caption(c: RtypeComparison): string {
  return [
    `scenario ${c.scenario.name}`,
    `seed ${c.seed}`,
    `${durationLabel(msToSeconds(c.durationMs))} simulated`,
    `bcsim ${VERSION}`,
    ...c.runs.map((r) => `${r.preset} trace ${r.summary.traceHash.slice(0, 16)}`),
  ].join(' · ');
}

const heads = (c: RtypeComparison) => c.runs.map((r) => r.preset);

export function rtypeSummaryJson(c: RtypeComparison): string {
  const document = {
    schema: RTYPE_COMPARE_SCHEMA,
    version: VERSION,
    scenario: c.scenario.name,
    description: c.scenario.description,
    source: c.scenario.source,
    seed: c.seed,
    simulatedSeconds: msToSeconds(c.durationMs),
    findings: rtypeFindings(c),
    // What every column ran with; the columns differ in `preset` (and so in switches) only.
    config: { ...c.config, preset: undefined },
    memoryModel: {
      storeEntryBytes: STORE_ENTRY_BYTES,
      pendingEntryBytes: {
        scan: pendingEntryBytes({ resendTimer: 'scan' }),
        perPacket: pendingEntryBytes({ resendTimer: 'per-packet' }),
      },
    },
    // bcsim.rtype/1 summaries; their sample series are in timeseries.csv.
    runs: Object.fromEntries(c.runs.map((r) => [r.preset, { ...r.summary, series: undefined }])),
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** Long format: time,preset,metric,value (value = the mean of a bucket of at most 300, as BC's). */
function rtypeTimeseriesCsv(c: RtypeComparison): string {
  const lines = ['time,preset,metric,value'];
  for (const run of c.runs) {
    for (const s of SERIES)
      for (const b of buckets(run.summary, s.values(run.summary)))
        lines.push(`${b.t},${run.preset},${s.metric},${round4(b.mean)}`);
  }
  return `${lines.join('\n')}\n`;
}

function rtypeDocument(c: RtypeComparison): SchemeDocument<RtypeComparison['runs'][number]> {
  const endS = msToSeconds(c.durationMs);
  const source = c.scenario.source;
  return {
    name: c.scenario.name,
    caption: caption(c),
    description: c.scenario.description,
    findings: rtypeFindings(c),
    heads: heads(c),
    groups: RTYPE_ROW_GROUPS,
    columns: c.runs,
    timeSeries: {
      markdown: `Sampled every ${c.config.sampleEveryMs} ms of simulated time; \`timeseries.csv\` has ${SERIES.map((s) => `\`${s.metric}\``).join(', ')} and \`report.html\` draws them.`,
      html: `Sampled every ${c.config.sampleEveryMs} ms of simulated time.`,
    },
    charts: SERIES.map((s) =>
      chartFigure(
        {
          id: s.metric,
          title: s.title,
          unit: s.unit,
          lines: c.runs.map((r) => ({ label: r.preset, points: buckets(r.summary, s.values(r.summary)) })),
          caption: 'Bucket mean as a line, min–max as a band; one colour per preset.',
        },
        endS,
      ),
    ),
    settings: {
      markdown: `Scenario file: \`${source}\`. Every column ran this config with its own preset:`,
      html: `Scenario file: ${source}. Every column ran this config with its own preset.`,
      summary: 'config',
      value: { ...c.config, preset: undefined },
    },
  };
}

/** Renders all four files, then replaces `dir` with them as one set; returns their paths. */
export function writeRtypeReport(dir: string, c: RtypeComparison): string[] {
  const doc = rtypeDocument(c);
  return writeFolderAtomic(dir, {
    'summary.json': rtypeSummaryJson(c),
    'timeseries.csv': rtypeTimeseriesCsv(c),
    'report.md': schemeMarkdown(doc),
    'report.html': schemeHtml(doc),
  });
}

export function renderRtypeCompare(c: RtypeComparison, style: TerminalStyle): string {
  return schemeTerminal(rtypeDocument(c), style);
}
