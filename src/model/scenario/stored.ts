// Built-in scenarios validated once, by the build, not by every run: building the zod
// schema and checking a scenario with it cost more than a short run itself. The build
// stores, for each built-in, its file's exact text and what the loader returned for it
// (storedBuiltins), beside each compiled loader (dist/model/scenario/, and dist/cli/ for the
// bundles). A run of an unedited built-in takes the stored result; an edited one, or one
// with --set or --loss, goes through the schema, so its errors are the schema's.
// The sources in src/ have no stored file beside them: tests always validate.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Scenario } from './scenario.js';

export const STORED_BUILTINS_FILE = 'builtin-scenarios.json';

/** A built-in as the build validated it. */
export interface StoredBuiltin {
  readonly text: string;
  readonly scenario: Scenario;
}

const BESIDE = fileURLToPath(new URL(`./${STORED_BUILTINS_FILE}`, import.meta.url));

/** The stored result for built-in `name` if its file still reads `text`; a fresh object each call. */
export function storedBuiltin(name: string, text: string, file: string = BESIDE): Scenario | undefined {
  let stored: Partial<Record<string, StoredBuiltin>>;
  try {
    stored = JSON.parse(readFileSync(file, 'utf8')) as Partial<Record<string, StoredBuiltin>>;
  } catch {
    return undefined;
  }
  const entry = stored[name];
  if (entry === undefined || entry.text !== text) return undefined;
  // As resolveScenario builds it: `link` is client 1's entry of clientLinks, one object.
  return { ...entry.scenario, link: entry.scenario.clientLinks[0] };
}
