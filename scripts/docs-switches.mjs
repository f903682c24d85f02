// Writes the switch table of docs/switches.md from the switch declarations
// (src/model/transport/switch-declarations.ts), between the page's markers.
// Run it through `npm run docs`, which builds first.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { withSwitchTable } from '../dist/model/transport/index.js';

const page = new URL('../docs/switches.md', import.meta.url);
const text = readFileSync(page, 'utf8');
const updated = withSwitchTable(text);
if (updated === null) {
  console.error('docs/switches.md: the switch table markers are missing');
  process.exit(2);
}
if (updated !== text) {
  const temporary = new URL('../docs/.switches.md.tmp', import.meta.url);
  writeFileSync(temporary, updated);
  renameSync(temporary, page);
}
