// Where scheme scenarios come from: the built-ins in scenarios/schemes/ (beside,
// not among, the BC built-ins of scenarios/, so every BC list stays as it was) or
// a file whose top-level object has a `scheme` key.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatDuration, msToUs } from '../engine/index.js';
import { BUILTIN_DIR } from '../scenario/index.js';
import { SchemeScenarioError } from './checks.js';
import { bcScenarioOf } from './bc-side.js';
import { rtypeConfigOf } from './rtype-side.js';
import { parseSchemeScenario } from './scenario-file.js';
import type { SchemeKind, SchemeScenario } from './scenario-file.js';

/** The package's scenarios/schemes/ folder (src/schemes or dist/… -> ../../scenarios/schemes). */
export const SCHEME_BUILTIN_DIR = fileURLToPath(new URL('../../scenarios/schemes/', import.meta.url));

/** Far above any hand-written scheme scenario; checked before reading. */
export const MAX_SCHEME_FILE_BYTES = 1024 * 1024;

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
      return { name: s.name, description: s.description, duration: formatDuration(msToUs(s.durationMs)), clients: s.clients, scheme: s.scheme };
    });
}

const looksLikePath = (ref: string) => ref.includes('/') || ref.includes('\\') || ref.endsWith('.json');

/**
 * Whether `ref` names a scheme scenario: a scheme built-in (a BC built-in of the
 * same name wins), or a readable JSON file whose top level has a `scheme` key.
 * Anything else (a BC scenario, a missing or broken file) is left to the BC loader.
 */
export function isSchemeScenarioRef(ref: string, cwd: string): boolean {
  if (!looksLikePath(ref)) return existsSync(resolvePath(SCHEME_BUILTIN_DIR, `${ref}.json`)) && !existsSync(resolvePath(BUILTIN_DIR, `${ref}.json`));
  try {
    const file = resolvePath(cwd, ref);
    if (!statSync(file).isFile() || statSync(file).size > MAX_SCHEME_FILE_BYTES) return false;
    const document: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return document !== null && typeof document === 'object' && !Array.isArray(document) && Object.hasOwn(document, 'scheme');
  } catch {
    return false;
  }
}

/** Loads a scheme built-in by name or a scheme-scenario file; throws SchemeScenarioError. */
export function loadSchemeScenario(ref: string, cwd: string = process.cwd()): SchemeScenario {
  const builtin = !looksLikePath(ref);
  const file = builtin ? resolvePath(SCHEME_BUILTIN_DIR, `${ref}.json`) : resolvePath(cwd, ref);
  const label = builtin ? `scenarios/schemes/${ref}.json` : ref;
  let text: string;
  try {
    const size = statSync(file).size;
    if (size > MAX_SCHEME_FILE_BYTES) throw new SchemeScenarioError(label, '', `the file is ${size.toLocaleString('en-US')} bytes, more than the ${MAX_SCHEME_FILE_BYTES.toLocaleString('en-US')} a scheme scenario may have`);
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof SchemeScenarioError) throw error;
    if (builtin) throw new SchemeScenarioError(ref, '', `no scheme built-in of that name (try one of: ${listSchemeBuiltins().map((b) => b.name).join(', ')})`);
    throw new SchemeScenarioError(label, '', `cannot read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  return checked(parseSchemeScenario(text, label));
}

/** Builds what the scenario will run, so a field either scheme refuses fails at load, before any run. */
function checked(scenario: SchemeScenario): SchemeScenario {
  rtypeConfigOf(scenario, 'documented');
  if (scenario.scheme === 'side-by-side') bcScenarioOf(scenario);
  return scenario;
}
