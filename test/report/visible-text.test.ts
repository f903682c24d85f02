// What a reader sees of every committed report.html, as Chromium lays it out
// (document.body.innerText): words, not the code's field names or Markdown.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COUNTER_SCHEMA } from '../../src/model/transport/index.js';
import { CHROMIUM, renderInChromium } from '../support/chromium.js';

/** The page's visible text: a probe appended to a copy writes innerText into the DOM. */
function visibleText(page: string): string {
  const probe = `<script>const p = document.createElement('pre'); p.id = 'text-probe';
p.textContent = JSON.stringify(document.body.innerText); document.body.append(p);</script>`;
  const { dom } = renderInChromium(page.replace('</body>', `${probe}</body>`));
  const json = dom.match(/<pre id="text-probe">([^<]*)<\/pre>/)?.[1];
  expect(json, 'the probe did not run').toBeDefined();
  return JSON.parse(
    (json as string)
      .replace(/&quot;/g, '"')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&'),
  ) as string;
}

const reports = readdirSync('reports', { withFileTypes: true })
  .filter((d) => d.isDirectory() && d.name !== 'experiments')
  .map((d) => d.name)
  .sort();

describe("the committed reports' visible text", () => {
  it('covers every report folder', () => {
    expect(CHROMIUM, "no /usr/bin/chromium: install Debian's chromium (.ci/run does)").toBeDefined();
    expect(reports).toContain('long-session');
    expect(reports).toContain('rtype-deaths');
  });

  it.each(reports)('%s: no backtick and no internal field name', (name) => {
    const page = readFileSync(join('reports', name, 'report.html'), 'utf8');
    const text = visibleText(page);
    expect(text.length).toBeGreaterThan(500);
    expect(text).not.toContain('`');
    // Field names: every chart's metric id, and the counter schema's names that are not words.
    const charted = [...page.matchAll(/data-metric="([^"]+)"/g)].map((m) => m[1]);
    expect(charted.length).toBeGreaterThan(0);
    const fields = [...new Set([...charted, ...COUNTER_SCHEMA.map((r) => r.name)])].filter((n) => /[A-Z]/.test(n));
    const leaked = fields.filter((f) => new RegExp(`\\b${f}\\b`).test(text));
    expect(leaked).toEqual([]);
    expect(text).not.toMatch(/\bpeers\.\w/);
  });
});
