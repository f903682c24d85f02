// One run of the grid, the same code in a worker thread and in-process: load
// the scenario with the run's --set edits, run it, and return its result line.
// Errors come back as values: a worker's thrown error loses its class on the way.
import { LimitError } from '../../core/engine/index.js';
import { ScenarioError, loadScenario } from '../../model/scenario/index.js';
import type { Scenario } from '../../model/scenario/index.js';
import { runScenario } from '../../model/session/index.js';
import type { PresetName } from '../../model/transport/index.js';
import { extractFigures, serializeLine, verdictOf } from './line.js';
import type { SweepLine } from './line.js';

/** Everything a worker needs, plain data (it is copied to the thread). */
export interface RunTask {
  readonly index: number;
  readonly grid: string;
  readonly runs: number;
  readonly ref: string;
  readonly cwd: string;
  /** The base --set edits, then this run's --vary values. */
  readonly sets: readonly string[];
  readonly vary: Record<string, unknown>;
  readonly mode: PresetName;
  readonly seed: number;
  readonly durationUs: number | undefined;
  /** `--loss`, replacing the scenario's loss models. */
  readonly loss?: number;
  readonly figures: readonly string[];
}

export type TaskResult =
  | { readonly ok: true; readonly text: string; readonly passed: boolean; readonly cut?: string }
  | { readonly ok: false; readonly kind: 'limit' | 'scenario' | 'internal'; readonly message: string };

/** Scenarios already parsed, per set of edits: a worker runs many seeds of the same values. */
const MAX_CACHED_SCENARIOS = 32;
const cache = new Map<string, Scenario>();

/** Forgets the parsed scenarios: a file may have changed since the last sweep of this process. */
export function clearScenarioCache(): void {
  cache.clear();
}

function scenarioFor(task: RunTask): Scenario {
  const key = JSON.stringify([task.ref, task.cwd, task.sets, task.loss]);
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const scenario = loadScenario(task.ref, { sets: task.sets, cwd: task.cwd, loss: task.loss });
  if (cache.size >= MAX_CACHED_SCENARIOS) cache.delete(cache.keys().next().value as string);
  cache.set(key, scenario);
  return scenario;
}

export function runTask(task: RunTask): TaskResult {
  try {
    const scenario = scenarioFor(task);
    const { summary } = runScenario(scenario, {
      preset: task.mode,
      seed: task.seed,
      durationUs: task.durationUs,
      loss: task.loss,
    });
    const verdict = verdictOf(summary, scenario, task.mode);
    const line: SweepLine = {
      index: task.index,
      grid: task.grid,
      runs: task.runs,
      scenario: summary.scenario,
      mode: task.mode,
      seed: task.seed,
      vary: task.vary,
      traceHash: summary.traceHash,
      simulatedSeconds: summary.simulatedSeconds,
      figures: extractFigures(summary, task.figures),
      verdict,
    };
    const cut = summary.settings.phasePlanCut?.warning;
    return {
      ok: true,
      text: serializeLine(line),
      passed: verdict === null || verdict.passed,
      ...(cut === undefined ? {} : { cut }),
    };
  } catch (error) {
    if (error instanceof LimitError) return { ok: false, kind: 'limit', message: error.message };
    if (error instanceof ScenarioError) return { ok: false, kind: 'scenario', message: error.message };
    return {
      ok: false,
      kind: 'internal',
      message: error instanceof Error ? (error.stack ?? error.message) : String(error),
    };
  }
}
