// docs/conform.md states figures and lists that the code declares: the sessions a
// campaign opens, and two tables generated from the case declarations (every case
// with its claim, probe and windows; every planted bug with the cases it fails).
// A case or planted bug added without its row fails here; BCSIM_UPDATE_DOCS=1
// rewrites the tables between their markers instead.
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFORM_CASES, caseTable, plantedBugTable } from '../../src/live/index.js';
import { PLANTED_BUGS } from '../../src/model/transport/index.js';

const DOC_URL = new URL('../../docs/conform.md', import.meta.url);

/** The text between `<!-- NAME: … -->` and `<!-- end NAME -->`, and the page with `text` put there. */
function region(doc: string, name: string, text: string): { found: string | null; replaced: string } {
  const start = doc.indexOf(`<!-- ${name}: `);
  const end = doc.indexOf(`<!-- end ${name} -->`);
  if (start < 0 || end < start) return { found: null, replaced: doc };
  const from = doc.indexOf('\n', start) + 1;
  return { found: doc.slice(from, end), replaced: `${doc.slice(0, from)}${text}\n${doc.slice(end)}` };
}

const TABLES = { 'case table': caseTable(), 'planted-bug table': plantedBugTable() };

// Asked to, the tables are written into the page first, and the checks below then read it.
if (process.env.BCSIM_UPDATE_DOCS === '1') {
  let doc = readFileSync(DOC_URL, 'utf8');
  for (const [name, table] of Object.entries(TABLES)) doc = region(doc, name, table).replaced;
  writeFileSync(DOC_URL, doc);
}
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
  it('gives the number of sessions the cases declare', () => {
    const prose = DOC.replace(/\s+/g, ' ');
    const most = CONFORM_CASES.reduce((n, c) => n + c.sessions, 0);
    // The garbage case opens its second session only after a Boot.
    expect(prose).toContain(
      `${most} at most in all (${most - 1} unless the server Boots the garbage case's first session)`,
    );
    expect(prose).toContain(`A campaign opens up to ${most} sessions`);
  });

  it('has the tables the case declarations give, between their markers', () => {
    for (const [name, table] of Object.entries(TABLES))
      expect(region(DOC, name, table).found, `${name} (BCSIM_UPDATE_DOCS=1 rewrites it)`).toBe(`${table}\n`);
  });

  it('has a row for every case, in the declared order, and one for every planted bug', () => {
    expect(firstColumn('| case |')).toEqual(CONFORM_CASES.map((c) => c.id));
    expect(firstColumn('| planted bug |').sort()).toEqual(PLANTED_BUGS.filter((b) => b !== 'none').sort());
  });

  it('names the cases that run alone', () => {
    for (const c of CONFORM_CASES.filter((x) => x.exclusive))
      expect(DOC).toMatch(new RegExp(`\\*\\*Alone\\.\\*\\*[^]*\`${c.id}\``));
  });
});
