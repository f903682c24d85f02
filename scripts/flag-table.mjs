// Writes docs/commands.md's flag table from the one declaration of every flag
// (src/cli/flags.ts, built into dist/). Run it with `npm run docs` after changing a flag.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { FLAG_ROWS } from '../dist/cli/flags.js';

const DOC = new URL('../docs/commands.md', import.meta.url);
const BEGIN = '<!-- flag-table:begin (written by npm run docs) -->';
const END = '<!-- flag-table:end -->';

const cell = (text) => text.replaceAll('|', '\\|');
const rows = FLAG_ROWS.map(
  (r) =>
    `| \`${r.flag}\` | ${r.arg === undefined ? '' : `\`${r.arg}\``} | ${cell(r.meaning)} | ${r.commands.join(', ')} |`,
);
const table = [
  '| Flag | Argument | Meaning (the first words of its help) | Commands |',
  '|---|---|---|---|',
  ...rows,
].join('\n');

const text = readFileSync(DOC, 'utf8');
const begin = text.indexOf(BEGIN);
const end = text.indexOf(END);
if (begin < 0 || end < begin) throw new Error(`docs/commands.md: no ${BEGIN} ... ${END} markers`);
const next = `${text.slice(0, begin + BEGIN.length)}\n${table}\n${text.slice(end)}`;
const tmp = new URL('../docs/.commands.md.tmp', import.meta.url);
writeFileSync(tmp, next);
renameSync(tmp, DOC);
console.log(`docs/commands.md: ${rows.length} flag rows`);
