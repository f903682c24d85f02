// docs/commands.md has one table of every flag; every command's --help must agree
// with it: the same flags, the same argument forms, and each flag's help opening
// with the meaning the table gives.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';

interface TableRow {
  readonly flag: string;
  readonly arg: string;
  readonly meaning: string;
  readonly commands: readonly string[];
}

interface HelpFlag {
  readonly flag: string;
  readonly arg: string;
  readonly text: string;
}

/** Every command `bcsim --help` lists, so a new command cannot miss the table unnoticed. */
async function commands(): Promise<string[]> {
  const help = (await cli(['--help'])).stdout;
  const section = help.slice(help.indexOf('Commands:\n'));
  return [...section.matchAll(/^ {2}([a-z][\w-]*)/gm)].map((m) => m[1]).filter((c) => c !== 'help');
}

const COMMANDS = await commands();

const squash = (text: string) => text.replace(/\s+/g, ' ').trim();
const unquote = (cell: string) => cell.replace(/^`|`$/g, '').replaceAll('\\|', '|');

/** The rows between the flag-table markers of docs/commands.md. */
function tableRows(markdown: string): TableRow[] {
  const body = markdown.slice(markdown.indexOf('<!-- flag-table:begin'), markdown.indexOf('<!-- flag-table:end'));
  return body
    .split('\n')
    .filter((line) => line.startsWith('| `--'))
    .map((line) => {
      const cells = line
        .slice(2, -2)
        .split(/ (?<!\\)\| /)
        .map((c) => c.trim());
      return {
        flag: unquote(cells[0]),
        arg: unquote(cells[1]),
        meaning: cells[2].replaceAll('\\|', '|'),
        commands: cells[3].split(',').map((c) => c.trim()),
      };
    });
}

/** The Options section of a commander --help: each flag, its argument and its whole help text. */
function helpFlags(help: string): HelpFlag[] {
  const section = help.slice(help.indexOf('Options:\n') + 'Options:\n'.length).split('\n\n')[0];
  const flags: HelpFlag[] = [];
  let current: { flag: string; arg: string; text: string } | undefined;
  for (const line of section.split('\n')) {
    const head = /^ {2}(?:-\w, )?(--[\w-]+)(?: (<[^>]+>|\[[^\]]+\]))?(?: {2,}(.*))?$/.exec(line);
    if (head !== null) {
      current = { flag: head[1], arg: head[2] ?? '', text: head[3] ?? '' };
      flags.push(current);
    } else if (current !== undefined) current.text += ` ${line}`;
  }
  return flags.map((f) => ({ ...f, text: squash(f.text) })).filter((f) => f.flag !== '--help');
}

/** What differs between one command's --help and the table, one line each. */
function disagreements(command: string, help: HelpFlag[], rows: readonly TableRow[]): string[] {
  const problems: string[] = [];
  const mine = rows.filter((r) => r.commands.includes(command));
  for (const f of help) {
    const row = mine.find((r) => r.flag === f.flag);
    if (row === undefined) problems.push(`${command} ${f.flag}: in --help, not in the table`);
    else if (row.arg !== f.arg)
      problems.push(`${command} ${f.flag}: --help takes ${f.arg || 'no value'}, the table ${row.arg || 'no value'}`);
    else if (!f.text.startsWith(squash(row.meaning)))
      problems.push(`${command} ${f.flag}: --help says "${f.text.slice(0, 60)}…", the table "${row.meaning}"`);
  }
  for (const r of mine) {
    if (!help.some((f) => f.flag === r.flag)) problems.push(`${command} ${r.flag}: in the table, not in --help`);
  }
  const seen = new Set<string>();
  for (const r of mine) {
    if (seen.has(r.flag)) problems.push(`${command} ${r.flag}: in the table twice`);
    seen.add(r.flag);
  }
  return problems;
}

const rows = tableRows(readFileSync('docs/commands.md', 'utf8'));

describe('the flag table in docs/commands.md', () => {
  it('has a row for each flag, and each row names commands bcsim has', () => {
    expect(COMMANDS).toHaveLength(16);
    expect(rows.length).toBeGreaterThan(60);
    for (const r of rows) for (const c of r.commands) expect(COMMANDS).toContain(c);
  });

  it.each(COMMANDS)('agrees with bcsim %s --help', async (command) => {
    const r = await cli([command, '--help']);
    expect(r.code).toBe(0);
    const help = helpFlags(r.stdout);
    expect(help.length).toBeGreaterThan(0);
    expect(disagreements(command, help, rows)).toEqual([]);
  });

  it('catches a flag whose form, meaning or presence differs', () => {
    const table: TableRow[] = [
      { flag: '--seed', arg: '<n>', meaning: 'random seed', commands: ['run'] },
      { flag: '--json', arg: '', meaning: 'machine-readable output:', commands: ['run'] },
    ];
    const help = (text: string) => helpFlags(`Usage: x\n\nOptions:\n${text}\n  -h, --help  display help\n`);
    expect(
      disagreements(
        'run',
        help('  --seed <n>  random seed; default 1\n  --json      machine-readable output: x'),
        table,
      ),
    ).toEqual([]);
    expect(
      disagreements('run', help('  --seed <s>  random seed\n  --json  machine-readable output: x'), table),
    ).toEqual(['run --seed: --help takes <s>, the table <n>']);
    expect(
      disagreements('run', help('  --seed <n>  generator seed\n  --json  machine-readable output: x'), table)[0],
    ).toMatch(/--seed: --help says "generator seed…"/);
    expect(disagreements('run', help('  --seed <n>  random seed\n  --jsn  x'), table)).toEqual([
      'run --jsn: in --help, not in the table',
      'run --json: in the table, not in --help',
    ]);
  });
});
