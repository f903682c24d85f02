// Boundaries a test enforces. Every import between folders of src/ goes through
// the other folder's index.ts, downward in the layer table (layer-table.ts), and
// neither folders nor files ever import each other in a cycle.
// The checker reads the source text (import, export-from, import('…')), so type-only
// imports count: a type from a higher layer is an upward dependency too, and two files
// that need each other's types cannot be read, moved or split one without the other.
// The planted cases name folders by a file they hold, so they read the same whatever
// group a folder sits in.
import { readFileSync, readdirSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APART, LAYERS, checkLayers, groupOf, tableProblems, unitOf } from './layers.js';
import type { Finding, SourceText } from './layers.js';

const ROOT = join(import.meta.dirname, '../..');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The .ts files under `root`/src, with paths from `root` (the repository, or a fixture folder shaped like one). */
const sources = (root: string): SourceText[] =>
  files(join(root, 'src')).map((file) => ({
    path: relative(root, file).split(sep).join('/'),
    text: readFileSync(file, 'utf8'),
  }));

const SRC = sources(ROOT);
const messages = (findings: readonly Finding[]) => findings.map((f) => `${f.kind}: ${f.message}`);
const kindsFor = (findings: readonly Finding[], file: string) =>
  findings.filter((f) => f.file === file).map((f) => f.kind);

/** The unit (folder) that holds `file`, found in src/: the planted cases do not spell out where a folder sits. */
function unitHolding(file: string): string {
  const holders = SRC.filter((f) => f.path.endsWith(`/${file}`));
  expect(holders, file).toHaveLength(1);
  return unitOf(holders[0].path) as string;
}
const rankOf = (unit: string) => LAYERS.findIndex((band) => band.includes(unit));
/** The specifier from a file of unit `from` to `path` under src/ (`index.js` of a unit, say). */
const spec = (from: string, path: string) => posix.relative(`src/${from}`, `src/${path}`);

const ENGINE = unitHolding('scheduler.ts');
const TRANSPORT = unitHolding('retransmit-queue.ts');
const SESSION = unitHolding('fan-out.ts');
const METRICS = unitHolding('trend.ts');
const TRACE = unitHolding('collector.ts');
const REPORT = unitHolding('atomic-write.ts');
const LIVE = unitHolding('wall-clock.ts');
const CLI = unitHolding('program.ts');

describe('the layers of src/', () => {
  it('every import between folders is downward, through the folder index.ts, and no folders or files import each other in a cycle', () => {
    expect(SRC.length).toBeGreaterThan(100);
    expect(messages(checkLayers(SRC))).toEqual([]);
  });

  it('every folder of src/ is in the layer table, once; each group holds its bands together', () => {
    const placed = LAYERS.flat();
    expect(tableProblems()).toEqual([]);
    const groups = new Set(placed.filter((unit) => unit.includes('/')).map(groupOf));
    const folders = readdirSync(join(ROOT, 'src'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .flatMap((e) =>
        groups.has(e.name)
          ? readdirSync(join(ROOT, 'src', e.name), { withFileTypes: true })
              .filter((s) => s.isDirectory())
              .map((s) => `${e.name}/${s.name}`)
          : [e.name],
      );
    expect(folders.filter((f) => !placed.includes(f))).toEqual([]);
    expect(placed.filter((unit) => unit.endsWith('.ts') || folders.includes(unit)).sort()).toEqual([...placed].sort());
  });
});

describe('the layering check can fail (planted in memory, never on disk)', () => {
  // Only what the planted file adds is compared: the tree itself is checked above.
  const baseline = new Set(messages(checkLayers(SRC)));
  const plant = (path: string, text: string) =>
    checkLayers([...SRC, { path, text }]).filter((f) => !baseline.has(`${f.kind}: ${f.message}`));

  it('reports an upward import: the engine importing the transport', () => {
    const path = `src/${ENGINE}/planted.ts`;
    const target = spec(ENGINE, `${TRANSPORT}/index.js`);
    const findings = plant(path, `import { PeerTransport } from '${target}';\n`);
    expect(findings.map((f) => f.kind)).toEqual(['upward', 'cycle']);
    expect(findings[0].message).toBe(
      `${path}:1 imports '${target}': ${ENGINE} (layer ${rankOf(ENGINE)}) may not import ${TRANSPORT} (layer ${rankOf(TRANSPORT)}, higher)`,
    );
    // The transport's real imports of the engine close the loop.
    expect(findings[1].message).toContain(
      `folders import each other in a cycle: ${ENGINE} → ${TRANSPORT} (${path}:1 '${target}'); ${TRANSPORT} → ${ENGINE} (src/${TRANSPORT}/`,
    );
  });

  it('reports an import between peers of one layer, a type-only one included', () => {
    const path = `src/${METRICS}/planted.ts`;
    const findings = plant(path, `import type { TraceEvent } from '${spec(METRICS, `${TRACE}/index.js`)}';\n`);
    expect(kindsFor(findings, path)).toEqual(['upward']);
    expect(findings[0].message).toContain('peers in one layer');
  });

  it('reports an import between units kept apart, though their layers would allow it', () => {
    const [a, b] = APART[0];
    const [low, high] = rankOf(a) < rankOf(b) ? [a, b] : [b, a];
    const path = `src/${high}/planted.ts`;
    const findings = plant(path, `import type { Thing } from '${spec(high, `${low}/index.js`)}';\n`);
    expect(kindsFor(findings, path)).toContain('apart');
    expect(findings.find((f) => f.kind === 'apart')?.message).toContain(`${high} and ${low} are kept apart`);
  });

  it('reports a deep import into another folder, even downward', () => {
    const path = `src/${SESSION}/planted.ts`;
    const target = spec(SESSION, `${TRANSPORT}/retransmit-queue.js`);
    const findings = plant(path, `import { RetransmitQueue } from '${target}';\n`);
    expect(messages(findings)).toEqual([
      `deep: ${path}:1 reaches into ${TRANSPORT}'s internals ('${target}'): import '${spec(SESSION, `${TRANSPORT}/index.js`)}' instead`,
    ]);
  });

  it('reports a deep import into a sub-folder index, and an export-from', () => {
    const path = `src/${CLI}/planted.ts`;
    const findings = plant(path, `export { DEFAULT_RULES } from '${spec(CLI, `${LIVE}/conformance/index.js`)}';\n`);
    expect(kindsFor(findings, path)).toEqual(['deep']);
  });

  it('reports a cycle between folders, naming each step', () => {
    // The transport importing the session closes a loop with the session's real imports of the transport.
    const path = `src/${TRANSPORT}/planted.ts`;
    const target = spec(TRANSPORT, `${SESSION}/index.js`);
    const findings = plant(path, `import type { Summary } from '${target}';\n`);
    expect(kindsFor(findings, path)).toEqual(['upward']);
    const cycles = findings.filter((f) => f.kind === 'cycle');
    expect(cycles).toHaveLength(1);
    expect(cycles[0].message).toContain(`${TRANSPORT} → ${SESSION} (${path}:1 '${target}')`);
  });

  it('reports a cycle on its own, with a table that would allow each step', () => {
    const files: SourceText[] = [
      { path: 'src/a/index.ts', text: "export { b } from '../b/index.js';\n" },
      { path: 'src/b/index.ts', text: "export const b = 1;\nexport type { A } from '../c/index.js';\n" },
      { path: 'src/c/index.ts', text: "export type A = typeof import('../a/index.js');\n" },
    ];
    // Ranks that cannot hold: each folder placed above the one it imports, the loop closing back upward.
    const findings = checkLayers(files, [['c'], ['b'], ['a']], []);
    expect(findings.map((f) => f.kind).sort()).toEqual(['cycle', 'file-cycle', 'upward']);
    expect(findings.find((f) => f.kind === 'cycle')?.message).toBe(
      "folders import each other in a cycle: a → b (src/a/index.ts:1 '../b/index.js'); b → c (src/b/index.ts:2 '../c/index.js'); c → a (src/c/index.ts:1 '../a/index.js')",
    );
  });

  it('reports a dynamic import upward, and a folder importing its own index.ts', () => {
    const path = `src/${TRACE}/planted.ts`;
    const findings = plant(
      path,
      `import { TraceCollector } from './index.js';\nexport async function f() {\n  return import('${spec(TRACE, `${CLI}/index.js`)}');\n}\n`,
    );
    expect(kindsFor(findings, path)).toEqual(['own-index', 'upward']);
  });

  it('reports a folder that is in no layer, and one without an index.ts', () => {
    const findings = plant(
      'src/newfolder/thing.ts',
      `import { Simulator } from '${spec('newfolder', `${ENGINE}/index.js`)}';\n`,
    );
    expect(kindsFor(findings, 'src/newfolder')).toEqual(['unknown-folder', 'missing-index']);
  });

  it('reports an import from outside src/', () => {
    const path = `src/${REPORT}/planted.ts`;
    const findings = plant(path, `import pkg from '${posix.relative(`src/${REPORT}`, 'package.json')}';\n`);
    expect(kindsFor(findings, path)).toEqual(['outside-src']);
  });

  it('lets the library surface import any folder index.ts, and anything read the version', () => {
    expect(plant(`src/${ENGINE}/planted.ts`, `import { VERSION } from '${spec(ENGINE, 'version.js')}';\n`)).toEqual([]);
    expect(plant('src/planted-surface.ts', `export * from './${CLI}/index.js';\n`).map((f) => f.kind)).toEqual([
      'unknown-folder',
    ]);
    const surface = (text: string) =>
      checkLayers([...SRC.filter((f) => f.path !== 'src/index.ts'), { path: 'src/index.ts', text }]).filter(
        (f) => !baseline.has(`${f.kind}: ${f.message}`),
      );
    expect(surface(`export * from './${CLI}/index.js';\nexport * from './${ENGINE}/index.js';\n`)).toEqual([]);
    expect(surface(`export { runCli } from './${CLI}/program.js';\n`).map((f) => f.kind)).toEqual(['deep']);
    expect(
      plant(`src/${CLI}/planted.ts`, `import * as bcsim from '${spec(CLI, 'index.js')}';\n`).map((f) => f.kind),
    ).toEqual(['upward', 'cycle']);
  });
});

describe('the file-cycle check can fail (a fixture folder on disk)', () => {
  // test/layering/fixtures/file-cycle/src/one: a.ts imports b.ts for a value, b.ts imports a.ts for a type.
  const fixture = sources(join(import.meta.dirname, 'fixtures/file-cycle'));

  it('reports two files of one folder that import each other, a type-only import closing the loop', () => {
    expect(fixture.map((f) => f.path).sort()).toEqual(['src/one/a.ts', 'src/one/b.ts', 'src/one/index.ts']);
    expect(messages(checkLayers(fixture, [['one']], []))).toEqual([
      "file-cycle: files import each other in a cycle: src/one/a.ts → src/one/b.ts (src/one/a.ts:2 './b.js'); src/one/b.ts → src/one/a.ts (src/one/b.ts:2 './a.js')",
    ]);
  });

  it('is silent once either import goes', () => {
    const without = (path: string) =>
      fixture.map((f) => (f.path === path ? { path, text: f.text.replace(/^import .*$/m, '') } : f));
    expect(checkLayers(without('src/one/b.ts'), [['one']], [])).toEqual([]);
    expect(checkLayers(without('src/one/a.ts'), [['one']], []).filter((f) => f.kind === 'file-cycle')).toEqual([]);
  });

  it('finds a longer loop through a dynamic import, across folders, and names each step', () => {
    const files: SourceText[] = [
      { path: 'src/one/index.ts', text: "export { x } from './x.js';\n" },
      { path: 'src/one/x.ts', text: "export const x = 1;\nexport const load = () => import('./y.js');\n" },
      { path: 'src/one/y.ts', text: "import { z } from './z.js';\nexport const y = z;\n" },
      { path: 'src/one/z.ts', text: "import { x } from './x.js';\nexport const z = x;\n" },
    ];
    expect(messages(checkLayers(files, [['one']], []))).toEqual([
      "file-cycle: files import each other in a cycle: src/one/x.ts → src/one/y.ts (src/one/x.ts:2 './y.js'); src/one/y.ts → src/one/z.ts (src/one/y.ts:1 './z.js'); src/one/z.ts → src/one/x.ts (src/one/z.ts:1 './x.js')",
    ]);
  });
});

describe('units in groups', () => {
  const table = [['core/engine', 'core/codec'], ['core/pcap'], ['model/link'], ['live'], ['index.ts']];

  it('a path belongs to the longest unit it lies in; an unknown folder of a group is named with its group', () => {
    const units = table.flat();
    expect(unitOf('src/core/engine/time.ts', units)).toBe('core/engine');
    expect(unitOf('src/live/peer/x.ts', units)).toBe('live');
    expect(unitOf('src/index.ts', units)).toBe('index.ts');
    expect(unitOf('src/core/newthing/x.ts', units)).toBe('core/newthing');
    expect(unitOf('src/other/x.ts', units)).toBe('other');
    expect(unitOf('test/x.ts', units)).toBeNull();
  });

  it('checks imports between grouped folders by band, and deep imports by the unit index', () => {
    const files: SourceText[] = [
      { path: 'src/core/engine/index.ts', text: 'export const e = 1;\n' },
      { path: 'src/core/pcap/index.ts', text: "export { e } from '../engine/index.js';\n" },
      {
        path: 'src/model/link/index.ts',
        text: "import { e } from '../../core/engine/time.js';\nexport const l = e;\n",
      },
      { path: 'src/core/codec/index.ts', text: "export type { l } from '../../model/link/index.js';\n" },
    ];
    expect(messages(checkLayers(files, table, []))).toEqual([
      "deep: src/model/link/index.ts:1 reaches into core/engine's internals ('../../core/engine/time.js'): import '../../core/engine/index.js' instead",
      "upward: src/core/codec/index.ts:1 imports '../../model/link/index.js': core/codec (layer 0) may not import model/link (layer 2, higher)",
    ]);
  });

  it('a table is refused when a band spans groups, a group is split, or a unit is placed twice', () => {
    expect(tableProblems(table)).toEqual([]);
    expect(tableProblems([['core/engine', 'model/link']])).toEqual([
      'the band [core/engine, model/link] spans groups: a band orders folders inside one group',
    ]);
    expect(tableProblems([['core/engine'], ['model/link'], ['core/pcap']])).toEqual([
      'group core is split: its bands must be next to each other',
    ]);
    expect(tableProblems([['live'], ['live']])).toEqual(['live is placed more than once']);
    expect(tableProblems([['live', 'cli']])).toEqual([]);
    expect(tableProblems([['live', 'core/engine']])).toEqual([
      'the band [live, core/engine] spans groups: a band orders folders inside one group',
    ]);
  });
});
