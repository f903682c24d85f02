// The built-ins the build validates once (src/model/scenario/stored.ts): the stored result is
// exactly what the schema path returns, and only for the exact text it was made from.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  BUILTIN_DIR,
  builtinNames,
  loadScenario,
  parseScenario,
  storedBuiltins,
} from '../../src/model/scenario/load.js';
import { STORED_BUILTINS_FILE, storedBuiltin } from '../../src/model/scenario/stored.js';
import { DEFAULT_MANIFEST } from '../../src/model/traffic/manifest.js';

const textOf = (name: string) => readFileSync(join(BUILTIN_DIR, `${name}.json`), 'utf8');
/** What the build writes, in a file of its own. */
function storedFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'bcsim-stored-')), STORED_BUILTINS_FILE);
  writeFileSync(file, JSON.stringify(storedBuiltins()));
  return file;
}

describe('stored built-ins', () => {
  const file = storedFile();

  it('store every built-in, by file name, with its exact text', () => {
    const stored = storedBuiltins();
    expect(Object.keys(stored)).toEqual(builtinNames());
    for (const name of builtinNames()) expect(stored[name].text).toBe(textOf(name));
  });

  // loadScenario runs from src/ here, where no stored file sits beside the loader: the schema's own result.
  for (const name of builtinNames()) {
    it(`${name}: the stored result is exactly the schema's, link shared with clientLinks[0] as resolve makes it`, () => {
      const stored = storedBuiltin(name, textOf(name), file);
      expect(stored).toStrictEqual(loadScenario(name));
      expect(stored?.link).toBe(stored?.clientLinks[0]);
      // The join's checksum manifest is part of it (none of the built-ins declares one).
      expect(stored?.traffic.manifest).toStrictEqual(DEFAULT_MANIFEST);
    });
  }

  it('returns a fresh object on every call', () => {
    const a = storedBuiltin('lossy-link', textOf('lossy-link'), file);
    const b = storedBuiltin('lossy-link', textOf('lossy-link'), file);
    expect(a).toStrictEqual(b);
    expect(a).not.toBe(b);
    expect(a?.params).not.toBe(b?.params);
  });

  it('has nothing for an edited file, an unknown name or a missing store: the schema decides', () => {
    const edited = textOf('lossy-link').replace('"seed": 1', '"seed": 2');
    expect(edited).not.toBe(textOf('lossy-link'));
    expect(storedBuiltin('lossy-link', edited, file)).toBeUndefined();
    expect(storedBuiltin('lossy-link', `${textOf('lossy-link')} `, file)).toBeUndefined();
    expect(storedBuiltin('no-such-builtin', textOf('lossy-link'), file)).toBeUndefined();
    expect(
      storedBuiltin('lossy-link', textOf('lossy-link'), join(tmpdir(), 'bcsim-no-such-dir', STORED_BUILTINS_FILE)),
    ).toBeUndefined();
    // An edit the schema rejects still gets the schema's message.
    const broken = textOf('lossy-link').replace('"reorder": 0.1', '"reorder": "high"');
    expect(broken).not.toBe(textOf('lossy-link'));
    expect(storedBuiltin('lossy-link', broken, file)).toBeUndefined();
    expect(() => parseScenario(broken, 'scenarios/lossy-link.json')).toThrow(
      'scenarios/lossy-link.json: link.both.reorder: expected a number between 0 and 1, got "high"',
    );
  });

  it('the build stored the current built-ins beside both compiled loaders (npm test builds first)', () => {
    for (const dir of ['../../dist/model/scenario/', '../../dist/cli/']) {
      const built = fileURLToPath(new URL(`${dir}${STORED_BUILTINS_FILE}`, import.meta.url));
      for (const name of builtinNames())
        expect(storedBuiltin(name, textOf(name), built)).toStrictEqual(loadScenario(name));
    }
  });
});
