// Telling a scheme scenario from a BC one by its ref. It lives here, with
// the BC loader, so the CLI can ask on every BC load's error path without loading the
// R-Type model (src/rtype/schemes/, which re-exports these).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve as resolvePath } from 'node:path';
import { withoutByteOrderMark } from './errors.js';
import { BUILTIN_DIR, looksLikePath } from './load.js';

/** The package's scenarios/schemes/ folder. */
export const SCHEME_BUILTIN_DIR = join(BUILTIN_DIR, 'schemes');

/** Far above any hand-written scheme scenario; checked before reading. */
export const MAX_SCHEME_FILE_BYTES = 1024 * 1024;

/**
 * Whether `ref` names a scheme scenario: a scheme built-in (a BC built-in of the
 * same name wins), or a readable JSON file whose top level has a `scheme` key.
 * Anything else (a BC scenario, a missing or broken file) is left to the BC loader.
 */
export function isSchemeScenarioRef(ref: string, cwd: string): boolean {
  if (!looksLikePath(ref))
    return (
      existsSync(resolvePath(SCHEME_BUILTIN_DIR, `${ref}.json`)) && !existsSync(resolvePath(BUILTIN_DIR, `${ref}.json`))
    );
  try {
    const file = resolvePath(cwd, ref);
    if (!statSync(file).isFile() || statSync(file).size > MAX_SCHEME_FILE_BYTES) return false;
    const document: unknown = JSON.parse(withoutByteOrderMark(readFileSync(file, 'utf8')));
    return (
      document !== null && typeof document === 'object' && !Array.isArray(document) && Object.hasOwn(document, 'scheme')
    );
  } catch {
    return false;
  }
}
