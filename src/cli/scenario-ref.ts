// Loads a scenario for a command, turning scenario errors into usage errors.
import { ScenarioError, isSchemeScenarioRef, loadScenario } from '../model/scenario/index.js';
import type { Scenario } from '../model/scenario/index.js';
import type { CliIO } from './io.js';
import { UsageError } from './io.js';
import { blameEdits, editSet } from './switch-flags.js';
import type { Edit } from './switch-flags.js';

/** `edits`: --set texts, and edits made from other flags, whose errors name those flags. */
export function loadForCli(ref: string, edits: readonly Edit[], io: CliIO, loss?: number): Scenario {
  try {
    return loadScenario(ref, { sets: edits.map(editSet), cwd: io.cwd, loss });
  } catch (error) {
    // A scheme scenario is not a BC scenario: say where it runs.
    if (error instanceof ScenarioError && isSchemeScenarioRef(ref, io.cwd))
      throw new UsageError(`${ref}: a scheme scenario, which only \`bcsim compare ${ref}\` runs`);
    if (error instanceof ScenarioError) throw new UsageError(blameEdits(error.message, edits));
    throw error;
  }
}
