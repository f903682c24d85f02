// Loads a scenario for a command, turning scenario errors into usage errors.
import { ScenarioError, loadScenario } from '../scenario/index.js';
import type { Scenario } from '../scenario/index.js';
import type { CliIO } from './io.js';
import { UsageError } from './io.js';

export function loadForCli(ref: string, sets: readonly string[], io: CliIO, loss?: number): Scenario {
  try {
    return loadScenario(ref, { sets, cwd: io.cwd, loss });
  } catch (error) {
    if (error instanceof ScenarioError) throw new UsageError(error.message);
    throw error;
  }
}
