// The layers of src/ and the checker that enforces them (issue 17, item 1).
// The checker works on an in-memory list of (path, text), so the test can feed
// it planted violations without writing a file.
import { posix } from 'node:path';
import ts from 'typescript';

/**
 * The layers, bottom to top. A folder may import a folder of a lower band only,
 * never one of its own band or a higher one; folders in one band are peers that
 * know nothing of each other. Every folder under src/ must be placed here: the
 * check fails on a folder it does not know, so a new folder is placed on purpose.
 * Two entries are files at the top of src/, not folders: version.ts (the bottom:
 * anything may read the version) and index.ts (the library surface: it may
 * import any folder's index.ts, and nothing may import it).
 */
export const LAYERS: ReadonlyArray<readonly string[]> = [
  ['version.ts'],
  // The event engine (clock, heap, seeded streams: knows nothing of BC) and the pure BC codec.
  ['engine', 'codec'],
  // Packet captures with no BC knowledge: pcap and pcapng read and written, frames (they read the engine's time units).
  ['pcap'],
  // Link models, shared by both transport models.
  ['link'],
  // The two transport models, peers: the BC transport and the R-Type scheme (issue 16).
  // Neither may import the other, so no `if (rtype)` can reach BC's transport.
  ['transport', 'rtype'],
  // The BC workload (join script, arrivals, event mix), driven through the transport's port.
  ['traffic'],
  // The scenario: schema, defaults, --set, built-ins; the grid of scenario variants.
  ['scenario'],
  // One BC session: engine, peers, links and traffic wired together; ledger, trace hash, summary.
  ['session'],
  // Observers of a session: the per-second metrics recorder and the wire trace.
  ['metrics', 'trace'],
  // The R-Type session: the session layer of the R-Type model, above the shared
  // ledger (session) and metrics it builds on, below everything that runs or reports it.
  ['rtype-session'],
  // The bug reproductions (they read the trace and the metrics), and, their peer, the
  // scheme scenarios (issue 16): rtype-deaths, and schemes-side-by-side, which runs one
  // workload through a BC session and an R-Type session (so above both) for the reports.
  ['reproduce', 'schemes'],
  // Reports: tables, summary.json, CSV, Markdown, HTML; atomic writes and output paths
  // (they render the reproductions' results).
  ['report'],
  // Expectations, seed lists, --fail-on, determinism, JUnit (written with the report's writer).
  ['check'],
  // Sweeps: the grid on worker threads, evaluated with check's expectations, summarised with report's tables.
  ['sweep'],
  // BC in captures: a run written as pcapng, captures classified and analysed (against the reproductions' signatures); the swarm.
  ['capture', 'swarm'],
  // Shrinking a swarm failure (with its capture).
  ['shrink'],
  // Live mode: the wall clock, UDP, the proxy and the real-time peer.
  ['live'],
  // The command line.
  ['cli'],
  // The library's API.
  ['index.ts'],
];

export interface SourceText {
  /** Path from the repository root, with forward slashes: `src/session/run.ts`. */
  readonly path: string;
  readonly text: string;
}

export type FindingKind = 'unknown-folder' | 'missing-index' | 'upward' | 'deep' | 'own-index' | 'outside-src' | 'cycle';

export interface Finding {
  readonly kind: FindingKind;
  readonly file: string;
  readonly message: string;
}

export interface ModuleReference {
  readonly specifier: string;
  readonly line: number;
  readonly how: 'import' | 'export-from' | 'dynamic-import' | 'import-type';
}

const parsed = new Map<string, ModuleReference[]>();

/** Every module specifier in a file: import and export-from declarations (type-only ones too), `import('…')` and `import('…').Type`. */
export function moduleReferences(path: string, text: string): ModuleReference[] {
  const key = `${path}\0${text}`;
  const known = parsed.get(key);
  if (known !== undefined) return known;
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const found: ModuleReference[] = [];
  const add = (literal: ts.StringLiteral, how: ModuleReference['how']) =>
    found.push({ specifier: literal.text, line: source.getLineAndCharacterOfPosition(literal.getStart(source)).line + 1, how });
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) add(node.moduleSpecifier, 'import');
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) add(node.moduleSpecifier, 'export-from');
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression))
      add(node.moduleReference.expression, 'import');
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments.length > 0 && ts.isStringLiteralLike(node.arguments[0]))
      add(node.arguments[0] as ts.StringLiteral, 'dynamic-import');
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) add(node.argument.literal, 'import-type');
    ts.forEachChild(node, visit);
  };
  visit(source);
  parsed.set(key, found);
  return found;
}

/** The folder (or top-level file) a path under src/ belongs to: `src/live/peer/x.ts` → `live`, `src/index.ts` → `index.ts`. */
function unitOf(path: string): string | null {
  if (!path.startsWith('src/')) return null;
  const rest = path.slice('src/'.length);
  const slash = rest.indexOf('/');
  return slash === -1 ? rest.replace(/\.js$/, '.ts') : rest.slice(0, slash);
}

const isFolder = (unit: string) => !unit.endsWith('.ts');

/** Check every reference between folders of src/ against the layer table; an empty list means the layering holds. */
export function checkLayers(files: readonly SourceText[], layers: ReadonlyArray<readonly string[]> = LAYERS): Finding[] {
  const rank = new Map<string, number>();
  layers.forEach((band, i) => band.forEach((unit) => rank.set(unit, i)));
  const bandOf = (unit: string) => layers[rank.get(unit) as number].join(', ');
  const findings: Finding[] = [];
  const units = new Set<string>();
  const paths = new Set(files.map((f) => f.path));
  // Folder → folder → the first reference that makes the edge (for the cycle report).
  const edges = new Map<string, Map<string, string>>();

  for (const { path, text } of files) {
    const from = unitOf(path);
    if (from === null) continue;
    units.add(from);
    for (const ref of moduleReferences(path, text)) {
      if (!ref.specifier.startsWith('.')) continue; // a package or node: module
      const where = `${path}:${ref.line}`;
      const target = posix.normalize(posix.join(posix.dirname(path), ref.specifier));
      const to = unitOf(target);
      if (to === null) {
        findings.push({ kind: 'outside-src', file: path, message: `${where} imports '${ref.specifier}', outside src/` });
        continue;
      }
      if (to === from) {
        const ownIndex = `src/${from}/index.js`;
        if (isFolder(from) && target === ownIndex && path !== `src/${from}/index.ts`)
          findings.push({ kind: 'own-index', file: path, message: `${where} imports its own folder's index.ts ('${ref.specifier}'): inside a folder, import the file itself` });
        continue;
      }
      if (!edges.has(from)) edges.set(from, new Map());
      const out = edges.get(from) as Map<string, string>;
      if (!out.has(to)) out.set(to, `${where} '${ref.specifier}'`);
      if (isFolder(to) && target !== `src/${to}/index.js`)
        findings.push({ kind: 'deep', file: path, message: `${where} reaches into ${to}'s internals ('${ref.specifier}'): import '${posix.relative(posix.dirname(path), `src/${to}/index.js`)}' instead` });
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

  for (const unit of [...units].sort()) {
    if (!rank.has(unit)) findings.push({ kind: 'unknown-folder', file: `src/${unit}`, message: `src/${unit} is in no layer: place it in the LAYERS table (test/layering/layers.ts)` });
    if (isFolder(unit) && !paths.has(`src/${unit}/index.ts`))
      findings.push({ kind: 'missing-index', file: `src/${unit}`, message: `src/${unit} has no index.ts: a folder exports its public surface from one index.ts` });
  }

  for (const cycle of folderCycles(edges)) {
    const steps = cycle.map((unit, i) => `${unit} → ${cycle[(i + 1) % cycle.length]} (${edges.get(unit)?.get(cycle[(i + 1) % cycle.length])})`);
    findings.push({ kind: 'cycle', file: `src/${cycle[0]}`, message: `folders import each other in a cycle: ${steps.join('; ')}` });
  }
  return findings;
}

/** The cycles between folders: each strongly connected set of two or more, as one loop through it (Tarjan, then a walk). */
function folderCycles(edges: ReadonlyMap<string, ReadonlyMap<string, string>>): string[][] {
  const next = (unit: string) => [...(edges.get(unit)?.keys() ?? [])].sort();
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
  // One loop per component: from its first folder, walk inside the component back to the start (breadth-first, shortest).
  return components.map((component) => {
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
  });
}
