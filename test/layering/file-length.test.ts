// One job per module: no source, test, script or bench file grows past 500 lines (counted as formatted).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { longFiles } from './file-length.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LIMIT_LINES = 500;

/** Each folder checked, the files in it that count, and how many at least (so that a wrong walk cannot pass). */
const FOLDERS: ReadonlyArray<{ dir: string; ext: string; atLeast: number }> = [
  { dir: 'test', ext: '.ts', atLeast: 200 },
  { dir: 'scripts', ext: '.mjs', atLeast: 3 },
  { dir: 'bench', ext: '.mjs', atLeast: 10 },
];

describe('file length', () => {
  it('finds a planted long file', () => {
    const text = `${'x;\n'.repeat(LIMIT_LINES + 1)}`;
    expect(longFiles([{ path: 'planted.ts', text }], LIMIT_LINES)).toEqual([`planted.ts: ${LIMIT_LINES + 1} lines`]);
    expect(longFiles([{ path: 'short.ts', text: 'x;\n'.repeat(LIMIT_LINES) }], LIMIT_LINES)).toEqual([]);
  });

  it('walks nested folders for the extension asked, and finds a planted long file there', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bcsim-file-length-'));
    try {
      mkdirSync(join(dir, 'deep', 'er'), { recursive: true });
      const long = 'x;\n'.repeat(LIMIT_LINES + 1);
      writeFileSync(join(dir, 'deep', 'er', 'planted.mjs'), long);
      writeFileSync(join(dir, 'deep', 'data.json'), long);
      writeFileSync(join(dir, 'short.mjs'), 'x;\n');
      const found = sourceFiles(dir, '.mjs').map((path) => path.slice(dir.length + 1));
      expect(found).toEqual(['deep/er/planted.mjs', 'short.mjs']);
      expect(longFiles(read(dir, '.mjs', `${dir}/`), LIMIT_LINES)).toEqual([
        `deep/er/planted.mjs: ${LIMIT_LINES + 1} lines`,
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it(`keeps every file in src/ at ${LIMIT_LINES} lines or fewer`, () => {
    const files = read(join(ROOT, 'src'), '.ts', join(ROOT, 'src/'));
    expect(files.length).toBeGreaterThan(100);
    expect(longFiles(files, LIMIT_LINES)).toEqual([]);
  });

  it.each(FOLDERS.map(({ dir, ext, atLeast }) => [ext, dir, atLeast] as const))(
    `keeps every %s file in %s/ at ${LIMIT_LINES} lines or fewer`,
    (ext, dir, atLeast) => {
      const files = read(join(ROOT, dir), ext, ROOT);
      expect(files.length).toBeGreaterThanOrEqual(atLeast);
      expect(longFiles(files, LIMIT_LINES)).toEqual([]);
    },
  );

  it('the walk of test/ includes this file, and of bench/ and scripts/ their entry points', () => {
    const paths = FOLDERS.flatMap(({ dir, ext }) => read(join(ROOT, dir), ext, ROOT).map((f) => f.path));
    expect(paths).toEqual(
      expect.arrayContaining(['test/layering/file-length.test.ts', 'bench/run.mjs', 'scripts/soak.mjs']),
    );
  });
});

/** Every file under `dir` ending in `ext`, its path relative to `base` (a folder, ending in /). */
function read(dir: string, ext: string, base: string): Array<{ path: string; text: string }> {
  return sourceFiles(dir, ext).map((path) => ({ path: path.slice(base.length), text: readFileSync(path, 'utf8') }));
}

function sourceFiles(dir: string, ext: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path, ext));
    else if (entry.name.endsWith(ext)) out.push(path);
  }
  return out;
}
