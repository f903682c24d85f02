// docs/conform.md's two tables are generated from the case declarations (every case
// with its claim, probe, windows and sessions; every planted bug with the cases it
// fails). A case or planted bug added without its row fails here; `npm run docs`
// rewrites the tables between their markers.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CONFORM_CASES,
  caseTable,
  conformTables,
  sessionsAtMost,
  tableRegion,
  withConformTables,
} from '../../src/live/index.js';
import { PLANTED_BUGS } from '../../src/model/transport/index.js';

const DOC_URL = new URL('../../docs/conform.md', import.meta.url);
const TABLES = conformTables();

const DOC = readFileSync(DOC_URL, 'utf8');

/** The first column of a table's rows, from the row after the header line that starts with `header`. */
function firstColumn(header: string): string[] {
  const lines = DOC.split('\n');
  const start = lines.findIndex((l) => l.startsWith(header));
  const out: string[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    out.push(...[...line.split('|')[1].matchAll(/`([a-z0-9-]+)`/g)].map((m) => m[1]));
  }
  return out;
}

describe('docs/conform.md', () => {
  it('states no session count of its own: the case table adds them up', () => {
    const prose = DOC.replace(/\s+/g, ' ');
    expect(caseTable()).toContain(`opens ${sessionsAtMost()} sessions at most`);
    expect(sessionsAtMost()).toBe(CONFORM_CASES.reduce((n, c) => n + c.sessions, 0));
    expect(prose.match(/\b\d+ sessions at most/g)).toEqual([`${sessionsAtMost()} sessions at most`]);
  });

  it('has the tables the case declarations give, between their markers (npm run docs writes them)', () => {
    for (const [name, table] of Object.entries(TABLES))
      expect(tableRegion(DOC, name, table).found, name).toBe(`${table}\n`);
    expect(withConformTables(DOC)).toBe(DOC);
  });

  it('has a row for every case, in the declared order, and one for every planted bug', () => {
    expect(firstColumn('| case |')).toEqual(CONFORM_CASES.map((c) => c.id));
    expect(firstColumn('| planted bug |').sort()).toEqual(PLANTED_BUGS.filter((b) => b !== 'none').sort());
  });

  it('marks the cases that run alone in the table, and names none by hand', () => {
    const alone = CONFORM_CASES.filter((c) => c.exclusive).map((c) => c.id);
    expect(alone.length).toBeGreaterThan(0);
    const marked = DOC.split('\n')
      .filter((l) => /^\| `[a-z-]+` \|.*\| \d+, alone \|$/.test(l))
      .map((l) => l.split('`')[1]);
    expect(marked).toEqual(alone);
    const paragraph = DOC.slice(DOC.indexOf('- **Alone.**'), DOC.indexOf('- **Addresses.**'));
    expect(paragraph).toContain('marked *alone*');
    expect(paragraph).not.toMatch(/`[a-z]+-[a-z-]+`/);
  });
});
