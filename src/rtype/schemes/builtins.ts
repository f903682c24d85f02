// Where scheme scenarios come from: the built-ins in scenarios/schemes/ (beside,
// not among, the BC built-ins of scenarios/, so every BC list stays as it was) or
// a file whose top-level object has a `scheme` key.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { formatDuration, msToUs } from '../../core/engine/index.js';
import { fileErrorText } from '../../core/files/index.js';
import {
  MAX_SCHEME_FILE_BYTES,
  SCHEME_BUILTIN_DIR,
  isSchemeScenarioRef,
  looksLikePath,
} from '../../model/scenario/index.js';
import { SchemeScenarioError } from './checks.js';
import { bcScenarioOf } from './bc-side.js';
import { rtypeConfigOf } from './rtype-side.js';
import { parseSchemeScenario } from './scenario-file.js';
import type { SchemeKind, SchemeScenario } from './scenario-file.js';

// Where scheme scenarios live, and how a ref is told apart from a BC one, is the scenario
// layer's (scenario/scheme-ref.ts): the CLI asks it on every BC load's error path, and
// importing this folder for that loaded the R-Type model with it.
export { MAX_SCHEME_FILE_BYTES, SCHEME_BUILTIN_DIR, isSchemeScenarioRef };

export interface SchemeBuiltin {
  readonly name: string;
  readonly description: string;
  readonly duration: string;
  readonly clients: number;
  readonly scheme: SchemeKind;
}

/** The scheme built-ins, sorted by name. */
export function listSchemeBuiltins(): SchemeBuiltin[] {
  if (!existsSync(SCHEME_BUILTIN_DIR)) return [];
  return readdirSync(SCHEME_BUILTIN_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const s = parseSchemeScenario(readFileSync(resolvePath(SCHEME_BUILTIN_DIR, f), 'utf8'), `scenarios/schemes/${f}`);
      return {
        name: s.name,
        description: s.description,
        duration: formatDuration(msToUs(s.durationMs)),
        clients: s.clients,
        scheme: s.scheme,
      };
    });
}

/** Loads a scheme built-in by name or a scheme-scenario file; throws SchemeScenarioError. */
export function loadSchemeScenario(ref: string, cwd: string = process.cwd()): SchemeScenario {
  const builtin = !looksLikePath(ref);
  const file = builtin ? resolvePath(SCHEME_BUILTIN_DIR, `${ref}.json`) : resolvePath(cwd, ref);
  const label = builtin ? `scenarios/schemes/${ref}.json` : ref;
  let text: string;
  try {
    const size = statSync(file).size;
    if (size > MAX_SCHEME_FILE_BYTES)
      throw new SchemeScenarioError(
        label,
        '',
        `the file is ${size.toLocaleString('en-US')} bytes, more than the ${MAX_SCHEME_FILE_BYTES.toLocaleString('en-US')} a scheme scenario may have`,
      );
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof SchemeScenarioError) throw error;
    if (builtin)
      throw new SchemeScenarioError(
        ref,
        '',
        `no scheme built-in of that name (try one of: ${listSchemeBuiltins()
          .map((b) => b.name)
          .join(', ')})`,
      );
    throw new SchemeScenarioError(label, '', `cannot read: ${fileErrorText(error)}`);
  }
  return checked(parseSchemeScenario(text, label));
}

/** Builds what the scenario will run, so a field either scheme refuses fails at load, before any run. */
function checked(scenario: SchemeScenario): SchemeScenario {
  rtypeConfigOf(scenario, 'documented');
  if (scenario.scheme === 'side-by-side') bcScenarioOf(scenario);
  return scenario;
}
