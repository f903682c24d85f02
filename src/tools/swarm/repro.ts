// A run as one shell command: `bcsim run <base> --mode fixed --seed N --set … --json`, printed
// for every failure, parsed back to prove that the printed line reproduces the run exactly.
import { loadScenario } from '../../model/scenario/index.js';
import type { Scenario } from '../../model/scenario/index.js';
import type { RunSpec } from './spec.js';

/** Quotes one shell word with single quotes (a ' inside becomes '\''). */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The one-line command that reproduces a run exactly. */
export function reproCommand(spec: Pick<RunSpec, 'base' | 'seed' | 'sets' | 'preset'>): string {
  return [
    'bcsim run',
    spec.base,
    `--mode ${spec.preset}`,
    `--seed ${spec.seed}`,
    ...spec.sets.map((s) => `--set ${shellQuote(s)}`),
    '--json',
  ].join(' ');
}

/** Splits a command line the way a POSIX shell does for the quoting reproCommand uses. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated quote at ${i}`);
      word += line.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (ch === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

export interface ParsedCommand {
  readonly base: string;
  readonly preset: string;
  readonly seed: number;
  readonly sets: string[];
}

/** Parses a `bcsim run <base> --mode M --seed N --set … --json` line back into its parts. */
export function parseReproCommand(line: string): ParsedCommand {
  const words = shellWords(line);
  if (words[0] !== 'bcsim' || words[1] !== 'run') throw new Error(`not a bcsim run command: ${line}`);
  const base = words[2];
  let preset = 'stock';
  let seed = Number.NaN;
  const sets: string[] = [];
  for (let i = 3; i < words.length; i++) {
    const w = words[i];
    if (w === '--mode') preset = words[++i];
    else if (w === '--seed') seed = Number(words[++i]);
    else if (w === '--set') sets.push(words[++i]);
    else if (w !== '--json') throw new Error(`unexpected word "${w}" in ${line}`);
  }
  return { base, preset, seed, sets };
}

/** Loads a run exactly as `bcsim run` would. */
export function loadRun(spec: Pick<RunSpec, 'base' | 'sets'>): Scenario {
  return loadScenario(spec.base, { sets: [...spec.sets] });
}
