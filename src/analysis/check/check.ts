// `bcsim check`: run each scenario in the modes its `expect` block names and
// evaluate the assertions. Failures carry the exact command that reproduces them.
import { formatDuration, usToSeconds } from '../../core/engine/index.js';
import type { Scenario } from '../../model/scenario/index.js';
import { runScenario, shellQuote } from '../../model/session/index.js';
import type { EffectiveSettings } from '../../model/session/index.js';
import { PRESET_NAMES } from '../../model/transport/index.js';
import type { PresetName } from '../../model/transport/index.js';
import { evaluate, failedAssertion, PathError } from './assertions.js';
import type { AssertionResult } from './assertions.js';
import { runTwice } from './determinism.js';
import type { DeterminismVerdict } from './determinism.js';

export interface CheckRun {
  /** The reference the user gave: a built-in name or a path. */
  readonly ref: string;
  readonly scenario: string;
  readonly mode: PresetName;
  readonly seed: number;
  /** The simulated time of the run (the scenario's duration, or --duration). */
  readonly durationSeconds: number;
  readonly results: AssertionResult[];
  readonly determinism: DeterminismVerdict | null;
  /** A command that reruns exactly this run and prints its summary. */
  readonly reproduce: string;
  /** A `bcsim check` command that re-evaluates exactly this run's expectations (and determinism, if checked). */
  readonly recheck: string;
  /** The run's effective settings, as its summary records them. */
  readonly settings: EffectiveSettings;
  readonly pass: boolean;
}

export interface CheckOptions {
  /** Only this mode's expectations. */
  readonly mode?: PresetName;
  readonly checkDeterminism?: boolean;
  /** Run with this seed instead of the scenario's (`check --seed`, one seed of `--seeds`). */
  readonly seed?: number;
  /** Run for this long instead of the scenario's duration (`check --duration`). */
  readonly durationUs?: number;
  /** `--loss`, already applied to the scenario: recorded in the settings and passed on by the commands printed. */
  readonly loss?: number;
  /** Progress of each run (label, simulated µs, total µs). */
  readonly onProgress?: (label: string, simulatedUs: number, totalUs: number) => void;
}

/** The modes checkScenario runs for this scenario and options. */
export function modesToCheck(
  scenario: Scenario,
  options: Pick<CheckOptions, 'mode' | 'checkDeterminism'> = {},
): PresetName[] {
  const modes = PRESET_NAMES.filter(
    (m) => scenario.expect[m] !== undefined && (options.mode === undefined || options.mode === m),
  );
  // Determinism is checked even for a mode without expectations when it is asked for.
  return modes.length === 0 && options.checkDeterminism ? [options.mode ?? scenario.preset] : modes;
}

export function checkScenario(ref: string, scenario: Scenario, options: CheckOptions = {}): CheckRun[] {
  const seed = options.seed ?? scenario.seed;
  const durationUs = options.durationUs ?? scenario.durationUs;
  return modesToCheck(scenario, options).map((mode) => {
    const label = options.seed === undefined ? `${scenario.name} [${mode}]` : `${scenario.name} [${mode}] seed ${seed}`;
    const runOptions = {
      preset: mode,
      seed: options.seed,
      durationUs: options.durationUs,
      loss: options.loss,
      onProgress: options.onProgress ? (us: number) => options.onProgress?.(label, us, durationUs) : undefined,
    };
    const { result, verdict } = options.checkDeterminism
      ? runTwice(scenario, runOptions)
      : { result: runScenario(scenario, runOptions), verdict: null };
    const results = evaluate(result.summary, scenario.expect[mode] ?? {});
    const how = { seed, durationUs: options.durationUs, loss: options.loss };
    return {
      ref,
      scenario: scenario.name,
      mode,
      seed,
      durationSeconds: usToSeconds(durationUs),
      results,
      determinism: verdict,
      reproduce: reproduceCommand(ref, mode, scenario, how),
      recheck: recheckCommand(ref, mode, scenario, { ...how, checkDeterminism: options.checkDeterminism === true }),
      settings: result.summary.settings,
      pass: !results.some(failedAssertion) && (verdict === null || verdict.identical),
    };
  });
}

interface ReproduceOptions {
  /** Default: the scenario's seed. */
  readonly seed?: number;
  /** A --duration to pass on; none when the run used the scenario's own. */
  readonly durationUs?: number;
  /** A --loss to pass on. */
  readonly loss?: number;
}

/** `bcsim run … --json`: reruns the run and prints its summary, the values the assertions read. */
function reproduceCommand(ref: string, mode: PresetName, scenario: Scenario, options: ReproduceOptions = {}): string {
  return ['bcsim', 'run', ref, ...runWords(mode, scenario, options), '--json'].map(shellQuote).join(' ');
}

/** `bcsim check … --mode M --seed N`: re-evaluates the run's expectations, and fails again the way it failed. */
function recheckCommand(
  ref: string,
  mode: PresetName,
  scenario: Scenario,
  options: ReproduceOptions & { checkDeterminism?: boolean } = {},
): string {
  const words = ['bcsim', 'check', ref, ...runWords(mode, scenario, options)];
  if (options.checkDeterminism) words.push('--check-determinism');
  return words.map(shellQuote).join(' ');
}

function runWords(mode: PresetName, scenario: Scenario, options: ReproduceOptions): string[] {
  const words = ['--mode', mode, '--seed', String(options.seed ?? scenario.seed)];
  if (options.durationUs !== undefined) words.push('--duration', formatDuration(options.durationUs));
  if (options.loss !== undefined) words.push('--loss', String(options.loss));
  for (const s of scenario.overrides) words.push('--set', s);
  return words;
}

/**
 * A path of the expect block that names no summary field, found before any real
 * run: a zero-length run gives the summary's shape. A path that meets a null
 * there (a figure with no data yet) is left to the real runs to judge.
 */
export function expectPathProblem(scenario: Scenario, modes: readonly PresetName[]): PathError | undefined {
  const withExpect = modes.filter((m) => scenario.expect[m] !== undefined);
  if (withExpect.length === 0) return undefined;
  const shape = runScenario(scenario, { preset: withExpect[0], durationUs: 0 }).summary;
  for (const mode of withExpect) {
    try {
      evaluate(shape, scenario.expect[mode] ?? {});
    } catch (error) {
      if (!(error instanceof PathError)) throw error;
      if (!error.metNull) return error;
    }
  }
  return undefined;
}
