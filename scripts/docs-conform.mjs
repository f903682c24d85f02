// Writes docs/conform.md's case and planted-bug tables from the case declarations
// (src/live/conform/cases/), between the page's markers. Run it through `npm run docs`.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { withConformTables } from '../dist/live/index.js';

const page = new URL('../docs/conform.md', import.meta.url);
const text = readFileSync(page, 'utf8');
const updated = withConformTables(text);
if (updated !== text) {
  const temporary = new URL('../docs/.conform.md.tmp', import.meta.url);
  writeFileSync(temporary, updated);
  renameSync(temporary, page);
}
