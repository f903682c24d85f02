// The series a report chart draws, one colour per mode: one client's two
// ends, or a multi-client run's server total and worst connection. `view`
// picks which buckets: the whole run's, or the join's (Series.head).
import { usToSeconds } from '../../core/engine/index.js';
import type { Bucket, MetricName, Series } from '../../model/metrics/index.js';
import { PALETTE } from './chart-palette.js';
import type { Comparison, ComparedRun } from './compare.js';
import { isMultiClient, worstConnection } from './connections.js';
import { markSameLines } from './same-lines.js';
import type { ChartSeries, LegendEntry, PhaseBand } from './svg-chart.js';

/** Which of a series' buckets a chart draws. */
export type View = (series: Series) => readonly Bucket[];

/** Every mode's series of one metric, the ones that coincide marked (same-lines.ts). */
export function chartSeries(
  comparison: Comparison,
  metric: MetricName,
  view: View,
): { series: ChartSeries[]; note: string | null } {
  const multi = isMultiClient(comparison);
  return markSameLines(
    comparison.runs.map((run, i) => ({
      label: run.spec.label,
      series: multi
        ? multiClientSeries(run, PALETTE[i % PALETTE.length], metric, view)
        : oneClientSeries(run, PALETTE[i % PALETTE.length], metric, view),
    })),
    multi ? ['server total', 'server, worst connection', 'client, worst connection'] : ['server', 'client'],
  );
}

/** What the strokes of a chart mean, for its caption. */
export function strokesNote(comparison: Comparison): string {
  return isMultiClient(comparison)
    ? 'solid = server total over its connections, dashed = the server’s side of the worst connection (the highest server-side ACK-outbox peak), dotted = that connection’s client'
    : 'solid = server, dashed = client';
}

/**
 * One legend entry per mode (its colour, a solid and a dashed sample) after a
 * key for the two strokes, rather than one per line: 7 modes make 9 entries,
 * not 14, and renderChart wraps them onto as many rows as they need.
 */
export function chartLegend(comparison: Comparison): LegendEntry[] {
  if (isMultiClient(comparison)) {
    return [
      { label: 'server total', color: '#333', strokes: ['solid'] },
      { label: 'server, worst connection', color: '#333', strokes: ['dashed'] },
      { label: 'client, worst connection', color: '#333', strokes: ['dotted'] },
      ...comparison.runs.map((run, i): LegendEntry => {
        const worst = worstConnection(run);
        return {
          label: worst === null ? `${run.spec.label} (one client)` : `${run.spec.label} (worst: ${worst.label})`,
          color: PALETTE[i % PALETTE.length],
          strokes: ['solid', 'dashed', 'dotted'],
        };
      }),
    ];
  }
  return [
    { label: 'server', color: '#333', strokes: ['solid'] },
    { label: 'client', color: '#333', strokes: ['dashed'] },
    ...comparison.runs.map(
      (run, i): LegendEntry => ({
        label: run.spec.label,
        color: PALETTE[i % PALETTE.length],
        strokes: ['solid', 'dashed'],
      }),
    ),
  ];
}

/** One client: the server solid, the client dashed. */
function oneClientSeries(run: ComparedRun, color: string, metric: MetricName, view: View): ChartSeries[] {
  return (['server', 'client'] as const).map((peer) => ({
    label: `${run.spec.label} ${peer}`,
    color,
    dashed: peer === 'client',
    points: view(run.recorded.series[peer][metric]),
  }));
}

/**
 * Several clients: the server's total, then the worst connection's
 * two ends, e.g. "stock server, slot 3 (worst)". A column that ran one client
 * draws its only connection's two ends in the same strokes.
 */
function multiClientSeries(run: ComparedRun, color: string, metric: MetricName, view: View): ChartSeries[] {
  const label = run.spec.label;
  const worst = worstConnection(run);
  if (worst === null) {
    return [
      { label: `${label} server`, color, dashed: false, points: view(run.recorded.series.server[metric]) },
      {
        label: `${label} client`,
        color,
        dashed: false,
        dotted: true,
        points: view(run.recorded.series.client[metric]),
      },
    ];
  }
  return [
    { label: `${label} server total`, color, dashed: false, points: view(run.recorded.series.server[metric]) },
    {
      label: `${label} server, ${worst.label} (worst)`,
      color,
      dashed: true,
      points: view(worst.series.server[metric]),
    },
    {
      label: `${label} client, ${worst.label} (worst)`,
      color,
      dashed: false,
      dotted: true,
      points: view(worst.series.client[metric]),
    },
  ];
}

/** The traffic phases as spans of the time axis, the last one ending at `endS`. */
export function phaseBands(comparison: Comparison, endS: number): PhaseBand[] {
  return comparison.phases.map((p, i) => ({
    kind: p.kind,
    startS: usToSeconds(p.startUs),
    endS: i + 1 < comparison.phases.length ? usToSeconds(comparison.phases[i + 1].startUs) : endS,
  }));
}
