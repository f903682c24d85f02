// The documentation holds together: every relative link in README.md, CONTRIBUTING.md and
// docs/*.md (and the bench and dissector READMEs) names a file that exists and, with a #fragment,
// a heading of that file; the README stays a front page; and the pages state facts in the
// project's own words instead of citing ticket numbers or the specification's decision numbers,
// which the package does not ship.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { anchors } from '../support/markdown-anchors.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const PAGES = [
  'README.md',
  'CONTRIBUTING.md',
  'bench/README.md',
  'dissector/README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const README_MAX_LINES = 300;

/** The text outside fenced code blocks and inline code spans (links in code are not links). */
function prose(text: string): string {
  return text.replace(/^ {0,3}(```|~~~)[^\n]*\n[\s\S]*?^ {0,3}\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** The relative links of a page: `[text](target)`, targets without a scheme. */
export function relativeLinks(text: string): string[] {
  const out: string[] = [];
  for (const m of prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = m[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    out.push(target);
  }
  return out;
}

/** What is wrong with one link from `page`, or null. */
function brokenLink(page: string, target: string): string | null {
  const [path, fragment] = target.split('#', 2) as [string, string | undefined];
  const file = path === '' ? join(ROOT, page) : join(ROOT, dirname(page), decodeURIComponent(path));
  if (!existsSync(file)) return `${target}: no file ${relative(ROOT, file)}`;
  if (fragment === undefined) return null;
  if (statSync(file).isDirectory() || !file.endsWith('.md'))
    return `${target}: a #fragment on something that is not a markdown file`;
  return anchors(readFileSync(file, 'utf8')).has(fragment)
    ? null
    : `${target}: no heading "${fragment}" in ${relative(ROOT, file)}`;
}

describe('the documentation', () => {
  it.each(PAGES)('%s: every relative link and anchor resolves', (page) => {
    const links = relativeLinks(readFileSync(join(ROOT, page), 'utf8'));
    const broken = links.map((l) => brokenLink(page, l)).filter((b): b is string => b !== null);
    expect(broken).toEqual([]);
  });

  it('links every docs/ page from the README', () => {
    const readme = relativeLinks(readFileSync(join(ROOT, 'README.md'), 'utf8')).map((l) => l.split('#')[0]);
    const pages = PAGES.filter((p) => p.startsWith('docs/'));
    expect(pages.length).toBeGreaterThanOrEqual(10);
    expect(pages.filter((p) => !readme.includes(p))).toEqual([]);
  });

  it(`keeps the README a front page of at most ${README_MAX_LINES} lines`, () => {
    const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length;
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it.each(PAGES)('%s: states facts without ticket numbers or decision-file numbers', (page) => {
    const text = readFileSync(join(ROOT, page), 'utf8');
    const hits = text
      .split('\n')
      .flatMap((line, i) => (/\bissue \d+|DECISIONS\.md,? \d/i.test(line) ? [`${page}:${i + 1}: ${line.trim()}`] : []));
    expect(hits).toEqual([]);
  });
});

describe('the link checker', () => {
  it('makes the anchors GitHub makes', () => {
    const page = [
      '# Reading captures: decode and analyze',
      '## `bcsim compare rtype-deaths`',
      '## Notes',
      '## Notes',
      '```',
      '# not a heading',
      '```',
    ].join('\n');
    expect([...anchors(page)]).toEqual([
      'reading-captures-decode-and-analyze',
      'bcsim-compare-rtype-deaths',
      'notes',
      'notes-1',
    ]);
  });

  it('finds relative links in prose only, across line breaks', () => {
    const page =
      'See [the\ncaptures](docs/captures.md#trace), [a site](https://example.org) and `[code](x.md)`.\n```\n[fenced](y.md)\n```\n';
    expect(relativeLinks(page)).toEqual(['docs/captures.md#trace']);
  });

  it('reports a missing file and a missing heading', () => {
    expect(brokenLink('README.md', 'docs/nothing-here.md')).toMatch(/no file docs\/nothing-here\.md/);
    expect(brokenLink('README.md', 'docs/captures.md#no-such-heading')).toMatch(/no heading "no-such-heading"/);
    expect(brokenLink('README.md', 'docs/captures.md#trace')).toBeNull();
  });
});
