// Every flag of every command, declared once: its argument form, what it means,
// and the commands that take it. Each command builds its options from here with
// `flag(command, name, detail)`, the detail being what only that command adds;
// docs/commands.md's flag table is written from FLAG_ROWS (npm run docs),
// and a test checks every command's --help against that table. A flag whose
// meaning differs between commands has one row per meaning, and the meaning's
// first words say which (--duration: simulated time or wall time).
import { Option } from 'commander';
import type { Command } from 'commander';
import { collect } from './options.js';

const COMMAND_NAMES = [
  'decode',
  'run',
  'compare',
  'trace',
  'reproduce',
  'check',
  'analyze',
  'proxy',
  'peer',
  'conform',
  'soak',
  'sweep',
  'sweep-merge',
  'swarm',
  'shrink',
  'scenarios',
] as const;
export type CommandName = (typeof COMMAND_NAMES)[number];

export interface FlagRow {
  readonly flag: `--${string}`;
  /** The argument's form, as --help prints it; none for a switch that takes no value. */
  readonly arg?: `<${string}>`;
  /** The first words of the flag's help in every command that takes it. */
  readonly meaning: string;
  readonly repeatable?: true;
  readonly commands: readonly CommandName[];
}

const SIMULATING = ['run', 'compare', 'trace', 'check', 'analyze', 'sweep'] as const;
const LIVE = ['proxy', 'peer', 'soak'] as const;

export const FLAG_ROWS: readonly FlagRow[] = [
  // The scenario and its mode.
  {
    flag: '--mode',
    arg: '<mode>',
    meaning: 'the mode: stock (the bugs) or fixed (the remedies), optionally +switch=value...',
    commands: ['run', 'trace', 'check', 'analyze', 'peer', 'soak', 'sweep', 'swarm'],
  },
  {
    flag: '--modes',
    arg: '<list>',
    meaning: 'several modes, each a column of the grid: stock,fixed or one of them',
    commands: ['sweep'],
  },
  {
    flag: '--switch',
    arg: '<name=value>',
    meaning: 'set one mode switch (repeatable)',
    repeatable: true,
    commands: [...SIMULATING, 'peer', 'soak', 'swarm'],
  },
  {
    flag: '--set',
    arg: '<path=value>',
    meaning: 'override a scenario field, validated like the file (repeatable)',
    repeatable: true,
    commands: [...SIMULATING, 'proxy', 'peer', 'soak'],
  },
  {
    flag: '--scenario',
    arg: '<s>',
    meaning: 'a built-in scenario name or a scenario file:',
    commands: ['proxy', 'peer', 'conform', 'soak'],
  },
  { flag: '--seed', arg: '<n>', meaning: 'random seed', commands: [...SIMULATING, 'reproduce', ...LIVE, 'conform'] },
  { flag: '--seed', arg: '<n>', meaning: 'generator seed:', commands: ['swarm'] },
  {
    flag: '--seeds',
    arg: '<list>',
    meaning: 'seeds to run, in order, e.g. 1..20, 5..9 or 1,4,9 (at most 10,000)',
    commands: ['check', 'sweep'],
  },
  { flag: '--duration', arg: '<d>', meaning: 'simulated time', commands: [...SIMULATING, 'reproduce'] },
  { flag: '--duration', arg: '<d>', meaning: 'wall time', commands: LIVE },
  {
    flag: '--loss',
    arg: '<p>',
    meaning: 'Bernoulli loss on both directions',
    commands: [...SIMULATING, 'reproduce', 'proxy', 'soak'],
  },
  // What a command writes.
  {
    flag: '--json',
    meaning: 'machine-readable output:',
    commands: COMMAND_NAMES.filter((c) => !['sweep-merge', 'shrink'].includes(c)),
  },
  {
    flag: '--out',
    arg: '<file>',
    meaning: 'write to FILE, atomically (its folder must exist):',
    commands: ['proxy', 'peer', 'conform', 'sweep', 'sweep-merge', 'shrink'],
  },
  {
    flag: '--out-dir',
    arg: '<dir>',
    meaning: 'the folder the report files go into (a new folder: its parent must exist)',
    commands: ['compare', 'soak'],
  },
  {
    flag: '--pcap',
    arg: '<file>',
    meaning: 'also write a pcapng capture:',
    commands: ['run', 'compare', 'trace', 'proxy', 'conform'],
  },
  {
    flag: '--pcap-plaintext',
    meaning: 'with --pcap: UDP payloads in plaintext, not encrypted as on the wire',
    commands: ['run', 'compare', 'trace'],
  },
  {
    flag: '--junit',
    arg: '<file>',
    meaning: 'also write JUnit XML (its folder must exist):',
    commands: ['check', 'peer', 'conform'],
  },
  { flag: '--html', arg: '<file>', meaning: 'also write an HTML page (its folder must exist):', commands: ['sweep'] },
  { flag: '--wide', meaning: 'full-width tables, however wide:', commands: ['compare', 'reproduce'] },
  // How a command runs.
  { flag: '--jobs', arg: '<n>', meaning: 'worker threads:', commands: ['compare', 'sweep'] },
  {
    flag: '--check-determinism',
    meaning: 'run twice and fail (exit 1), naming the first diverging datagram, if the traces differ',
    commands: ['run', 'check'],
  },
  { flag: '--file', arg: '<path>', meaning: 'read the input from a file:', commands: ['decode', 'shrink'] },
  // Decoding.
  {
    flag: '--encrypted',
    meaning: 'the bytes are as on the wire: decrypt them (the game cipher) before decoding',
    commands: ['decode'],
  },
  { flag: '--plain', meaning: 'the bytes are plaintext: do not try the decrypted reading', commands: ['decode'] },
  // compare.
  {
    flag: '--config',
    arg: '<label:items>',
    meaning: 'a column (repeatable): LABEL:ITEM[,ITEM...]',
    repeatable: true,
    commands: ['compare'],
  },
  { flag: '--a', arg: '<label:items>', meaning: 'the first column, as --config', commands: ['compare'] },
  { flag: '--b', arg: '<label:items>', meaning: 'the second column, as --config', commands: ['compare'] },
  { flag: '--causes', meaning: 'also run each fragment-ACK cause as a column of its own', commands: ['compare'] },
  {
    flag: '--sensitivity',
    meaning: 'also rerun the stock column under each reading of similar rank',
    commands: ['compare'],
  },
  {
    flag: '--fail-on',
    arg: '<expr>',
    meaning: 'exit 1 if it holds for a column (repeatable):',
    repeatable: true,
    commands: ['compare'],
  },
  // trace.
  { flag: '--from', arg: '<t>', meaning: 'first simulated time to show', commands: ['trace'] },
  { flag: '--until', arg: '<t>', meaning: 'stop the run here', commands: ['trace'] },
  { flag: '--peer', arg: '<role>', meaning: 'only events of server or client', commands: ['trace'] },
  { flag: '--client', arg: '<k>', meaning: "only client k's connection", commands: ['trace'] },
  { flag: '--slot', arg: '<s>', meaning: 'only the connection the server gave slot s', commands: ['trace'] },
  { flag: '--filter', arg: '<expr>', meaning: 'decoded-field terms, all of which must hold:', commands: ['trace'] },
  { flag: '--bytes', arg: '<how>', meaning: 'raw bytes per datagram:', commands: ['trace'] },
  // analyze.
  { flag: '--ack-rule', arg: '<rule>', meaning: "each end's ACK behaviour:", commands: ['analyze'] },
  {
    flag: '--against',
    arg: '<scenario>',
    meaning: 'also run this scenario and show the same figures beside the capture',
    commands: ['analyze'],
  },
  // Live: addresses.
  { flag: '--listen', arg: '<host:port>', meaning: 'where to listen:', commands: ['proxy', 'peer'] },
  {
    flag: '--connect',
    arg: '<host:port>',
    meaning: 'client: the server to join (required for a client)',
    commands: ['peer'],
  },
  { flag: '--server', arg: '<host:port>', meaning: 'the server under test (required)', commands: ['conform', 'soak'] },
  { flag: '--upstream', arg: '<host:port>', meaning: 'the real server (required)', commands: ['proxy'] },
  {
    flag: '--upstream-bind',
    arg: '<host>',
    meaning: 'address of the per-client sockets facing the server',
    commands: ['proxy'],
  },
  {
    flag: '--bind',
    arg: '<host[:port]>',
    meaning: 'the local address to send from (port 0 or none: any port)',
    commands: ['peer', 'conform', 'soak'],
  },
  // Live: what the counterpart is judged by.
  {
    flag: '--manifest',
    arg: '<file>',
    meaning: "a checksum manifest, bcsim's form or a hash tool's JSON:",
    commands: ['peer', 'conform', 'soak'],
  },
  {
    flag: '--checksums',
    arg: '<check>',
    meaning: "server: how it checks a client's checksum answers:",
    commands: ['peer'],
  },
  { flag: '--clients', arg: '<n>', meaning: 'how many clients', commands: ['peer', 'soak'] },
  {
    flag: '--expect',
    arg: '<rules.json>',
    meaning: 'conformance rules to judge the counterpart by',
    commands: ['peer'],
  },
  {
    flag: '--require-exercised',
    meaning: 'anything NOT EXERCISED fails the run (exit 1)',
    commands: ['peer', 'conform'],
  },
  {
    flag: '--wire-log-mb',
    arg: '<n>',
    meaning: 'MiB of datagrams kept for the analysis and the rules',
    commands: ['peer'],
  },
  { flag: '--rejoin', meaning: 'a client whose connection the server ends joins again 5 s later', commands: ['soak'] },
  { flag: '--cases', arg: '<list>', meaning: 'cases to run, comma-separated (default: all)', commands: ['conform'] },
  { flag: '--list', meaning: 'list the cases and exit', commands: ['conform'] },
  { flag: '--parallel', arg: '<n>', meaning: 'at most this many sessions at once', commands: ['conform'] },
  { flag: '--peer-timeout', arg: '<d>', meaning: "the server's peer timeout:", commands: ['conform'] },
  {
    flag: '--timeout-grace',
    arg: '<d>',
    meaning: 'how long past --peer-timeout the removal case still waits',
    commands: ['conform'],
  },
  {
    flag: '--wrap-budget',
    arg: '<d>',
    meaning: 'how long each wrap case may take per category',
    commands: ['conform'],
  },
  // sweep, swarm, shrink.
  {
    flag: '--vary',
    arg: '<path=values>',
    meaning: 'vary a scenario path over values (repeatable):',
    repeatable: true,
    commands: ['sweep'],
  },
  { flag: '--shard', arg: '<i/n>', meaning: 'run only the grid indexes with index % n == i-1', commands: ['sweep'] },
  {
    flag: '--metrics',
    arg: '<paths>',
    meaning: 'summary paths for the summary table, comma-separated',
    commands: ['sweep'],
  },
  { flag: '--runs', arg: '<n>', meaning: 'how many generated runs', commands: ['swarm'] },
  { flag: '--index', arg: '<i>', meaning: 'run only generated run I', commands: ['swarm'] },
  {
    flag: '--all',
    meaning: 'run every run and list every failure instead of stopping at the first',
    commands: ['swarm'],
  },
  { flag: '--budget', arg: '<n>', meaning: 'at most this many candidate runs', commands: ['shrink'] },
];

/** The row of `name` that `command` takes; a command wired to a flag it is not declared for is a bug. */
function flagRow(command: CommandName, name: string): FlagRow {
  const row = FLAG_ROWS.find((r) => r.flag === name && r.commands.includes(command));
  if (row === undefined) throw new Error(`flags.ts declares no ${name} for ${command}`);
  return row;
}

/**
 * The commander Option for `name` on `command`: the declared form and meaning,
 * then what this command adds (`detail`). Repeatable flags collect into an array.
 */
export function flag(command: CommandName, name: string, detail?: string): Option {
  const row = flagRow(command, name);
  const text = detail === undefined ? row.meaning : `${row.meaning}${joiner(row.meaning, detail)}${detail}`;
  const option = new Option(row.arg === undefined ? name : `${name} ${row.arg}`, text);
  return row.repeatable ? option.argParser(collect) : option;
}

/** "simulated time, e.g. 30s", "a manifest: answer from it", "random seed; default: …". */
function joiner(meaning: string, detail: string): string {
  if (meaning.endsWith(':') || detail.startsWith('(')) return ' ';
  return detail.startsWith('e.g.') || detail.startsWith('with ') ? ', ' : '; ';
}

/** What a command adds to a declared flag: its words (null: none), and a default where it has one. */
export type FlagDetail = string | null | { readonly detail: string | null; readonly default: string };

/** Adds a command's flags in the order given, each with what this command adds to its declared meaning. */
export function addFlags(cmd: Command, command: CommandName, details: Readonly<Record<string, FlagDetail>>): void {
  for (const [name, given] of Object.entries(details)) {
    if (given === null || typeof given === 'string') cmd.addOption(flag(command, name, given ?? undefined));
    else cmd.addOption(flag(command, name, given.detail ?? undefined).default(given.default));
  }
}
