// The shell lines of the documentation that copy files shipped with bcsim (the
// rules files, the dissector) must work both where bcsim is installed from npm
// (node_modules/bcsim/…) and in a clone of the repository (…at its root).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/example-runner.js';

const SHIPPED = /node_modules\/bcsim|scenarios\/examples|dissector\//;

/** Per sh block of README.md and docs/*.md: its lines before the first bcsim command that name a shipped file. */
function copySnippets(): Array<{ where: string; script: string; copies: string[] }> {
  const files = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((f) => `docs/${f}`)].filter((f) =>
    f.endsWith('.md'),
  );
  const out: Array<{ where: string; script: string; copies: string[] }> = [];
  for (const file of files) {
    const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (!/^```(sh|bash|shell)\s*$/.test(lines[i].trim())) continue;
      const script: string[] = [];
      for (let j = i + 1; j < lines.length && !lines[j].trim().startsWith('```'); j++) {
        const line = lines[j].trim();
        if (/^(npx )?bcsim\b/.test(line)) break;
        if (line !== '' && !line.startsWith('#')) script.push(line);
      }
      if (script.some((l) => SHIPPED.test(l)))
        out.push({
          where: `${file}:${i + 1}`,
          script: script.join('\n'),
          copies: script.flatMap((l) => [...l.matchAll(/([\w-]+\.(?:json|lua))/g)].map((m) => m[1])),
        });
    }
  }
  return out;
}

/** An empty project with bcsim installed (npm), or a clone of the repository. */
function layout(kind: 'npm' | 'clone'): string {
  const dir = mkdtempSync(join(tmpdir(), `bcsim-copy-${kind}-`));
  if (kind === 'npm') {
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(ROOT, join(dir, 'node_modules', 'bcsim'));
  } else {
    for (const folder of ['scenarios', 'dissector']) symlinkSync(join(ROOT, folder), join(dir, folder));
  }
  return dir;
}

describe('copying the files bcsim ships, as the docs print it', () => {
  const snippets = copySnippets();

  it('finds the copy lines of docs/live.md', () => {
    const live = snippets.filter((s) => s.where.startsWith('docs/live.md'));
    expect(live.flatMap((s) => s.copies)).toEqual(expect.arrayContaining(['rules.json', 'lossy-rules.json']));
  });

  for (const kind of ['npm', 'clone'] as const)
    it(`works ${kind === 'npm' ? 'where bcsim is installed from npm' : "in a clone of bcsim's repository"}`, () => {
      for (const snippet of snippets) {
        const dir = layout(kind);
        const run = spawnSync('sh', ['-ec', snippet.script], { cwd: dir, encoding: 'utf8' });
        expect(run.status, `${snippet.where}: ${run.stderr}`).toBe(0);
        for (const file of snippet.copies.filter((f) => !f.includes('/')))
          expect(existsSync(join(dir, file)), `${snippet.where} copies ${file}`).toBe(true);
      }
    });
});
