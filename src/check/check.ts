// `bcsim check`: run each scenario in the modes its `expect` block names and
// evaluate the assertions. Failures carry the exact command that reproduces them.
import type { Scenario } from '../scenario/scenario.js';
import { runScenario } from '../session/run.js';
import { PRESET_NAMES } from '../transport/switches.js';
import type { PresetName } from '../transport/switches.js';
import { evaluate } from './assertions.js';
import type { AssertionResult } from './assertions.js';
import { runTwice } from './determinism.js';
import type { DeterminismVerdict } from './determinism.js';

export interface CheckRun {
  /** The reference the user gave: a built-in name or a path. */
  readonly ref: string;
  readonly scenario: string;
  readonly mode: PresetName;
  readonly seed: number;
  readonly results: AssertionResult[];
  readonly determinism: DeterminismVerdict | null;
  /** A command that reruns exactly this run and prints its summary. */
  readonly reproduce: string;
  readonly pass: boolean;
}

export interface CheckOptions {
  /** Only this mode's expectations. */
  readonly mode?: PresetName;
  readonly checkDeterminism?: boolean;
  /** Progress of each run (label, simulated µs, total µs). */
  readonly onProgress?: (label: string, simulatedUs: number, totalUs: number) => void;
}

export function checkScenario(ref: string, scenario: Scenario, options: CheckOptions = {}): CheckRun[] {
  const modes = PRESET_NAMES.filter((m) => scenario.expect[m] !== undefined && (options.mode === undefined || options.mode === m));
  // Determinism is checked even for a mode without expectations when it is asked for.
  const toRun = modes.length === 0 && options.checkDeterminism ? [options.mode ?? scenario.preset] : modes;
  return toRun.map((mode) => {
    const label = `${scenario.name} [${mode}]`;
    const runOptions = { preset: mode, onProgress: options.onProgress ? (us: number) => options.onProgress?.(label, us, scenario.durationUs) : undefined };
    const { result, verdict } = options.checkDeterminism
      ? runTwice(scenario, runOptions)
      : { result: runScenario(scenario, runOptions), verdict: null };
    const results = evaluate(result.summary, scenario.expect[mode] ?? {});
    return {
      ref,
      scenario: scenario.name,
      mode,
      seed: scenario.seed,
      results,
      determinism: verdict,
      reproduce: reproduceCommand(ref, mode, scenario),
      pass: results.every((r) => r.pass) && (verdict === null || verdict.identical),
    };
  });
}

export function reproduceCommand(ref: string, mode: PresetName, scenario: Scenario): string {
  const sets = scenario.overrides.map((s) => ` --set ${shellQuote(s)}`).join('');
  return `bcsim run ${shellQuote(ref)} --mode ${mode} --seed ${scenario.seed}${sets} --json`;
}

function shellQuote(text: string): string {
  return /^[\w./:=@,+-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
