// Citations in shipped text must name something that ships: an item of docs/sources.md, a docs page
// and its heading, a README section. The project's private notes (the decisions file) do not ship.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { anchors, slug } from './markdown-anchors.js';

/** What a citation can point at: the items of docs/sources.md, the docs pages' anchors, the README's. */
export interface CitationTargets {
  sourceItems: ReadonlySet<string>;
  /** `docs/<page>.md` → its anchors. */
  pages: ReadonlyMap<string, ReadonlySet<string>>;
  readmeAnchors: ReadonlySet<string>;
}

/** The item ids of docs/sources.md: `- **N.` or `- **T1.` at the start of a line. */
function sourceItems(text: string): Set<string> {
  return new Set([...text.matchAll(/^- \*\*(\d+|[A-Z]\d+)\./gm)].map((m) => m[1]));
}

/** The targets as the repository at `root` has them. */
export function citationTargets(root: string): CitationTargets {
  const pages = new Map<string, Set<string>>();
  for (const f of readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')))
    pages.set(`docs/${f}`, anchors(readFileSync(join(root, 'docs', f), 'utf8')));
  return {
    sourceItems: sourceItems(readFileSync(join(root, 'docs/sources.md'), 'utf8')),
    pages,
    readmeAnchors: anchors(readFileSync(join(root, 'README.md'), 'utf8')),
  };
}

const ITEM = String.raw`(?:\d+(?:\.\d+)?|[A-Z]\d+)(?![\w.])`;
/** `docs/sources.md 25, 27`, `docs/sources.md 8–10`, `docs/sources.md) item 33`, wrapped comments too. */
const SOURCES_CITATION = new RegExp(
  String.raw`docs/sources\.md\)?(?:\s*(?:\*|//|--)?\s+)(?:items?\s+)?(${ITEM}(?:\s*(?:,|and|or|–|-)\s*${ITEM})*)`,
  'g',
);
/** One of our docs pages (not a path into another project's docs/ tree), with its anchor. */
const PAGE_REFERENCE = /(?<![\w/.-])docs\/([\w-]+\.md)(?:#([\w-]+))?/g;
/** `README "Section"` (a comment may wrap between the two) or `README.md#anchor`. */
const README_SECTION = /(?<![\w/.-])README(?:\.md)?\s*(?:\*|\/\/|--)?\s*"([^"\n]+)"/g;
const README_ANCHOR = /(?<![\w/.-])README(?:\.md)?#([\w-]+)/g;

/** Every item a citation's list names, ranges expanded where both ends are numbers. */
function citedItems(list: string): string[] {
  const out: string[] = [];
  for (const part of list.split(/\s*(?:,|and|or)\s*/)) {
    const range = /^(\d+)\s*[–-]\s*(\d+)$/.exec(part);
    if (range) for (let n = Number(range[1]); n <= Number(range[2]); n++) out.push(String(n));
    else out.push(...part.split(/\s*[–-]\s*/).map((p) => p.split('.')[0]));
  }
  return out.filter((p) => p !== '');
}

/** What is wrong with the citations of one file's text, each as "file:line: problem". */
export function citationProblems(file: string, text: string, targets: CitationTargets): string[] {
  const problems: string[] = [];
  const at = (index: number, problem: string) =>
    problems.push(`${file}:${text.slice(0, index).split('\n').length}: ${problem}`);
  for (const m of text.matchAll(/DECISIONS(?:\.md)?/g))
    at(m.index, `cites ${m[0]}, which does not ship: cite docs/sources.md N`);
  for (const m of text.matchAll(SOURCES_CITATION))
    for (const item of citedItems(m[1]))
      if (!targets.sourceItems.has(item)) at(m.index, `docs/sources.md has no item ${item} ("${m[0]}")`);
  for (const m of text.matchAll(PAGE_REFERENCE)) {
    const page = `docs/${m[1]}`;
    const pageAnchors = targets.pages.get(page);
    if (!pageAnchors) at(m.index, `no page ${page}`);
    else if (m[2] !== undefined && !pageAnchors.has(m[2])) at(m.index, `no heading #${m[2]} in ${page}`);
  }
  for (const m of text.matchAll(README_SECTION))
    if (!targets.readmeAnchors.has(slug(m[1]))) at(m.index, `README has no section "${m[1]}"`);
  for (const m of text.matchAll(README_ANCHOR))
    if (!targets.readmeAnchors.has(m[1])) at(m.index, `README has no heading #${m[1]}`);
  return problems;
}

const TEXT_FILE = /\.(ts|md|html|json|csv|txt|svg|xml|lua|ya?ml)$/;

/** The shipped text files under `dirs` (recursively) and the single `files`, relative to `root`. */
export function shippedTextFiles(root: string, dirs: readonly string[], files: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(path);
      else if (TEXT_FILE.test(e.name)) out.push(path);
    }
  };
  for (const d of dirs) if (existsSync(join(root, d))) walk(d);
  return [...out, ...files];
}
