// Series that plot the same line: the later ones would hide the earlier ones
// completely. Found per role (one run's n-th series against another's n-th),
// so a chart can draw them in alternating colours and say so in its caption.
import type { Bucket } from '../../model/metrics/index.js';
import type { ChartSeries } from './svg-chart.js';

/** One run's series in a chart, in role order (e.g. server, then client). */
export interface RunSeries {
  readonly label: string;
  readonly series: readonly ChartSeries[];
}

/** Equal over every plotted bucket: the same times, means, lows and highs. */
function sameLine(a: readonly Bucket[], b: readonly Bucket[]): boolean {
  return (
    a.length === b.length &&
    a.every((p, i) => {
      const q = b[i];
      return p.t === q.t && p.width === q.width && p.mean === q.mean && p.min === q.min && p.max === q.max;
    })
  );
}

/**
 * Every series, each one that duplicates others marked with its place in its
 * group (drawn interleaved), and one caption note per group of runs, e.g.
 * "Identical series, one line in alternating colours: stock = fixed (server and client)".
 */
export function markSameLines(
  runs: readonly RunSeries[],
  roles: readonly string[],
): { series: ChartSeries[]; note: string | null } {
  const marked = runs.map((r) => [...r.series]);
  const groups = new Map<string, string[]>(); // "stock = fixed" -> roles
  roles.forEach((role, k) => {
    const seen = new Set<number>();
    runs.forEach((_, i) => {
      if (seen.has(i) || runs[i].series.length !== roles.length) return;
      const members = [i];
      for (let j = i + 1; j < runs.length; j++)
        if (
          !seen.has(j) &&
          runs[j].series.length === roles.length &&
          sameLine(runs[i].series[k].points, runs[j].series[k].points)
        )
          members.push(j);
      if (members.length < 2) return;
      members.forEach((m, index) => {
        seen.add(m);
        marked[m][k] = { ...runs[m].series[k], interleave: { index, of: members.length } };
      });
      const key = members.map((m) => runs[m].label).join(' = ');
      groups.set(key, [...(groups.get(key) ?? []), role]);
    });
  });
  // A chart with one line per run names no role.
  const notes = [...groups].map(([key, rs]) => (rs.every((r) => r === '') ? key : `${key} (${listed(rs)})`));
  return {
    series: marked.flat(),
    note: notes.length === 0 ? null : `Identical series, one line in alternating colours: ${notes.join('; ')}`,
  };
}

function listed(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
