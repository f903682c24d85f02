// The report files of a comparison: summary.json, timeseries.csv and report.md.
// Everything here is a pure function of the comparison: no clock, no paths, so
// the same scenario and seed give byte-identical files.
import { METRICS } from '../../model/metrics/index.js';
import { manifestOutline } from '../../model/traffic/index.js';
import { VERSION } from '../../version.js';
import type { Comparison } from './compare.js';
import { formatSeconds, usToSeconds, msToUsUnrounded } from '../../core/engine/index.js';
import { durationLabel, escapeXml, fmt, round4 } from '../../core/output/index.js';
import { cell, rowsFor } from './metrics-table.js';
import { isMultiClient, worstConnection } from './connections.js';
import { findings, headline, opening } from './narrative.js';
import { comparisonSettings, settingsMarkdown } from './settings.js';

const COMPARE_SCHEMA = 'bcsim.compare/1';

export function summaryJson(comparison: Comparison): string {
  const runs = Object.fromEntries(comparison.runs.map((r) => [r.spec.label, r.summary]));
  const trends = Object.fromEntries(
    comparison.runs.map((r) => [
      r.spec.label,
      r.trends.map((t) => ({
        peer: t.peer,
        metric: t.metric,
        queue: t.queue,
        slopePerHour: round4(t.trend.slopePerHour),
        lastHalfMean: round4(t.trend.lastHalfMean),
        growthOverLastHalf: round4(t.trend.growthOverLastHalf),
        leak: t.trend.leak,
      })),
    ]),
  );
  const document = {
    schema: COMPARE_SCHEMA,
    version: VERSION,
    scenario: comparison.scenario.name,
    description: comparison.scenario.description,
    seed: comparison.seed,
    simulatedSeconds: usToSeconds(comparison.durationUs),
    phases: comparison.phases.map((p) => ({ kind: p.kind, startSeconds: usToSeconds(p.startUs) })),
    findings: findings(comparison),
    // What the comparison ran with; each run's full effective settings are in runs.<mode>.settings.
    settings: comparisonSettings(comparison),
    // Each column's resolved scenario (link models, traffic plan, parameters): --config may change any of it.
    scenarios: Object.fromEntries(
      comparison.runs.map((r) => [r.spec.label, effectiveScenario(r.spec.scenario ?? comparison.scenario)]),
    ),
    trends,
    // Multi-client runs only: the connection each run charts beside the server total.
    ...(isMultiClient(comparison) ? { worstConnections: worstConnectionsJson(comparison) } : {}),
    runs,
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** Per run: the worst connection's slot, client and server-side ACK-outbox peak, or null. */
function worstConnectionsJson(
  comparison: Comparison,
): Record<
  string,
  { slot: number | null; client: number; serverAckOutboxMax: number; clientAckOutboxMax: number } | null
> {
  return Object.fromEntries(
    comparison.runs.map((r) => {
      const worst = worstConnection(r);
      if (worst === null) return [r.spec.label, null];
      const slot = /^\d+$/.test(worst.key) ? Number(worst.key) : null;
      const server = r.summary.peers.server.connections[worst.key]?.ackOutbox.max ?? 0;
      const client = r.summary.peers.clients[worst.key]?.ackOutbox.max ?? 0;
      return [r.spec.label, { slot, client: worst.client, serverAckOutboxMax: server, clientAckOutboxMax: client }];
    }),
  );
}

/** The CSV peer name of a worst connection's end: "server:slot3" (or "server:client2" if it never connected). */
function csvPeer(peer: 'server' | 'client', key: string): string {
  return `${peer}:${/^\d+$/.test(key) ? `slot${key}` : key}`;
}

function effectiveScenario(scenario: Comparison['scenario']): object {
  const {
    name,
    source,
    durationUs,
    seed,
    preset,
    switchOverrides,
    params,
    link,
    traffic,
    overrides,
    clients,
    clientLinks,
  } = scenario;
  // With several clients, each one's links; `link` stays client 1's.
  const perClient = clients > 1 ? { clients, clientLinks } : {};
  // The checksum manifest as an outline: its rounds, counts and sizes, not every file hash.
  return {
    name,
    source,
    durationSeconds: usToSeconds(durationUs),
    seed,
    preset,
    switchOverrides,
    params,
    link,
    ...perClient,
    traffic: { ...traffic, manifest: manifestOutline(traffic.manifest) },
    set: overrides,
  };
}

/**
 * Long format: time,mode,peer,metric,value (value = bucket mean). peer is
 * server or client (the totals with several clients); multi-client runs add
 * the worst connection's two ends as server:slot<N> and client:slot<N>.
 */
export function timeseriesCsv(comparison: Comparison): string {
  const lines = ['time,mode,peer,metric,value'];
  for (const run of comparison.runs) {
    const worst = worstConnection(run);
    const sources = [
      ...(['server', 'client'] as const).map((peer) => ({ name: peer, series: run.recorded.series[peer] })),
      ...(worst === null
        ? []
        : (['server', 'client'] as const).map((peer) => ({
            name: csvPeer(peer, worst.key),
            series: worst.series[peer],
          }))),
    ];
    for (const { name, series } of sources) {
      for (const metric of METRICS) {
        for (const p of series[metric.name].points()) {
          lines.push(`${p.t},${run.spec.label},${name},${metric.name},${round4(p.mean)}`);
        }
      }
    }
  }
  return `${lines.join('\n')}\n`;
}

export function caption(comparison: Comparison): string[] {
  return [
    `scenario ${comparison.scenario.name}`,
    `seed ${comparison.seed}`,
    `${durationLabel(usToSeconds(comparison.durationUs))} simulated`,
    `bcsim ${VERSION}`,
    ...comparison.runs.map((r) => `${r.spec.label} trace ${r.summary.traceHash.slice(0, 16)}`),
  ];
}

export function reportMarkdown(comparison: Comparison): string {
  const labels = comparison.runs.map((r) => r.spec.label);
  const out: string[] = [];
  out.push(`# ${headline(comparison)}`, '');
  out.push(`_${caption(comparison).join(' · ')}_`, '');
  if (comparison.scenario.description) out.push(`> ${comparison.scenario.description}`, '');
  out.push('## What this shows', '');
  const plain = opening(comparison);
  if (plain.length > 0) out.push(plain.join(' '), '');
  for (const sentence of findings(comparison)) out.push(`- ${sentence}`);
  out.push('', '## Side by side', '');
  out.push(`| metric | ${labels.join(' | ')} |`);
  out.push(`|---|${labels.map(() => '---:').join('|')}|`);
  for (const row of rowsFor(comparison))
    out.push(`| ${row.label} | ${comparison.runs.map((r) => cell(row, r)).join(' | ')} |`);
  out.push('', ...anomaliesMarkdown(comparison));
  out.push(
    '',
    '## Growth over the last half of the run',
    '',
    'Queues only; summary.json has the slope of every series.',
    '',
  );
  out.push(`| mode | peer | queue | slope per hour | leak |`);
  out.push('|---|---|---|---:|---|');
  for (const run of comparison.runs) {
    for (const t of run.trends.filter((x) => x.queue))
      out.push(
        `| ${run.spec.label} | ${t.peer} | ${t.metric} | ${round4(t.trend.slopePerHour)} | ${t.trend.leak ? '**yes**' : 'no'} |`,
      );
  }
  out.push('', '## Traffic phases', '');
  out.push(phaseLine(comparison));
  out.push('', 'Time series of every metric are in `timeseries.csv` and drawn in `report.html`.', '');
  if (isMultiClient(comparison)) out.push(worstConnectionsNote(comparison), '');
  out.push(...settingsMarkdown(comparison));
  return out.join('\n');
}

/** Multi-client runs: what the charts draw besides the totals. */
export function worstConnectionsNote(comparison: Comparison): string {
  const each = comparison.runs.map((r) => {
    const worst = worstConnection(r);
    if (worst === null) return `${r.spec.label}: one client, its connection`;
    const peak = r.summary.peers.server.connections[worst.key]?.ackOutbox.max ?? 0;
    return `${r.spec.label}: ${worst.label} (server-side ACK-outbox peak ${fmt(peak)})`;
  });
  return (
    'With several clients, the `server` and `client` series of `timeseries.csv` are totals (the server over its connections, the clients together). ' +
    'Each run also records its worst connection, the one whose server-side ACK-outbox peaked highest, with both its ends ' +
    `(\`server:slot<N>\` and \`client:slot<N>\`), and \`report.html\` charts it beside the server total: ${each.join('; ')}.`
  );
}

export function phaseLine(comparison: Comparison): string {
  const counts = new Map<string, number>();
  for (const p of comparison.phases) counts.set(p.kind, (counts.get(p.kind) ?? 0) + 1);
  return [...counts.entries()].map(([kind, n]) => `${kind} ×${n}`).join(', ') || 'none';
}

/** Anomalies each report lists per run; summary.json has up to ANOMALIES_LISTED_PER_KIND of each kind. */
const ANOMALIES_IN_REPORT = 10;

const ANOMALY_INTRO =
  'Reliable messages lost (given up), swallowed (ACKed by the receiver, never delivered), delivered twice or delivered out of order, ' +
  `with times from the start of the run. "at" is when the sender gave it up (lost), when its ACK reached the sender (swallowed), or the delivery (duplicate, out of order). ` +
  `The first ${ANOMALIES_IN_REPORT} per run by that time; summary.json lists more under delivery.anomalies.`;
const COUNT_HEAD = ['mode', 'lost', 'swallowed', 'duplicate', 'out of order'];
const LIST_HEAD = ['mode', 'kind', 'from', 'category', 'seq', 'sent (s)', 'at (s)'];

/** The anomaly tables' cells: null when no run had any. */
function anomalyTables(comparison: Comparison): { counts: string[][]; list: string[][]; more: string[] } | null {
  const any = comparison.runs.some((r) => {
    const c = r.summary.delivery.anomalies.counts;
    return c.lost + c.swallowed + c.duplicate + c.outOfOrder > 0;
  });
  if (!any) return null;
  const counts: string[][] = [];
  const list: string[][] = [];
  const more: string[] = [];
  for (const r of comparison.runs) {
    const { counts: c, list: all } = r.summary.delivery.anomalies;
    counts.push([r.spec.label, fmt(c.lost), fmt(c.swallowed), fmt(c.duplicate), fmt(c.outOfOrder)]);
    for (const a of all.slice(0, ANOMALIES_IN_REPORT)) {
      list.push([
        r.spec.label,
        a.kind,
        a.from,
        a.category,
        String(a.seq),
        formatSeconds(msToUsUnrounded(a.sentAtMs)),
        a.atMs === null ? 'not recorded' : formatSeconds(msToUsUnrounded(a.atMs)),
      ]);
    }
    const hidden = c.lost + c.swallowed + c.duplicate + c.outOfOrder - Math.min(all.length, ANOMALIES_IN_REPORT);
    if (hidden > 0) more.push(`${fmt(hidden)} more in ${r.spec.label}`);
  }
  return { counts, list, more };
}

function anomaliesMarkdown(comparison: Comparison): string[] {
  const out = ['## Anomalies', ''];
  const tables = anomalyTables(comparison);
  if (tables === null)
    return [
      ...out,
      'None: in every run each reliable message was delivered once and in order, or was still in flight at the end.',
    ];
  const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
  out.push(
    ANOMALY_INTRO,
    '',
    row(COUNT_HEAD),
    `|---|${COUNT_HEAD.slice(1)
      .map(() => '---:')
      .join('|')}|`,
    ...tables.counts.map(row),
  );
  if (tables.list.length > 0)
    out.push(
      '',
      'Listed, by the time they went wrong:',
      '',
      row(LIST_HEAD),
      '|---|---|---|---|---:|---:|---:|',
      ...tables.list.map(row),
    );
  if (tables.more.length > 0) out.push('', `_Not listed here: ${tables.more.join(', ')}._`);
  return out;
}

export function anomaliesHtml(comparison: Comparison): string {
  const tables = anomalyTables(comparison);
  if (tables === null)
    return '<section>\n<h2>Anomalies</h2>\n<p>None: in every run each reliable message was delivered once and in order, or was still in flight at the end.</p>\n</section>';
  const table = (head: string[], rows: string[][]) =>
    `<table>\n<thead><tr>${head.map((h) => `<th>${escapeXml(h)}</th>`).join('')}</tr></thead>\n<tbody>\n${rows
      .map((r) => `<tr>${r.map((c) => `<td>${escapeXml(c)}</td>`).join('')}</tr>`)
      .join('\n')}\n</tbody>\n</table>`;
  const parts = [
    '<section>',
    '<h2>Anomalies</h2>',
    `<p>${escapeXml(ANOMALY_INTRO)}</p>`,
    table(COUNT_HEAD, tables.counts),
  ];
  if (tables.list.length > 0) parts.push('<p>Listed, by the time they went wrong:</p>', table(LIST_HEAD, tables.list));
  if (tables.more.length > 0)
    parts.push(`<p class="caption">${escapeXml(`Not listed here: ${tables.more.join(', ')}.`)}</p>`);
  parts.push('</section>');
  return parts.join('\n');
}
