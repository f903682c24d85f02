// Each series' peak on a chart: a dot in its colour and a label such as
// "stock client: peak 4,169 at 1h02m", so a peak squeezed into a pixel of a
// 4 h axis still shows its value. Labels are placed without measuring text
// (the output must be byte-identical everywhere): 6 px a character at 10 px.
import type { Bucket } from '../../model/metrics/index.js';
import { escapeXml, fmt } from '../../core/output/index.js';

export interface MarkedSeries {
  readonly label: string;
  readonly color: string;
  readonly points: readonly Bucket[];
  /** Set on a series that repeats another's line: its peak is that one's. */
  readonly interleave?: { readonly index: number };
}

export interface PlotFrame {
  readonly left: number;
  readonly right: number;
  readonly top: number;
  readonly bottom: number;
  readonly x: (s: number) => number;
  readonly y: (v: number) => number;
  /** The time axis's unit: a peak's time is written in it. */
  readonly unit: 's' | 'min' | 'h';
}

const CHAR_W = 6;
const ROW_H = 12;

/** Where a series peaks: the first bucket holding its highest value; null for an empty or all-zero series. */
function peakOf(points: readonly Bucket[]): { t: number; width: number; value: number } | null {
  let best: Bucket | null = null;
  for (const p of points) if (best === null || p.max > best.max) best = p;
  return best === null || !(best.max > 0) ? null : { t: best.t, width: best.width, value: best.max };
}

/** "12 s", "3m05s", "1h02m": a time in the axis's unit, to its resolution. */
function peakTime(s: number, unit: PlotFrame['unit']): string {
  const whole = Math.floor(s);
  if (unit === 's') return `${fmt(s)} s`;
  if (unit === 'min') return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, '0')}s`;
  return `${Math.floor(whole / 3600)}h${String(Math.floor(whole / 60) % 60).padStart(2, '0')}m`;
}

/** The dots and labels of every series' peak (a repeated line's only once), labels nudged apart. */
export function peakMarks(series: readonly MarkedSeries[], frame: PlotFrame): string[] {
  const r1 = (v: number) => Math.round(v * 10) / 10;
  const placed: { x0: number; x1: number; y: number }[] = [];
  const out: string[] = [];
  // Series peaking at the same point share one mark: "stock client, fixed client: peak 9 at 0h17m".
  const marks: { cx: number; cy: number; color: string; labels: string[]; what: string }[] = [];
  for (const s of series) {
    if (s.interleave !== undefined && s.interleave.index > 0) continue;
    const peak = peakOf(s.points);
    if (peak === null) continue;
    const cx = r1(frame.x(peak.t + peak.width / 2));
    const cy = r1(frame.y(peak.value));
    const what = `peak ${fmt(peak.value)} at ${peakTime(peak.t, frame.unit)}`;
    const same = marks.find((m) => m.cx === cx && m.cy === cy && m.what === what);
    if (same === undefined) marks.push({ cx, cy, color: s.color, labels: [s.label], what });
    else same.labels.push(s.label);
  }
  for (const { cx, cy, color, labels, what } of marks) {
    const text = `${labels.join(', ')}: ${what}`;
    const w = text.length * CHAR_W;
    // Right of the dot in the plot's left half, left of it in the right half; clamped inside.
    const leftward = cx > (frame.left + frame.right) / 2;
    const x0 = leftward ? Math.max(frame.left + 2, cx - 6 - w) : Math.min(frame.right - 2 - w, cx + 6);
    let y = cy - 5 < frame.top + ROW_H ? cy + ROW_H + 2 : cy - 5;
    while (placed.some((b) => b.x0 < x0 + w && x0 < b.x1 && Math.abs(b.y - y) < ROW_H) && y < frame.bottom - 2)
      y += ROW_H;
    placed.push({ x0, x1: x0 + w, y });
    out.push(
      `<g class="peak-mark"><circle cx="${cx}" cy="${cy}" r="3.5" fill="${color}" stroke="#fff" stroke-width="1"/><text x="${r1(x0)}" y="${r1(y)}" class="peak-label" font-size="10" fill="#222" stroke="#fff" stroke-width="3" stroke-linejoin="round" paint-order="stroke">${escapeXml(text)}</text></g>`,
    );
  }
  return out;
}
