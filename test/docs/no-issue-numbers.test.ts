// Names say what things do: no tracker numbers in the source, the tests or the
// docs, in prose, in identifiers or as a bare hash reference. The patterns are
// built from pieces so this file does not match itself.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const TREES = ['src', 'test', 'docs'];
const FILES = ['README.md'];

const WORD = 'iss' + 'ue';
/** The word and a number, with or without a hash, space, underscore or hyphen between (see the forms below). */
const TRACKER_NUMBER = new RegExp(`${WORD}s?[\\s_-]*#?\\d+`, 'i');
/** A bare hash reference in parentheses. */
const HASH_REFERENCE = new RegExp('\\(' + '#\\d+\\)');

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

/** Every line of `files` that a pattern matches, as "file:line: text". */
function offenders(files: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (TRACKER_NUMBER.test(line) || HASH_REFERENCE.test(line))
        found.push(`${relative(ROOT, file)}:${i + 1}: ${line.trim().slice(0, 160)}`);
    });
  }
  return found;
}

const SCANNED = [
  ...TREES.flatMap((tree) => {
    const dir = join(ROOT, tree);
    return statSync(dir, { throwIfNoEntry: false })?.isDirectory() ? filesUnder(dir) : [];
  }),
  ...FILES.map((f) => join(ROOT, f)),
];

describe('no tracker numbers in names, comments, tests or docs', () => {
  it('the scan covers the source, the tests and the README', () => {
    const scanned = new Set(SCANNED.map((f) => relative(ROOT, f)));
    for (const file of ['src/index.ts', 'test/docs/no-issue-numbers.test.ts', 'README.md'])
      expect(scanned.has(file), file).toBe(true);
  });

  it('the patterns match the forms they are for, and not this file', () => {
    const n = (s: string) => s.replace('{n}', String(10));
    for (const line of [
      `// ${WORD} {n}: x`,
      `(${WORD}s 9 and {n})`,
      `${WORD.toUpperCase()} #{n}`,
      `READINGS_BEFORE_${WORD.toUpperCase()}_{n}`,
      `before-${WORD}-{n}`,
      `see (#{n})`,
    ]) {
      expect(TRACKER_NUMBER.test(n(line)) || HASH_REFERENCE.test(n(line)), n(line)).toBe(true);
    }
    for (const line of ['[RETRANSMIT #1]', 'removed #2 ack seq=3', 'clientToServer.loss#5', `an ${WORD} of ordering`]) {
      expect(TRACKER_NUMBER.test(line) || HASH_REFERENCE.test(line), line).toBe(false);
    }
    expect(offenders([join(import.meta.dirname, 'no-issue-numbers.test.ts')])).toEqual([]);
  });

  it('no file under src/, test/, docs/ or README.md names a tracker number', () => {
    expect(offenders(SCANNED)).toEqual([]);
  });
});
