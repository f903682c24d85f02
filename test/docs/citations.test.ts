// Every citation in what ships (the code's comments and messages, the docs, the committed reports,
// the built-in scenarios, the dissector) names something that ships: an item of docs/sources.md, a
// docs page and heading, a README section; never the project's private notes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CRITERIA } from '../../src/analysis/reproduce/criteria.js';
import { READINGS } from '../../src/analysis/reproduce/index.js';
import { citationProblems, citationTargets, shippedTextFiles } from '../support/citations.js';

const ROOT = join(import.meta.dirname, '..', '..');
const TARGETS = citationTargets(ROOT);
const FILES = shippedTextFiles(
  ROOT,
  ['src', 'docs', 'reports', 'scenarios', 'dissector'],
  ['README.md', 'CONTRIBUTING.md', 'bench/README.md'],
);

/** The CHANGELOG's current section: what the next release says. */
function currentChangelog(): string {
  const text = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8');
  const start = text.indexOf('\n## ');
  const next = text.indexOf('\n## ', start + 1);
  return text.slice(0, next === -1 ? undefined : next);
}

describe('citations in shipped text', () => {
  it('scans the places citations live', () => {
    expect(FILES.length).toBeGreaterThan(300);
    expect(FILES).toContain('src/cli/help-texts.ts');
    expect(FILES.some((f) => f.startsWith('reports/') && f.endsWith('.html'))).toBe(true);
    expect(TARGETS.sourceItems.size).toBeGreaterThanOrEqual(34);
  });

  it('each names an item, page, heading or README section that exists', () => {
    const problems = FILES.flatMap((f) => citationProblems(f, readFileSync(join(ROOT, f), 'utf8'), TARGETS));
    problems.push(...citationProblems('CHANGELOG.md', currentChangelog(), TARGETS));
    expect(problems).toEqual([]);
  });

  it('fails on a planted bad citation of each kind', () => {
    const planted = [
      '// the peer timeout (DECISIONS.md 19)',
      '// the join (docs/sources.md 33, 99)',
      '// the send cycle (docs/sources.md 8–10, Q7)',
      '// see docs/nowhere.md',
      '// see docs/switches.md#no-such-heading',
      '/** for --help (README "Modes and switches" has the table) */',
      '// see README.md#no-such-heading',
    ].join('\n');
    const problems = citationProblems('planted.ts', planted, TARGETS);
    expect(problems).toEqual([
      'planted.ts:1: cites DECISIONS.md, which does not ship: cite docs/sources.md N',
      'planted.ts:2: docs/sources.md has no item 99 ("docs/sources.md 33, 99")',
      'planted.ts:3: docs/sources.md has no item Q7 ("docs/sources.md 8–10, Q7")',
      'planted.ts:4: no page docs/nowhere.md',
      'planted.ts:5: no heading #no-such-heading in docs/switches.md',
      'planted.ts:6: README has no section "Modes and switches"',
      'planted.ts:7: README has no heading #no-such-heading',
    ]);
  });

  it('passes good citations of each kind, wrapped ones too', () => {
    const good = [
      '// the peer timeout (docs/sources.md 19), the send cycle (docs/sources.md 8.3, 12 and 18)',
      '// the join (docs/sources.md',
      '// J1, R1–R3), the fix (docs/sources.md F1), [sources](docs/sources.md) item 33',
      '// docs/switches.md#the-open-readings, docs/calibration.md, and OpenBC docs/bugs/ack-outbox-deadlock.md',
    ].join('\n');
    expect(citationProblems('good.ts', good, TARGETS)).toEqual([]);
  });
});

describe('counts the docs state', () => {
  const readings = READINGS.length;
  const observations = CRITERIA.length;
  const SAID = /(\d+) (?:named )?readings of the stock model (?:\([^)]*\) )?(?:\S+ ){0,12}?against (\d+) observations/g;
  /** The pages, and the help text as its source joins it (`'…\\n' +` between lines). */
  const texts = ['README.md', 'docs/commands.md', 'docs/calibration.md', 'src/cli/simulation-commands.ts'].map(
    (file): [string, string] => [file, readFileSync(join(ROOT, file), 'utf8').replace(/\\n' \+\s*'/g, ' ')],
  );
  it.each(texts)(
    `%s says reproduce ack-outbox has ${readings} readings and ${observations} observations`,
    (_, text) => {
      const said = [...text.replace(/\s+/g, ' ').matchAll(SAID)];
      expect(said.length).toBeGreaterThan(0);
      for (const m of said) expect([Number(m[1]), Number(m[2])]).toEqual([readings, observations]);
    },
  );
});
