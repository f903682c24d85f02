// The soak's report set (summary.json, timeseries.csv, report.md, report.html),
// in compare's style: your server as measured, beside bcsim's stock and fixed
// models of the same scenario and seed, each figure on shared axes. The server's
// figures are measurements; the models' are predictions, and past the 34 minutes
// any real session was ever measured (docs/sources.md 25) nothing checks them.
import type { TerminalStyle } from '../../core/output/index.js';
import { chartFigure, schemeHtml, schemeMarkdown, schemeTerminal } from '../../analysis/report/index.js';
import { durationLabel, fmt, round4, writeFolderAtomic } from '../../core/output/index.js';
import type { RowGroup, SchemeDocument } from '../../analysis/report/index.js';
import type { MinuteRow } from '../../analysis/capture/index.js';
import { VERSION } from '../../version.js';
import { SOAK_FIGURES, figureSeries, figureSummary } from './soak-figures.js';
import type { SoakMeasured } from './soak-session.js';
import { connectionFindings } from './soak-connections.js';

export const SOAK_SCHEMA = 'bcsim.soak/1';
export const SOAK_FILES = ['summary.json', 'timeseries.csv', 'report.md', 'report.html'] as const;
/** The longest session any public measurement covers (docs/sources.md 25). */
export const MEASURED_REACH_S = 34 * 60;
/** How close the server's outbox and dead zone must come to a model's to be read as matching it. */
export const AGREEMENT_SHARE = 0.2;

export interface SoakColumn {
  readonly id: 'server' | 'stock' | 'fixed';
  readonly label: string;
  readonly rows: readonly MinuteRow[];
  readonly endS: number;
  /** The models' trace hash: the run is reproducible from the scenario, seed and version. */
  readonly traceHash: string | null;
}

export interface SoakReport {
  readonly server: string;
  readonly scenario: string;
  readonly seed: number;
  readonly clients: number;
  readonly clientMode: string;
  /** The scenario's in-game phases that repeat to fill the soak (soak-plan.ts), or null. */
  readonly repeated: readonly string[] | null;
  readonly loss: number | null;
  readonly requestedS: number;
  readonly measured: SoakMeasured;
  readonly columns: readonly [SoakColumn, SoakColumn, SoakColumn];
}

const summaryOf = (c: SoakColumn, name: string) =>
  figureSummary(figureSeries(c.rows, SOAK_FIGURES.find((f) => f.name === name) ?? SOAK_FIGURES[0]));

const show = (v: number | null) => (v === null ? '–' : fmt(v));

const GROUPS: readonly RowGroup<SoakColumn>[] = [
  {
    title: 'Each figure: the largest minute / the mean minute',
    rows: SOAK_FIGURES.map((f) => ({
      label: f.label,
      cell: (c: SoakColumn) => {
        const s = figureSummary(figureSeries(c.rows, f));
        return `${show(s.max)} / ${show(s.mean)}`;
      },
    })),
  },
  {
    title: 'Growth per hour (least squares over the minutes; 10 minutes at least)',
    rows: ['serverAckOutboxPeak', 'serverDeadZonePeak'].map((name) => ({
      label: SOAK_FIGURES.find((f) => f.name === name)?.label ?? name,
      cell: (c: SoakColumn) => show(summaryOf(c, name).slopePerHour),
    })),
  },
  {
    title: 'Session',
    rows: [
      { label: 'length', cell: (c) => durationLabel(c.endS) },
      { label: 'source', cell: (c) => (c.id === 'server' ? 'measured on the wire' : 'model prediction') },
      { label: 'trace hash', cell: (c) => c.traceHash?.slice(0, 16) ?? '–' },
    ],
  },
];

/** "within 20 % of stock" or "3× stock's": the server's figure against a model's. */
function against(server: number | null, model: number | null, name: string): string {
  if (server === null || model === null) return `${name} –`;
  if (model === 0) return server === 0 ? `${name} 0 as well` : `${name} 0`;
  const share = (server - model) / model;
  return Math.abs(share) <= AGREEMENT_SHARE
    ? `within ${fmt(AGREEMENT_SHARE * 100)} % of ${name} (${fmt(model)}, ${share >= 0 ? '+' : ''}${fmt(share * 100, 2)} %)`
    : `${fmt(server / model, 2)}× ${name}'s ${fmt(model)}`;
}

export function soakFindings(r: SoakReport): string[] {
  const [server, stock, fixed] = r.columns;
  const behaviours = [...new Set(server.rows.slice(-r.clients).map((x) => x.serverAckBehaviour))];
  const out = summaryOf(server, 'serverAckOutboxPeak');
  const dead = summaryOf(server, 'serverDeadZonePeak');
  const lines = [
    `Your server's ACK behaviour, as its wire shows it at the end: ${behaviours.join(', ') || 'nothing measured'}.`,
    `Its ACK-outbox estimate peaked at ${show(out.max)} entries: ${against(out.max, summaryOf(stock, 'serverAckOutboxPeak').max, 'stock')}; fixed ${show(summaryOf(fixed, 'serverAckOutboxPeak').max)}.`,
    dead.max === null
      ? 'It has no dead zone: a dead zone exists only under the two-pass behaviour.'
      : `Its dead zone peaked at ${show(dead.max)} entries: ${against(dead.max, summaryOf(stock, 'serverDeadZonePeak').max, 'stock')}; fixed has none.`,
    `Growth of the outbox per hour (least squares over the minutes): yours ${show(out.slopePerHour)}, stock ${show(summaryOf(stock, 'serverAckOutboxPeak').slopePerHour)}, fixed ${show(summaryOf(fixed, 'serverAckOutboxPeak').slopePerHour)}. No leak looks like a slope near 0 and a peak that stops rising.`,
    `Measured for ${durationLabel(r.measured.endS)}${r.measured.cutShort ? `, cut short (${r.measured.stopReason}) before the ${durationLabel(r.requestedS)} asked` : ''}; ${fmt(r.measured.wire.received)} datagrams read, ${fmt(r.measured.wire.sent)} sent.`,
  ];
  for (const s of r.measured.silences)
    lines.push(
      `The server stopped answering: its last datagram at ${fmt(s.lastDatagramS)} s, noticed at ${fmt(s.noticedS)} s${s.endedS === null ? ', and it never answered again' : `, answering again at ${fmt(s.endedS)} s`}.`,
    );
  lines.push(...connectionFindings(r.measured));
  if (Math.max(server.endS, stock.endS) > MEASURED_REACH_S)
    lines.push(
      `Past ${durationLabel(MEASURED_REACH_S)} the stock and fixed figures are model predictions that no measurement checks: no public capture of a real session goes further (docs/sources.md 25).`,
    );
  return lines;
}

function caption(r: SoakReport): string {
  return [
    `server ${r.server}`,
    `scenario ${r.scenario}`,
    `seed ${r.seed}`,
    `${r.clients} client${r.clients === 1 ? '' : 's'} (${r.clientMode})`,
    r.loss === null ? 'no added loss' : `loss ${r.loss}`,
    `bcsim ${VERSION}`,
  ].join(' · ');
}

function soakDocument(r: SoakReport): SchemeDocument<SoakColumn> {
  const endS = Math.max(...r.columns.map((c) => c.endS));
  const phases =
    endS > MEASURED_REACH_S ? [{ kind: 'model prediction past 34 min', startS: MEASURED_REACH_S, endS }] : [];
  return {
    name: `soak of ${r.server}`,
    caption: caption(r),
    description: r.measured.cutShort
      ? `Cut short (${r.measured.stopReason}) at ${durationLabel(r.measured.endS)}: what was measured until then.`
      : '',
    findings: soakFindings(r),
    heads: r.columns.map((c) => c.label),
    groups: GROUPS,
    columns: r.columns,
    timeSeries: {
      markdown:
        '`timeseries.csv` has every figure per minute and connection for each source, and `report.html` draws each one (the connections of a minute combined as the chart title says).',
      html: null,
    },
    charts: SOAK_FIGURES.map((f) =>
      chartFigure(
        {
          id: f.name,
          title: f.title,
          unit: f.unit,
          timeAxis: 'time since the soak began',
          // The models dashed: where they meet your server's line, both stay visible.
          lines: r.columns.map((c) => ({
            label: c.label,
            dashed: c.id !== 'server',
            points: figureSeries(c.rows, f)
              .filter((p) => p.value !== null)
              .map((p) => ({
                t: p.startS,
                width: p.seconds,
                min: p.value as number,
                max: p.value as number,
                mean: p.value as number,
                count: 1,
              })),
          })),
          caption: `${f.name}: one point per minute. Your server (solid) is measured; stock and fixed (dashed) are bcsim's models of the same scenario and seed.`,
        },
        endS,
        phases,
      ),
    ),
    settings: {
      markdown: `The clients played \`${r.scenario}\` (seed ${r.seed}) in mode ${r.clientMode}${repeatText(r)}; the models ran the same scenario and seed for the same length, read from the clients' side of the wire as the soak reads it.`,
      html: `The clients played ${r.scenario} (seed ${r.seed}) in mode ${r.clientMode}${repeatText(r)}; the models ran the same scenario and seed for the same length, read from the clients' side of the wire as the soak reads it.`,
      summary: 'settings',
      value: settingsOf(r),
    },
  };
}

const repeatText = (r: SoakReport) =>
  r.repeated === null
    ? ''
    : `, its in-game phases (${r.repeated.join(', ')}) repeating after the join to fill the soak`;

function settingsOf(r: SoakReport): object {
  return {
    server: r.server,
    scenario: r.scenario,
    seed: r.seed,
    clients: r.clients,
    clientMode: r.clientMode,
    phasesRepeated: r.repeated,
    loss: r.loss,
    requestedS: r.requestedS,
  };
}

export function soakSummaryJson(r: SoakReport): string {
  const figures = (c: SoakColumn) =>
    Object.fromEntries(SOAK_FIGURES.map((f) => [f.name, figureSummary(figureSeries(c.rows, f))]));
  const { rows: _rows, ...measured } = r.measured;
  const document = {
    schema: SOAK_SCHEMA,
    version: VERSION,
    settings: settingsOf(r),
    findings: soakFindings(r),
    measured,
    columns: r.columns.map((c) => ({
      id: c.id,
      label: c.label,
      source: c.id === 'server' ? 'measured' : 'model',
      endS: c.endS,
      traceHash: c.traceHash,
      figures: figures(c),
    })),
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

const CSV_HEAD =
  'source,start_s,seconds,connection,server_ack_behaviour,server_ack_outbox,server_ack_outbox_peak,server_dead_zone,server_dead_zone_peak,stale_acks,ack_bytes_per_datagram,server_resends,longest_server_gap_ms,given_up,ack_latency_p50_ms,ack_latency_p90_ms,ack_latency_p99_ms,client_datagrams_per_s,server_datagrams_per_s,client_bytes_per_s,server_bytes_per_s,server_boots,server_disconnects';

export function soakTimeseriesCsv(r: SoakReport): string {
  const v = (x: number | null | undefined) => (x === null || x === undefined ? '' : String(round4(x)));
  const lines = [CSV_HEAD];
  for (const c of r.columns)
    for (const x of c.rows)
      lines.push(
        [
          c.id,
          x.startS,
          x.seconds,
          x.connection,
          x.serverAckBehaviour,
          v(x.serverAckOutbox),
          v(x.serverAckOutboxPeak),
          v(x.serverDeadZone),
          v(x.serverDeadZonePeak),
          x.staleAcks,
          v(x.ackBytesPerDatagram),
          x.serverResends,
          v(x.longestServerGapMs),
          x.givenUp,
          v(x.ackLatencyMs?.p50),
          v(x.ackLatencyMs?.p90),
          v(x.ackLatencyMs?.p99),
          v(x.datagramsPerS.clientToServer),
          v(x.datagramsPerS.serverToClient),
          v(x.bytesPerS.clientToServer),
          v(x.bytesPerS.serverToClient),
          x.serverBoots,
          x.serverDisconnects,
        ].join(','),
      );
  return `${lines.join('\n')}\n`;
}

export function writeSoakReport(dir: string, r: SoakReport): string[] {
  const doc = soakDocument(r);
  return writeFolderAtomic(dir, {
    'summary.json': soakSummaryJson(r),
    'timeseries.csv': soakTimeseriesCsv(r),
    'report.md': schemeMarkdown(doc),
    'report.html': schemeHtml(doc),
  });
}

export function renderSoak(r: SoakReport, style: TerminalStyle): string {
  return schemeTerminal(soakDocument(r), style);
}
