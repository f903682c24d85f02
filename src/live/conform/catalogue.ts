// The cases as data, read back: which cases a planted bug fails, and the two
// tables of docs/conform.md (test/docs/conform-doc.test.ts holds the page to
// them), so a case is described once, in its own declaration.
import { msToSeconds } from '../../core/engine/index.js';
import type { PlantedBug } from '../../model/transport/index.js';
import { DEFAULT_TIMINGS } from './case-types.js';
import type { ConformCase } from './case-types.js';
import type { FaultKind } from './client.js';
import { CONFORM_CASES } from './cases/index.js';

/** Every wire fault the cases apply, with what it is and the case that probes it (one case each). */
export const FAULT_KINDS: ReadonlyMap<FaultKind, { readonly label: string; readonly caseId: string }> = (() => {
  const kinds = new Map<FaultKind, { label: string; caseId: string }>();
  for (const c of CONFORM_CASES)
    for (const [kind, label] of Object.entries(c.probes)) {
      const before = kinds.get(kind);
      if (before !== undefined) throw new Error(`conform: fault ${kind} is probed by ${before.caseId} and ${c.id}`);
      kinds.set(kind, { label, caseId: c.id });
    }
  return kinds;
})();

/** What a fault is; a fault no case declares is a bug of bcsim's. */
export function faultLabel(kind: FaultKind): string {
  const found = FAULT_KINDS.get(kind);
  if (found === undefined) throw new Error(`conform: fault ${kind} is declared by no case (ConformCase.probes)`);
  return found.label;
}

/** The case that probes a fault. */
export function faultOwner(kind: FaultKind): string | null {
  return FAULT_KINDS.get(kind)?.caseId ?? null;
}

/** The cases a planted bug fails: those it exists for, then those it fails as a knock-on. */
export function casesFailedBy(bug: PlantedBug, cases: readonly ConformCase[] = CONFORM_CASES): string[] {
  const own = cases.filter((c) => c.plantedBugs.includes(bug));
  const also = cases.filter((c) => c.alsoFailedBy?.[bug] !== undefined);
  return [...own, ...also].map((c) => c.id);
}

const code = (s: string) => `\`${s}\``;

/** "`resendMinMs` 0.5 s": a window with its default figure. */
function windowText(name: ConformCase['windows'][number]): string {
  return `${code(name)} ${msToSeconds(DEFAULT_TIMINGS[name])} s`;
}

/** The most sessions a campaign of these cases opens (each case's `sessions`, added up). */
export function sessionsAtMost(cases: readonly ConformCase[] = CONFORM_CASES): number {
  return cases.reduce((n, c) => n + c.sessions, 0);
}

/** docs/conform.md's case table: id, claim, how it is probed, its windows and sessions (and whether it runs alone), then their sum. */
export function caseTable(cases: readonly ConformCase[] = CONFORM_CASES): string {
  const rows = cases.map(
    (c) =>
      `| ${code(c.id)} | ${c.title} | ${c.probe} | ${c.windows.map(windowText).join(', ') || '—'} | ${c.sessions}${c.exclusive ? ', alone' : ''} |`,
  );
  return [
    '| case | the claim | how it is probed | windows (default) | sessions |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    `${cases.length} cases; a campaign of all of them opens ${sessionsAtMost(cases)} sessions at most.`,
  ].join('\n');
}

/**
 * docs/conform.md's planted-bug table, in case order: the bugs a case exists for
 * (those failing the same cases share a row), with the cases each fails.
 */
export function plantedBugTable(cases: readonly ConformCase[] = CONFORM_CASES): string {
  const rows: string[] = [];
  for (const c of cases) {
    const groups = new Map<string, PlantedBug[]>();
    for (const bug of c.plantedBugs) {
      const failed = casesFailedBy(bug, cases).join(',');
      groups.set(failed, [...(groups.get(failed) ?? []), bug]);
    }
    for (const bugs of groups.values()) {
      const knockOn = cases
        .filter((o) => o.alsoFailedBy?.[bugs[0]] !== undefined)
        .map((o) => `, and ${code(o.id)}: ${o.alsoFailedBy?.[bugs[0]]}`);
      rows.push(`| ${bugs.map(code).join(', ')} | ${code(c.id)}${knockOn.join('')} |`);
    }
  }
  return ['| planted bug | fails |', '|---|---|', ...rows].join('\n');
}

/** The two tables, each with the name of its `<!-- NAME: … -->` … `<!-- end NAME -->` markers. */
export function conformTables(cases: readonly ConformCase[] = CONFORM_CASES): Readonly<Record<string, string>> {
  return { 'case table': caseTable(cases), 'planted-bug table': plantedBugTable(cases) };
}

/** The text between a table's markers (null without them), and the page with `table` put there. */
export function tableRegion(page: string, name: string, table: string): { found: string | null; replaced: string } {
  const start = page.indexOf(`<!-- ${name}: `);
  const end = page.indexOf(`<!-- end ${name} -->`);
  if (start < 0 || end < start) return { found: null, replaced: page };
  const from = page.indexOf('\n', start) + 1;
  return { found: page.slice(from, end), replaced: `${page.slice(0, from)}${table}\n${page.slice(end)}` };
}

/** docs/conform.md with both tables written from the declarations (`npm run docs`). */
export function withConformTables(page: string): string {
  let out = page;
  for (const [name, table] of Object.entries(conformTables())) out = tableRegion(out, name, table).replaced;
  return out;
}
