// Issue 17, item 1: boundaries a test enforces. Every import between folders of
// src/ goes through the other folder's index.ts, downward in the layer table
// (test/layering/layers.ts), and folders never import each other in a cycle.
// The checker reads the source text (import, export-from, import('…')), so type-only
// imports count: a type from a higher layer is an upward dependency too.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LAYERS, checkLayers } from './layers.js';
import type { Finding, SourceText } from './layers.js';

const ROOT = join(import.meta.dirname, '../..');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

const sources = (dir: string): SourceText[] => files(dir).map((file) => ({ path: relative(ROOT, file).split(sep).join('/'), text: readFileSync(file, 'utf8') }));

const SRC = sources(join(ROOT, 'src'));
const messages = (findings: readonly Finding[]) => findings.map((f) => `${f.kind}: ${f.message}`);
const kindsFor = (findings: readonly Finding[], file: string) => findings.filter((f) => f.file === file).map((f) => f.kind);

describe('the layers of src/', () => {
  it('every import between folders is downward, through the folder index.ts, and without cycles', () => {
    expect(SRC.length).toBeGreaterThan(100);
    expect(messages(checkLayers(SRC))).toEqual([]);
  });

  it('every folder of src/ is in the layer table, once', () => {
    const placed = LAYERS.flat();
    expect(new Set(placed).size).toBe(placed.length);
    const folders = readdirSync(join(ROOT, 'src'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    expect(folders.filter((f) => !placed.includes(f))).toEqual([]);
  });
});

describe('the layering check can fail (planted in memory, never on disk)', () => {
  // Only what the planted file adds is compared: the tree itself is checked above.
  const baseline = new Set(messages(checkLayers(SRC)));
  const plant = (path: string, text: string) => checkLayers([...SRC, { path, text }]).filter((f) => !baseline.has(`${f.kind}: ${f.message}`));

  it('reports an upward import: the engine importing the transport', () => {
    const findings = plant('src/engine/planted.ts', "import { PeerTransport } from '../transport/index.js';\n");
    expect(findings.map((f) => f.kind)).toEqual(['upward', 'cycle']);
    expect(findings[0].message).toBe("src/engine/planted.ts:1 imports '../transport/index.js': engine (layer 1) may not import transport (layer 4, higher)");
    // The transport's real imports of the engine close the loop.
    expect(findings[1].message).toMatch(/^folders import each other in a cycle: engine → transport \(src\/engine\/planted\.ts:1 '\.\.\/transport\/index\.js'\); transport → engine \(src\/transport\/\S+\.ts:\d+ '\.\.\/engine\/index\.js'\)$/);
  });

  it('reports an import between peers of one layer, a type-only one included', () => {
    const findings = plant('src/metrics/planted.ts', "import type { TraceEvent } from '../trace/index.js';\n");
    expect(kindsFor(findings, 'src/metrics/planted.ts')).toEqual(['upward']);
    expect(findings[0].message).toContain('peers in one layer');
  });

  it('reports a deep import into another folder, even downward', () => {
    const findings = plant('src/session/planted.ts', "import { RetransmitQueue } from '../transport/retransmit-queue.js';\n");
    expect(messages(findings)).toEqual([
      "deep: src/session/planted.ts:1 reaches into transport's internals ('../transport/retransmit-queue.js'): import '../transport/index.js' instead",
    ]);
  });

  it('reports a deep import into a sub-folder index, and an export-from', () => {
    const findings = plant('src/cli/planted.ts', "export { DEFAULT_RULES } from '../live/conformance/index.js';\n");
    expect(kindsFor(findings, 'src/cli/planted.ts')).toEqual(['deep']);
  });

  it('reports a cycle between folders, naming each step', () => {
    // The transport importing the session closes a loop with the session's real imports of the transport.
    const findings = plant('src/transport/planted.ts', "import type { Summary } from '../session/index.js';\n");
    expect(kindsFor(findings, 'src/transport/planted.ts')).toEqual(['upward']);
    const cycles = findings.filter((f) => f.kind === 'cycle');
    expect(cycles).toHaveLength(1);
    expect(cycles[0].message).toMatch(/^folders import each other in a cycle: .*transport → session \(src\/transport\/planted\.ts:1 '\.\.\/session\/index\.js'\)/);
  });

  it('reports a cycle on its own, with a table that would allow each step', () => {
    const files: SourceText[] = [
      { path: 'src/a/index.ts', text: "export { b } from '../b/index.js';\n" },
      { path: 'src/b/index.ts', text: "export const b = 1;\nexport type { A } from '../c/index.js';\n" },
      { path: 'src/c/index.ts', text: "export type A = typeof import('../a/index.js');\n" },
    ];
    // Ranks that cannot hold: each folder placed above the one it imports, the loop closing back upward.
    const findings = checkLayers(files, [['c'], ['b'], ['a']]);
    expect(findings.map((f) => f.kind).sort()).toEqual(['cycle', 'upward']);
    expect(findings.find((f) => f.kind === 'cycle')?.message).toBe(
      "folders import each other in a cycle: a → b (src/a/index.ts:1 '../b/index.js'); b → c (src/b/index.ts:2 '../c/index.js'); c → a (src/c/index.ts:1 '../a/index.js')",
    );
  });

  it('reports a dynamic import upward, and a folder importing its own index.ts', () => {
    const findings = plant('src/trace/planted.ts', "import { TraceCollector } from './index.js';\nexport async function f() {\n  return import('../cli/index.js');\n}\n");
    expect(kindsFor(findings, 'src/trace/planted.ts')).toEqual(['own-index', 'upward']);
  });

  it('reports a folder that is in no layer, and one without an index.ts', () => {
    const findings = plant('src/newfolder/thing.ts', "import { Simulator } from '../engine/index.js';\n");
    expect(kindsFor(findings, 'src/newfolder')).toEqual(['unknown-folder', 'missing-index']);
  });

  it('reports an import from outside src/', () => {
    const findings = plant('src/report/planted.ts', "import pkg from '../../package.json';\n");
    expect(kindsFor(findings, 'src/report/planted.ts')).toEqual(['outside-src']);
  });

  it('lets the library surface import any folder index.ts, and anything read the version', () => {
    expect(plant('src/engine/planted.ts', "import { VERSION } from '../version.js';\n")).toEqual([]);
    expect(plant('src/planted-surface.ts', "export * from './cli/index.js';\n").map((f) => f.kind)).toEqual(['unknown-folder']);
    const surface = (text: string) => checkLayers([...SRC.filter((f) => f.path !== 'src/index.ts'), { path: 'src/index.ts', text }]).filter((f) => !baseline.has(`${f.kind}: ${f.message}`));
    expect(surface("export * from './cli/index.js';\nexport * from './engine/index.js';\n")).toEqual([]);
    expect(surface("export { runCli } from './cli/program.js';\n").map((f) => f.kind)).toEqual(['deep']);
    expect(plant('src/cli/planted.ts', "import * as bcsim from '../index.js';\n").map((f) => f.kind)).toEqual(['upward', 'cycle']);
  });
});
