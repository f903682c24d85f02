// `bcsim swarm` as a library: N generated runs from one generator seed, checked one
// after another, stopping at the first failure unless asked for all. A run is named by
// (generator seed, index, mode, switches): `bcsim swarm --seed G --index I …` re-runs exactly it.
import { generateRun } from './generator.js';
import { executeRun } from './execute.js';
import type { RunOutcome } from './execute.js';
import { shellQuote, shellWords } from './repro.js';
import type { GenerateOptions, RunSpec, SwarmPreset } from './spec.js';

/** The most runs one swarm command may ask for (each is seconds of CPU at worst). */
export const MAX_SWARM_RUNS = 1_000_000;

export interface SwarmOptions {
  readonly generatorSeed: number;
  /** Runs index `from` .. `from + runs - 1`. */
  readonly from?: number;
  readonly runs: number;
  readonly preset: SwarmPreset;
  /** Mode switches for every run, "name=value" (top-level switches; plantedBug is a test-only one). */
  readonly switches?: readonly string[];
  /** Go on after a failure and report every one. */
  readonly all?: boolean;
  /** Called after every run (progress). */
  readonly onRun?: (done: number, failures: number, outcome: RunOutcome) => void;
}

export interface SwarmResult {
  readonly outcomes: readonly RunOutcome[];
  readonly failures: readonly RunOutcome[];
}

/** "plantedBug=no-duplicate-ack" as generator options; the value is JSON when it parses, else a string. */
export function switchOptions(preset: SwarmPreset, switches: readonly string[] = []): GenerateOptions {
  const overrides: Record<string, unknown> = {};
  let plantedBug: string | undefined;
  for (const s of switches) {
    const eq = s.indexOf('=');
    if (eq <= 0 || eq === s.length - 1) throw new Error(`--switch ${s}: expected name=value`);
    const name = s.slice(0, eq);
    if (name.includes('.')) throw new Error(`--switch ${s}: swarm takes top-level switches only (not ${name})`);
    const raw = s.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // a bare word: the string itself
    }
    if (name === 'plantedBug') plantedBug = String(value);
    else overrides[name] = value;
  }
  return {
    preset,
    ...(Object.keys(overrides).length > 0 ? { modeOverrides: overrides } : {}),
    ...(plantedBug === undefined ? {} : { plantedBug }),
  };
}

export function specFor(
  generatorSeed: number,
  index: number,
  preset: SwarmPreset,
  switches: readonly string[] = [],
): RunSpec {
  return generateRun(generatorSeed, index, switchOptions(preset, switches));
}

export function runSwarm(o: SwarmOptions): SwarmResult {
  const outcomes: RunOutcome[] = [];
  const failures: RunOutcome[] = [];
  const from = o.from ?? 0;
  for (let i = from; i < from + o.runs; i++) {
    const outcome = executeRun(specFor(o.generatorSeed, i, o.preset, o.switches));
    outcomes.push(outcome);
    if (outcome.violations.length > 0) failures.push(outcome);
    o.onRun?.(outcomes.length, failures.length, outcome);
    if (failures.length > 0 && !o.all) break;
  }
  return { outcomes, failures };
}

/** The command that re-runs one swarm run and checks it: what `bcsim shrink` takes too. */
export function swarmCommand(
  generatorSeed: number,
  index: number,
  preset: SwarmPreset,
  switches: readonly string[] = [],
): string {
  return [
    'bcsim swarm',
    `--seed ${generatorSeed}`,
    `--index ${index}`,
    `--mode ${preset}`,
    ...switches.map((s) => `--switch ${shellQuote(s)}`),
  ].join(' ');
}

export interface ParsedSwarmCommand {
  readonly generatorSeed: number;
  readonly index: number;
  readonly preset: SwarmPreset;
  readonly switches: string[];
}

/** Parses a `bcsim swarm --seed G --index I [--mode M] [--switch s]…` line (as swarmCommand prints it). */
export function parseSwarmCommand(line: string): ParsedSwarmCommand {
  const words = shellWords(line);
  if (words[0] !== 'bcsim' || words[1] !== 'swarm') throw new Error(`not a bcsim swarm command: ${line}`);
  let generatorSeed: number | undefined;
  let index: number | undefined;
  let preset: SwarmPreset = 'fixed';
  const switches: string[] = [];
  const whole = (flag: string, w: string | undefined) => {
    const n = Number(w);
    if (w === undefined || !/^\d+$/.test(w) || !Number.isSafeInteger(n))
      throw new Error(`${flag}: expected a whole number, got ${w ?? 'nothing'}`);
    return n;
  };
  for (let i = 2; i < words.length; i++) {
    const w = words[i];
    if (w === '--seed') generatorSeed = whole('--seed', words[++i]);
    else if (w === '--index') index = whole('--index', words[++i]);
    else if (w === '--mode') {
      const m = words[++i];
      if (m !== 'fixed' && m !== 'stock') throw new Error(`--mode: expected fixed or stock, got ${m ?? 'nothing'}`);
      preset = m;
    } else if (w === '--switch') switches.push(words[++i] ?? '');
    else if (w !== '--json') throw new Error(`unexpected word "${w}" in ${line}`);
  }
  if (generatorSeed === undefined || index === undefined)
    throw new Error(`a swarm run needs --seed and --index: ${line}`);
  return { generatorSeed, index, preset, switches };
}
