// The checker that enforces the layers of src/ (layer-table.ts) and that no two
// files import each other in a cycle. It works on an in-memory list of (path,
// text), so a test can feed it planted violations, or a fixture folder, without
// touching src/.
import { posix } from 'node:path';
import ts from 'typescript';
import { APART, LAYERS } from './layer-table.js';

export { APART, LAYERS };

export interface SourceText {
  /** Path from the repository root, with forward slashes: `src/model/session/run.ts`. */
  readonly path: string;
  readonly text: string;
}

type FindingKind =
  | 'unknown-folder'
  | 'missing-index'
  | 'upward'
  | 'apart'
  | 'deep'
  | 'own-index'
  | 'outside-src'
  | 'cycle'
  | 'file-cycle';

export interface Finding {
  readonly kind: FindingKind;
  readonly file: string;
  readonly message: string;
}

interface ModuleReference {
  readonly specifier: string;
  readonly line: number;
  readonly how: 'import' | 'export-from' | 'dynamic-import' | 'import-type';
}

const parsed = new Map<string, ModuleReference[]>();

/** Every module specifier in a file: import and export-from declarations (type-only ones too), `import('…')` and `import('…').Type`. */
function moduleReferences(path: string, text: string): ModuleReference[] {
  const key = `${path}\0${text}`;
  const known = parsed.get(key);
  if (known !== undefined) return known;
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const found: ModuleReference[] = [];
  const add = (literal: ts.StringLiteral, how: ModuleReference['how']) =>
    found.push({
      specifier: literal.text,
      line: source.getLineAndCharacterOfPosition(literal.getStart(source)).line + 1,
      how,
    });
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) add(node.moduleSpecifier, 'import');
    else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    )
      add(node.moduleSpecifier, 'export-from');
    else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    )
      add(node.moduleReference.expression, 'import');
    else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments.length > 0 &&
      ts.isStringLiteralLike(node.arguments[0])
    )
      add(node.arguments[0] as ts.StringLiteral, 'dynamic-import');
    else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    )
      add(node.argument.literal, 'import-type');
    ts.forEachChild(node, visit);
  };
  visit(source);
  parsed.set(key, found);
  return found;
}

const isFolder = (unit: string) => !unit.endsWith('.ts');

/** The group a unit belongs to: `core/engine` → `core`; a unit outside any group is its own. */
export const groupOf = (unit: string) => unit.split('/')[0];

/**
 * The unit a path under src/ belongs to, for a table of units: the longest unit the
 * path lies in (`src/live/peer/x.ts` → `live`), a top-level file itself (`src/index.ts`).
 * A folder the table does not know is named by its first folder, or by its first two
 * when the first is a group of the table (`src/core/new/x.ts` → `core/new`).
 */
export function unitOf(path: string, units: readonly string[] = LAYERS.flat()): string | null {
  if (!path.startsWith('src/')) return null;
  const rest = path.slice('src/'.length);
  const segments = rest.split('/');
  if (segments.length === 1) return rest.replace(/\.js$/, '.ts');
  let best: string | null = null;
  for (const unit of units)
    if (isFolder(unit) && rest.startsWith(`${unit}/`) && (best === null || unit.length > best.length)) best = unit;
  if (best !== null) return best;
  const isGroup = units.some((unit) => unit.includes('/') && groupOf(unit) === segments[0]);
  return isGroup && segments.length > 2 ? `${segments[0]}/${segments[1]}` : segments[0];
}

/**
 * What is wrong with a layer table itself: a unit placed twice, a band that mixes a
 * group's folders with others, a group whose bands are not next to each other.
 * Folders outside any group (live, cli) each stand alone.
 */
export function tableProblems(layers: ReadonlyArray<readonly string[]> = LAYERS): string[] {
  const problems: string[] = [];
  const placed = layers.flat();
  for (const unit of new Set(placed.filter((u, i) => placed.indexOf(u) !== i)))
    problems.push(`${unit} is placed more than once`);
  const groups: string[] = [];
  layers.forEach((band, i) => {
    const inBand = [...new Set(band.map((unit) => (unit.includes('/') ? groupOf(unit) : `#${i}`)))];
    if (inBand.length > 1)
      problems.push(`the band [${band.join(', ')}] spans groups: a band orders folders inside one group`);
    const group = inBand[0];
    if (groups.at(-1) !== group) {
      if (groups.includes(group)) problems.push(`group ${group} is split: its bands must be next to each other`);
      groups.push(group);
    }
  });
  return problems;
}

/** Check every reference in src/ against the layer table, and the files for import cycles; an empty list means all holds. */
export function checkLayers(
  files: readonly SourceText[],
  layers: ReadonlyArray<readonly string[]> = LAYERS,
  apart: ReadonlyArray<readonly [string, string]> = APART,
): Finding[] {
  const units = layers.flat();
  const rank = new Map<string, number>();
  layers.forEach((band, i) => band.forEach((unit) => rank.set(unit, i)));
  const bandOf = (unit: string) => layers[rank.get(unit) as number].join(', ');
  const isApart = (a: string, b: string) => apart.some(([x, y]) => (x === a && y === b) || (x === b && y === a));
  const findings: Finding[] = [];
  const seen = new Set<string>();
  const paths = new Set(files.map((f) => f.path));
  // Unit → unit → the first reference that makes the edge (for the cycle report); the same between files.
  const edges = new Map<string, Map<string, string>>();
  const fileEdges = new Map<string, Map<string, string>>();
  const addEdge = (graph: Map<string, Map<string, string>>, from: string, to: string, why: string) => {
    if (!graph.has(from)) graph.set(from, new Map());
    const out = graph.get(from) as Map<string, string>;
    if (!out.has(to)) out.set(to, why);
  };

  for (const { path, text } of files) {
    const from = unitOf(path, units);
    if (from === null) continue;
    seen.add(from);
    for (const ref of moduleReferences(path, text)) {
      if (!ref.specifier.startsWith('.')) continue; // a package or node: module
      const where = `${path}:${ref.line}`;
      const target = posix.normalize(posix.join(posix.dirname(path), ref.specifier));
      const targetFile = target.replace(/\.js$/, '.ts');
      if (paths.has(targetFile) && targetFile !== path)
        addEdge(fileEdges, path, targetFile, `${where} '${ref.specifier}'`);
      const to = unitOf(target, units);
      if (to === null) {
        findings.push({
          kind: 'outside-src',
          file: path,
          message: `${where} imports '${ref.specifier}', outside src/`,
        });
        continue;
      }
      if (to === from) {
        const ownIndex = `src/${from}/index.js`;
        if (isFolder(from) && target === ownIndex && path !== `src/${from}/index.ts`)
          findings.push({
            kind: 'own-index',
            file: path,
            message: `${where} imports its own folder's index.ts ('${ref.specifier}'): inside a folder, import the file itself`,
          });
        continue;
      }
      addEdge(edges, from, to, `${where} '${ref.specifier}'`);
      if (isFolder(to) && target !== `src/${to}/index.js`)
        findings.push({
          kind: 'deep',
          file: path,
          message: `${where} reaches into ${to}'s internals ('${ref.specifier}'): import '${posix.relative(posix.dirname(path), `src/${to}/index.js`)}' instead`,
        });
      if (isApart(from, to))
        findings.push({
          kind: 'apart',
          file: path,
          message: `${where} imports '${ref.specifier}': ${from} and ${to} are kept apart (layer-table.ts APART) and must not import each other`,
        });
      const rf = rank.get(from);
      const rt = rank.get(to);
      if (rf === undefined || rt === undefined) continue; // reported once below, as an unknown folder
      if (rt >= rf)
        findings.push({
          kind: 'upward',
          file: path,
          message:
            rt === rf
              ? `${where} imports '${ref.specifier}': ${from} and ${to} are peers in one layer (${bandOf(from)}) and must not import each other`
              : `${where} imports '${ref.specifier}': ${from} (layer ${rf}) may not import ${to} (layer ${rt}, higher)`,
        });
    }
  }

  for (const unit of [...seen].sort()) {
    if (!rank.has(unit))
      findings.push({
        kind: 'unknown-folder',
        file: `src/${unit}`,
        message: `src/${unit} is in no layer: place it in the LAYERS table (test/layering/layer-table.ts)`,
      });
    if (isFolder(unit) && !paths.has(`src/${unit}/index.ts`))
      findings.push({
        kind: 'missing-index',
        file: `src/${unit}`,
        message: `src/${unit} has no index.ts: a folder exports its public surface from one index.ts`,
      });
  }

  const steps = (graph: Map<string, Map<string, string>>, loop: string[]) =>
    loop.map(
      (node, i) => `${node} → ${loop[(i + 1) % loop.length]} (${graph.get(node)?.get(loop[(i + 1) % loop.length])})`,
    );
  for (const loop of cycles(edges))
    findings.push({
      kind: 'cycle',
      file: `src/${loop[0]}`,
      message: `folders import each other in a cycle: ${steps(edges, loop).join('; ')}`,
    });
  for (const loop of cycles(fileEdges))
    findings.push({
      kind: 'file-cycle',
      file: loop[0],
      message: `files import each other in a cycle: ${steps(fileEdges, loop).join('; ')}`,
    });
  return findings;
}

/** The cycles of a graph: each strongly connected set of two or more nodes, as one loop through it (Tarjan, then a walk). */
function cycles(edges: ReadonlyMap<string, ReadonlyMap<string, string>>): string[][] {
  const next = (node: string) => [...(edges.get(node)?.keys() ?? [])].sort();
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v) as number);
    stack.push(v);
    onStack.add(v);
    for (const w of next(v)) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) components.push(component);
    }
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) connect(v);
  // One loop per component: from its first node, walk inside the component back to the start (breadth-first, shortest).
  return components
    .map((component) => {
      const members = new Set(component);
      const start = [...component].sort()[0];
      const parent = new Map<string, string>();
      const queue = [start];
      while (queue.length > 0) {
        const v = queue.shift() as string;
        for (const w of next(v)) {
          if (!members.has(w)) continue;
          if (w === start) {
            const loop = [v];
            while (loop[0] !== start) loop.unshift(parent.get(loop[0]) as string);
            return loop;
          }
          if (!parent.has(w)) {
            parent.set(w, v);
            queue.push(w);
          }
        }
      }
      return component;
    })
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}
