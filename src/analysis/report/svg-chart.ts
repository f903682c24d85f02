// Inline SVG line charts for report.html: no scripts, no external resources.
// Each series draws its bucket means as a line over a light min–max band, its
// peak marked with its value (chart-marks.ts); phases are shaded grey (chart-palette.ts).
import type { Bucket } from '../../model/metrics/index.js';
import { peakMarks } from './chart-marks.js';
import { hatchPattern, phaseStyle } from './chart-palette.js';
import { escapeXml, fmt } from '../../core/output/index.js';

export interface ChartSeries {
  readonly label: string;
  readonly color: string;
  readonly dashed: boolean;
  /** Drawn dotted (wins over `dashed`): a multi-client run's worst connection, client end. */
  readonly dotted?: boolean;
  readonly points: readonly Bucket[];
  /**
   * Set when `of` series plot the same line: the `index`-th of them (0 is drawn
   * first and whole) shows only every `of`-th dash, so each colour stays visible.
   */
  readonly interleave?: { readonly index: number; readonly of: number };
}

type Stroke = 'solid' | 'dashed' | 'dotted';

/** The stroke-dasharray attribute of a stroke ('' for solid). */
function dashes(stroke: Stroke): string {
  return stroke === 'dashed' ? ' stroke-dasharray="5 3"' : stroke === 'dotted' ? ' stroke-dasharray="1.6 2.4"' : '';
}

/** A line's dash and gap: a solid one is cut into 6 px dashes when interleaved. */
const DASH: Record<Stroke, readonly [number, number]> = { solid: [6, 0], dashed: [5, 3], dotted: [1.6, 2.4] };

/** The dash attributes of a series: its stroke's, or its share of an interleaved line's. */
function seriesDashes(s: ChartSeries): string {
  const stroke = strokeOf(s);
  if (s.interleave === undefined || s.interleave.index === 0) return dashes(stroke);
  const [dash, gap] = DASH[stroke];
  const period = dash + gap;
  const r = (v: number) => Number(v.toFixed(2));
  return ` stroke-dasharray="${r(dash)} ${r(period * s.interleave.of - dash)}" stroke-dashoffset="${r(-period * s.interleave.index)}"`;
}

function strokeOf(s: ChartSeries): Stroke {
  return s.dotted ? 'dotted' : s.dashed ? 'dashed' : 'solid';
}

export interface PhaseBand {
  readonly kind: string;
  readonly startS: number;
  readonly endS: number;
}

/** One legend entry: a line sample per stroke (side by side), then the label. */
export interface LegendEntry {
  readonly label: string;
  readonly color: string;
  readonly strokes: readonly Stroke[];
}

export interface ChartSpec {
  readonly id: string;
  readonly title: string;
  readonly unit: string;
  readonly endS: number;
  readonly series: readonly ChartSeries[];
  readonly phases: readonly PhaseBand[];
  /** Legend entries; by default one per series. */
  readonly legend?: readonly LegendEntry[];
  /** What the x axis counts; default simulated time (a soak's is the wall clock's). */
  readonly timeAxis?: string;
  /** Draw each bucket as a flat step across its width (a zoom where each bucket is one second). */
  readonly steps?: boolean;
}

/** Width of every chart's viewBox; the height grows with the legend's rows. */
export const CHART_WIDTH = 720;
const W = CHART_WIDTH;
const PLOT_H = 176;
const M = { left: 64, right: 16, bottom: 36 };

/**
 * Legend geometry. Text is never measured (that would need a browser and a
 * font, and the output must be byte-identical everywhere): a label is taken to
 * be LEGEND_CHAR_W px per character at the 11 px legend font. DejaVu Sans, the
 * widest common default sans, averages about 6.2 px for lowercase and 7 px for
 * digits at 11 px, so 7 px errs wide for the lowercase, digit and punctuation
 * labels the reports draw: a box may have slack at its end but holds its label
 * (a label in capitals could overrun it). The Chromium test in
 * test/report/reports.test.ts checks the drawn text against these boxes.
 */
const LEGEND_CHAR_W = 7;
const LEGEND = { left: 8, right: W - M.right, top: 4, rowH: 16, boxH: 14, sampleW: 18, sampleGap: 4, itemGap: 10 };

export interface LegendItem {
  readonly entry: LegendEntry;
  /** Label as drawn: cut short with an ellipsis if it cannot fit on a row. */
  readonly text: string;
  readonly x: number;
  readonly row: number;
  readonly width: number;
}

/** Greedy left-to-right flow: an item that does not fit on the row starts the next one. */
export function layoutLegend(entries: readonly LegendEntry[]): { items: LegendItem[]; rows: number } {
  const avail = LEGEND.right - LEGEND.left;
  const items: LegendItem[] = [];
  let x = LEGEND.left;
  let row = 0;
  for (const entry of entries) {
    const samplesW = entry.strokes.length * (LEGEND.sampleW + LEGEND.sampleGap);
    let text = entry.label;
    const maxChars = Math.floor((avail - samplesW) / LEGEND_CHAR_W);
    if (text.length > maxChars) text = `${text.slice(0, Math.max(0, maxChars - 1))}…`;
    const width = samplesW + text.length * LEGEND_CHAR_W;
    if (x > LEGEND.left && x + width > LEGEND.right) {
      row++;
      x = LEGEND.left;
    }
    items.push({ entry, text, x, row, width });
    x += width + LEGEND.itemGap;
  }
  return { items, rows: items.length === 0 ? 0 : row + 1 };
}
export function renderChart(spec: ChartSpec): string {
  const legend = layoutLegend(
    spec.legend ?? spec.series.map((s) => ({ label: s.label, color: s.color, strokes: [strokeOf(s)] })),
  );
  // Legend rows on top, then the unit label's row, then the plot, then the x axis.
  const legendBottom = LEGEND.top + legend.rows * LEGEND.rowH;
  const top = legendBottom + 20;
  const H = top + PLOT_H + M.bottom;
  const plotW = W - M.left - M.right;
  const plotH = PLOT_H;
  let yMax = 0;
  for (const s of spec.series) for (const p of s.points) yMax = Math.max(yMax, p.max);
  const yTicks = niceTicks(yMax);
  const yTop = yTicks[yTicks.length - 1] || 1;
  const xUnit: { div: number; name: 's' | 'min' | 'h' } =
    spec.endS <= 180
      ? { div: 1, name: 's' }
      : spec.endS <= 3 * 3600
        ? { div: 60, name: 'min' }
        : { div: 3600, name: 'h' };
  const xTicks = niceTicks(spec.endS / xUnit.div);
  const x = (s: number) => M.left + (spec.endS === 0 ? 0 : (s / spec.endS) * plotW);
  const y = (v: number) => top + plotH - (v / yTop) * plotH;
  const r1 = (v: number) => Math.round(v * 10) / 10;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-labelledby="${spec.id}-title">`,
  );
  parts.push(`<title id="${spec.id}-title">${escapeXml(spec.title)}</title>`);
  const hatched = [...new Set(spec.phases.map((b) => b.kind))].filter((k) => phaseStyle(k).hatch !== null);
  if (hatched.length > 0)
    parts.push(
      `<defs>${hatched.map((k) => hatchPattern(`${spec.id}-${k}`, phaseStyle(k).hatch as number)).join('')}</defs>`,
    );
  for (const band of spec.phases) {
    const x0 = r1(x(band.startS));
    const x1 = r1(x(Math.min(band.endS, spec.endS)));
    if (x1 <= x0) continue;
    const style = phaseStyle(band.kind);
    const at = `x="${x0}" y="${top}" width="${r1(x1 - x0)}" height="${plotH}"`;
    parts.push(
      `<rect class="phase" data-phase="${band.kind}" ${at} fill="${style.fill}"><title>${band.kind}</title></rect>`,
    );
    if (style.hatch !== null) parts.push(`<rect ${at} fill="url(#${spec.id}-${band.kind})"/>`);
  }
  for (const t of yTicks) {
    const yy = r1(y(t));
    parts.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${yy}" y2="${yy}" stroke="#ddd"/>`);
    parts.push(`<text x="${M.left - 6}" y="${yy + 4}" text-anchor="end" class="tick">${fmt(t)}</text>`);
  }
  for (const t of xTicks) {
    if (t * xUnit.div > spec.endS + 1e-9) continue;
    const xx = r1(x(t * xUnit.div));
    parts.push(`<line x1="${xx}" x2="${xx}" y1="${top + plotH}" y2="${top + plotH + 4}" stroke="#555"/>`);
    parts.push(`<text x="${xx}" y="${top + plotH + 16}" text-anchor="middle" class="tick">${fmt(t)}</text>`);
  }
  parts.push(
    `<text x="${M.left + plotW / 2}" y="${H - 4}" text-anchor="middle" class="axis">${spec.timeAxis ?? 'simulated time'} (${xUnit.name})</text>`,
  );
  parts.push(`<text x="${M.left}" y="${top - 7}" class="axis">${escapeXml(spec.unit)}</text>`);
  // A bucket's vertices: its middle, or (steps) its two ends at the same height.
  const at = (p: Bucket, v: number) =>
    spec.steps
      ? [`${r1(x(p.t))},${r1(y(v))}`, `${r1(x(Math.min(p.t + p.width, spec.endS)))},${r1(y(v))}`]
      : [`${r1(x(p.t + p.width / 2))},${r1(y(v))}`];
  for (const s of spec.series) {
    if (s.points.length === 0) continue;
    // A repeated line's band is its first one's: drawn again in another colour, the two would mix to grey.
    const repeat = s.interleave !== undefined && s.interleave.index > 0;
    const hasBand = !repeat && s.points.some((p) => p.max > p.min);
    if (hasBand) {
      const upper = s.points.flatMap((p) => at(p, p.max));
      const lower = [...s.points].reverse().flatMap((p) => at(p, p.min).reverse());
      parts.push(
        `<polygon points="${[...upper, ...lower].join(' ')}" fill="${s.color}" fill-opacity="0.15" stroke="none"/>`,
      );
    }
    const line = s.points.flatMap((p) => at(p, p.mean)).join(' ');
    parts.push(
      `<polyline points="${line}" fill="none" stroke="${s.color}" stroke-width="1.6"${seriesDashes(s)}><title>${escapeXml(s.label)}</title></polyline>`,
    );
  }
  parts.push(
    ...peakMarks(spec.series, { left: M.left, right: W - M.right, top, bottom: top + plotH, x, y, unit: xUnit.name }),
  );
  parts.push(`<rect x="${M.left}" y="${top}" width="${plotW}" height="${plotH}" fill="none" stroke="#555"/>`);
  // Legend: each item's estimated box is drawn as an invisible rect, so its
  // geometry can be checked on the SVG (every box inside the width, none overlapping).
  for (const item of legend.items) {
    const by = LEGEND.top + item.row * LEGEND.rowH;
    const mid = by + LEGEND.boxH / 2;
    const g = [
      `<g class="legend-item"><rect class="legend-box" x="${r1(item.x)}" y="${by}" width="${r1(item.width)}" height="${LEGEND.boxH}" fill="none"/>`,
    ];
    let sx = item.x;
    for (const stroke of item.entry.strokes) {
      g.push(
        `<line x1="${r1(sx)}" x2="${r1(sx + LEGEND.sampleW)}" y1="${mid}" y2="${mid}" stroke="${item.entry.color}" stroke-width="2"${dashes(stroke)}/>`,
      );
      sx += LEGEND.sampleW + LEGEND.sampleGap;
    }
    const full = item.text === item.entry.label ? '' : `<title>${escapeXml(item.entry.label)}</title>`;
    g.push(`<text x="${r1(sx)}" y="${mid + 4}" class="legend">${full}${escapeXml(item.text)}</text></g>`);
    parts.push(g.join(''));
  }
  parts.push('</svg>');
  return parts.join('');
}

/** 0 and ~5 round steps up to at least `max` (1, 2, 5 × 10^k). */
export function niceTicks(max: number): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / 5;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((k) => k * mag).find((s) => s >= raw) as number;
  const ticks: number[] = [];
  for (let t = 0; t < max + step - 1e-9; t += step) ticks.push(Number(t.toPrecision(12)));
  return ticks;
}
