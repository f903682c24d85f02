// Inline SVG line charts for report.html: no scripts, no external resources.
// Each series draws its bucket means as a line over a light min–max band.
import type { Bucket } from '../metrics/series.js';
import { escapeXml, fmt } from './format.js';

export interface ChartSeries {
  readonly label: string;
  readonly color: string;
  readonly dashed: boolean;
  readonly points: readonly Bucket[];
}

export interface PhaseBand {
  readonly kind: string;
  readonly startS: number;
  readonly endS: number;
}

export interface ChartSpec {
  readonly id: string;
  readonly title: string;
  readonly unit: string;
  readonly endS: number;
  readonly series: readonly ChartSeries[];
  readonly phases: readonly PhaseBand[];
}

const W = 720;
const H = 240;
const M = { left: 64, right: 16, top: 28, bottom: 36 };
/** Background of each traffic phase kind, in charts and in the HTML legend. */
export const PHASE_FILL: Record<string, string> = {
  combat: '#fdebd3',
  lull: '#f3f0e0',
  quiet: '#ececec',
  lobby: '#eef2f7',
  join: '#e8f5e9',
  disconnect: '#f5e1e1',
};

export function renderChart(spec: ChartSpec): string {
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  let yMax = 0;
  for (const s of spec.series) for (const p of s.points) yMax = Math.max(yMax, p.max);
  const yTicks = niceTicks(yMax);
  const yTop = yTicks[yTicks.length - 1] || 1;
  const xUnit = spec.endS <= 180 ? { div: 1, name: 's' } : spec.endS <= 3 * 3600 ? { div: 60, name: 'min' } : { div: 3600, name: 'h' };
  const xTicks = niceTicks(spec.endS / xUnit.div);
  const x = (s: number) => M.left + (spec.endS === 0 ? 0 : (s / spec.endS) * plotW);
  const y = (v: number) => M.top + plotH - (v / yTop) * plotH;
  const r1 = (v: number) => Math.round(v * 10) / 10;
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-labelledby="${spec.id}-title">`);
  parts.push(`<title id="${spec.id}-title">${escapeXml(spec.title)}</title>`);
  for (const band of spec.phases) {
    const x0 = r1(x(band.startS));
    const x1 = r1(x(Math.min(band.endS, spec.endS)));
    if (x1 > x0) parts.push(`<rect x="${x0}" y="${M.top}" width="${r1(x1 - x0)}" height="${plotH}" fill="${PHASE_FILL[band.kind] ?? '#f4f4f4'}"><title>${band.kind}</title></rect>`);
  }
  for (const t of yTicks) {
    const yy = r1(y(t));
    parts.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${yy}" y2="${yy}" stroke="#ddd"/>`);
    parts.push(`<text x="${M.left - 6}" y="${yy + 4}" text-anchor="end" class="tick">${fmt(t)}</text>`);
  }
  for (const t of xTicks) {
    if (t * xUnit.div > spec.endS + 1e-9) continue;
    const xx = r1(x(t * xUnit.div));
    parts.push(`<line x1="${xx}" x2="${xx}" y1="${M.top + plotH}" y2="${M.top + plotH + 4}" stroke="#555"/>`);
    parts.push(`<text x="${xx}" y="${M.top + plotH + 16}" text-anchor="middle" class="tick">${fmt(t)}</text>`);
  }
  parts.push(`<text x="${M.left + plotW / 2}" y="${H - 4}" text-anchor="middle" class="axis">simulated time (${xUnit.name})</text>`);
  parts.push(`<text x="${M.left}" y="${M.top - 10}" class="axis">${escapeXml(spec.unit)}</text>`);
  for (const s of spec.series) {
    if (s.points.length === 0) continue;
    const mid = (p: Bucket) => p.t + p.width / 2;
    const hasBand = s.points.some((p) => p.max > p.min);
    if (hasBand) {
      const upper = s.points.map((p) => `${r1(x(mid(p)))},${r1(y(p.max))}`);
      const lower = [...s.points].reverse().map((p) => `${r1(x(mid(p)))},${r1(y(p.min))}`);
      parts.push(`<polygon points="${[...upper, ...lower].join(' ')}" fill="${s.color}" fill-opacity="0.12" stroke="none"/>`);
    }
    const line = s.points.map((p) => `${r1(x(mid(p)))},${r1(y(p.mean))}`).join(' ');
    parts.push(
      `<polyline points="${line}" fill="none" stroke="${s.color}" stroke-width="1.6"${s.dashed ? ' stroke-dasharray="5 3"' : ''}><title>${escapeXml(s.label)}</title></polyline>`,
    );
  }
  parts.push(`<rect x="${M.left}" y="${M.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#555"/>`);
  // Legend, top right.
  let lx = W - M.right - 8;
  for (const s of [...spec.series].reverse()) {
    const width = 26 + s.label.length * 6.2;
    lx -= width;
    parts.push(
      `<line x1="${r1(lx)}" x2="${r1(lx + 18)}" y1="${M.top - 12}" y2="${M.top - 12}" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="5 3"' : ''}/>`,
    );
    parts.push(`<text x="${r1(lx + 22)}" y="${M.top - 8}" class="legend">${escapeXml(s.label)}</text>`);
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
