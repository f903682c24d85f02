// The bundle loader (src/cli/code-cache.ts) hands out each chunk's exports as read-only
// data properties, copied once the chunk has run. That is right only while no export
// changes after its module loads: src/ must export no `let` or `var`, and at the exit of
// real commands every copied export must still equal its live binding.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { CHECK_EXPORTS_ENV } from '../../src/cli/code-cache.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'dist/cli/main.cjs');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** The names a declaration binds, destructuring patterns included. */
function boundNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : boundNames(e.name)));
}

/** Top-level `let`/`var` bindings a module exports, directly or through `export { … }`. */
function mutableExports(path: string, text: string): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, false);
  const mutable = new Map<string, boolean>();
  const exported = new Set<string>();
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement)) {
      const isConst = (statement.declarationList.flags & ts.NodeFlags.Const) !== 0;
      const isExported = statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) ?? false;
      for (const name of statement.declarationList.declarations.flatMap((d) => boundNames(d.name))) {
        mutable.set(name, !isConst);
        if (isExported) exported.add(name);
      }
    } else if (ts.isExportDeclaration(statement) && !statement.moduleSpecifier && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      for (const e of statement.exportClause.elements) exported.add((e.propertyName ?? e.name).text);
    }
  }
  return [...exported].filter((name) => mutable.get(name) === true).map((name) => `${path}: ${name}`);
}

describe('src/ exports only bindings that never change', () => {
  it('no module exports a let or var', () => {
    const src = join(ROOT, 'src');
    expect(files(src).flatMap((f) => mutableExports(f.slice(ROOT.length), readFileSync(f, 'utf8')))).toEqual([]);
  });

  it('the check can fail (planted in memory): a direct export, one through export { }, destructured ones', () => {
    expect(mutableExports('a.ts', 'export let count = 0;\nexport const fixed = 1;')).toEqual(['a.ts: count']);
    expect(mutableExports('b.ts', 'var total = 0;\nconst fixed = 1;\nexport { total, fixed as renamed };')).toEqual(['b.ts: total']);
    expect(mutableExports('c.ts', 'export let { a, b: [c, , d] } = obj;\nexport const { e } = obj;')).toEqual(['c.ts: a', 'c.ts: c', 'c.ts: d']);
  });
});

describe('the copied exports equal the live bindings at exit', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'bcsim-data-exports-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const commands: string[][] = [
    ['run', 'lossy-link', '--duration', '5s', '--json', '--pcap', join(scratch, 'run.pcapng')],
    ['compare', 'lossy-link', '--duration', '5s', '--out', join(scratch, 'compare')],
    ['trace', 'fragment-ack-bug', '--until', '2s'],
    ['analyze', join(scratch, 'run.pcapng'), '--json'],
    ['run', 'test/scenarios/malformed/loss-high.json'],
    ['--help'],
    ['compare', 'rtype-deaths', '--duration', '5s', '--out', join(scratch, 'schemes')],
    ['sweep', 'lossy-link', '--seeds', '1..2', '--duration', '5s', '--jobs', '1', '--out', join(scratch, 'sweep.jsonl')],
    ['swarm', '--runs', '2', '--json'],
    ['check', 'lossy-link'],
  ];

  it.each(commands.map((args) => [args.join(' '), args]))('bcsim %s', (_label, args) => {
    const r = spawnSync(process.execPath, [BIN, ...(args as string[])], { encoding: 'utf8', cwd: ROOT, env: { ...process.env, [CHECK_EXPORTS_ENV]: '1' } });
    expect(r.stderr).not.toMatch(/changed after the chunk loaded/);
    // 1 is a verdict (a sweep's 5 s runs fail their expect block), 2 the malformed file.
    expect([0, 1, 2]).toContain(r.status);
  });
});

describe('the exit check can fail (a planted bundle in a copy of dist/)', () => {
  it('names an export whose binding changed after its chunk loaded, and exits 70', () => {
    const copy = mkdtempSync(join(tmpdir(), 'bcsim-data-exports-planted-'));
    try {
      cpSync(join(ROOT, 'dist'), join(copy, 'dist'), { recursive: true });
      symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
      const cli = join(copy, 'dist/cli');
      rmSync(join(cli, 'code-cache'), { recursive: true });
      // As the build wraps chunks; the planted chunk exports a getter over a `let` that changes after it loads.
      const wrap = (body: string) => `(function (exports, require, module, __filename, __dirname, __bcsimModuleUrl) {\n${body}\n})`;
      writeFileSync(join(cli, 'start.cjs'), wrap("require('./chunk-planted.cjs').bump();"));
      writeFileSync(
        join(cli, 'chunk-planted.cjs'),
        wrap("let count = 0; const bump = () => { count++; }; Object.defineProperty(exports, 'count', { get: () => count, enumerable: true }); Object.defineProperty(exports, 'bump', { get: () => bump, enumerable: true });"),
      );
      const r = spawnSync(process.execPath, [join(cli, 'main.cjs')], { encoding: 'utf8', env: { ...process.env, [CHECK_EXPORTS_ENV]: '1' } });
      expect(r.stderr).toBe('bcsim: chunk-planted.cjs: export count changed after the chunk loaded\n');
      expect(r.status).toBe(70);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
