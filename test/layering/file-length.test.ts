// One job per module: no source file grows past 500 lines (counted as formatted).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { longFiles } from './file-length.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const LIMIT_LINES = 500;

describe('file length', () => {
  it('finds a planted long file', () => {
    const text = `${'x;\n'.repeat(LIMIT_LINES + 1)}`;
    expect(longFiles([{ path: 'planted.ts', text }], LIMIT_LINES)).toEqual([`planted.ts: ${LIMIT_LINES + 1} lines`]);
    expect(longFiles([{ path: 'short.ts', text: 'x;\n'.repeat(LIMIT_LINES) }], LIMIT_LINES)).toEqual([]);
  });

  it(`keeps every file in src/ at ${LIMIT_LINES} lines or fewer`, () => {
    const files = sourceFiles(SRC).map((path) => ({ path: path.slice(SRC.length), text: readFileSync(path, 'utf8') }));
    expect(files.length).toBeGreaterThan(100);
    expect(longFiles(files, LIMIT_LINES)).toEqual([]);
  });
});

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (entry.name.endsWith('.ts')) out.push(path);
  }
  return out;
}
