// The switch declarations in words: the names `--switch` takes, the lines of
// --help and the table of docs/switches.md, all read off SWITCHES so none can
// miss a switch or a value.
import { SWITCHES } from './switch-declarations.js';
import type { SwitchDeclaration, SwitchGroup } from './switch-declarations.js';
import { DEFAULT_PARAMS } from './switches.js';

interface NamedSwitch {
  /** `ackOutbox`, or `keepalive.reliable` for a field of a group. */
  readonly name: string;
  readonly declaration: SwitchDeclaration;
}

function flatten(declared: Readonly<Record<string, SwitchDeclaration | SwitchGroup>>, prefix = ''): NamedSwitch[] {
  return Object.entries(declared).flatMap(([name, d]) =>
    d.kind === 'group' ? flatten(d.fields, `${prefix}${name}.`) : [{ name: `${prefix}${name}`, declaration: d }],
  );
}

/** Every switch, a group's fields as `group.field`, in declaration order. */
export const DECLARED_SWITCHES: readonly NamedSwitch[] = flatten(SWITCHES);

/** Every name `--switch name=value` accepts. */
export const SWITCH_NAMES: readonly string[] = DECLARED_SWITCHES.map((s) => s.name);

/** Every transport parameter some switch goes with. */
export const SWITCH_PARAMS: readonly string[] = [...new Set(DECLARED_SWITCHES.flatMap((s) => s.declaration.params))];

const grouped = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** The values a switch takes, as typed after `name=`. */
function valuesText(d: SwitchDeclaration): string {
  switch (d.kind) {
    case 'choice':
      return d.values.join('|');
    case 'flag':
      return 'true|false';
    case 'count':
      return `1..${grouped(d.max)}`;
    case 'countOrNull':
      return `1..${grouped(d.max)}|null`;
    case 'millis':
      return `${d.zero ? '0' : '>0'}..${grouped(d.max)} ms`;
    case 'subset':
      return `any subset of ${JSON.stringify(d.values)}`;
  }
}

const valueText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

function defaultsText(d: SwitchDeclaration): string {
  const stock = valueText(d.stock);
  const fixed = valueText(d.fixed);
  return stock === fixed ? `default ${stock}` : `stock ${stock}, fixed ${fixed}`;
}

const paramText = (name: string): string => `${name} ${valueText(DEFAULT_PARAMS[name as keyof typeof DEFAULT_PARAMS])}`;

/** Text broken after a `|` or `, `, or before ` (` or ` [`, into lines of at most `width`, the later ones indented. */
function wrap(text: string, width: number, indent: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const piece of text.split(/(?<=\||, )|(?= [([])/)) {
    if (line.trim() && line.trimEnd().length + piece.trimEnd().length > width) {
      lines.push(line.trimEnd());
      line = indent + piece.trimStart();
    } else line += piece;
  }
  return [...lines, line.trimEnd()];
}

/** One --help entry per switch: its values, its defaults and [its parameters with theirs]. */
export function switchHelpLines(width = 118): string[] {
  return DECLARED_SWITCHES.flatMap(({ name, declaration: d }) => {
    const params = d.params.length > 0 ? ` [${d.params.map(paramText).join(', ')}]` : '';
    return wrap(`  ${name} ${valuesText(d)} (${defaultsText(d)})${params}`, width, '      ');
  });
}

const code = (text: string): string => `\`${text}\``;
const cell = (text: string): string => text.replaceAll('|', '\\|');

function valuesCell(d: SwitchDeclaration): string {
  switch (d.kind) {
    case 'choice':
      return d.values.map(code).join(', ');
    case 'flag':
      return '`true`, `false`';
    case 'count':
      return `1..${grouped(d.max)} ${d.unit}`;
    case 'countOrNull':
      return `1..${grouped(d.max)} ${d.unit}, or \`null\` (${d.nullMeans})`;
    case 'millis':
      return `milliseconds ${d.zero ? '≥ 0' : '> 0'}, at most ${grouped(d.max)}`;
    case 'subset':
      return `any subset of ${d.values.map(code).join(', ')}`;
  }
}

/** The table of docs/switches.md: one row per switch. */
export function switchTable(): string {
  const rows = DECLARED_SWITCHES.map(({ name, declaration: d }) => {
    const stock = code(valueText(d.stock));
    const fixed = valueText(d.fixed) === valueText(d.stock) ? 'same' : code(valueText(d.fixed));
    const params = d.params.map((p) => `${code(p)} (${valueText(DEFAULT_PARAMS[p as keyof typeof DEFAULT_PARAMS])})`);
    const source = d.source === null ? '' : `[sources.md ${d.source}](sources.md)`;
    return `| ${code(name)} | ${stock} | ${fixed} | ${valuesCell(d)} | ${cell(d.meaning)} | ${params.join(', ')} | ${source} |`;
  });
  return [
    '| switch | stock | fixed | values | what it decides | parameters (default) | source |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

const TABLE_BEGIN = '<!-- switch table: written by `npm run docs` from switch-declarations.ts -->';
const TABLE_END = '<!-- end of switch table -->';

/** The page with the text between its markers replaced by switchTable(); null if a marker is missing. */
export function withSwitchTable(page: string): string | null {
  const begin = page.indexOf(TABLE_BEGIN);
  const end = page.indexOf(TABLE_END);
  if (begin < 0 || end < begin) return null;
  return `${page.slice(0, begin + TABLE_BEGIN.length)}\n${switchTable()}\n${page.slice(end)}`;
}
