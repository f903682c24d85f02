// The system's refusals of a path are told in words, never as Node's codes.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileErrorText, systemErrorWords } from '../../src/core/files/index.js';

/** The error a real file operation throws. */
function thrown(operation: () => unknown): unknown {
  try {
    operation();
  } catch (error) {
    return error;
  }
  throw new Error('the operation did not fail');
}

describe('systemErrorWords', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bcsim-errors-'));
  writeFileSync(join(dir, 'file'), 'x');

  it('words the refusals a typed path meets', () => {
    expect(systemErrorWords(thrown(() => readFileSync(join(dir, 'nope'))))).toBe('no such file');
    expect(systemErrorWords(thrown(() => readFileSync(dir)))).toBe('is a directory');
    expect(systemErrorWords(thrown(() => readFileSync(join(dir, 'file', 'x'))))).toBe('a parent is not a folder');
    // Root reads anything: the code as the system reports it.
    const denied = Object.assign(new Error("EACCES: permission denied, open 'x'"), {
      code: 'EACCES',
      errno: -constants.errno.EACCES,
    });
    expect(systemErrorWords(denied)).toBe('permission denied');
  });

  it('a missing path being written is its folder', () => {
    const error = thrown(() => writeFileSync(join(dir, 'gone', 'x.xml'), ''));
    expect(systemErrorWords(error, true)).toBe('its folder does not exist');
  });

  it("a code it has no words of its own for gets the system's, never the code", () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), {
      code: 'ECONNREFUSED',
      errno: -constants.errno.ECONNREFUSED,
    });
    expect(systemErrorWords(refused)).toBe('connection refused');
    const unknown = Object.assign(new Error('ENOVEL: something'), { code: 'ENOVEL' });
    expect(systemErrorWords(unknown)).toBe('refused by the system');
  });

  it('another error is not a system error: its own message', () => {
    expect(systemErrorWords(new Error('plain'))).toBeUndefined();
    expect(systemErrorWords(Object.assign(new Error('x'), { code: 'ERR_INVALID_ARG_TYPE' }))).toBeUndefined();
    expect(fileErrorText(new Error('plain'))).toBe('plain');
    expect(fileErrorText(thrown(() => readFileSync(dir)))).toBe('is a directory');
  });
});
