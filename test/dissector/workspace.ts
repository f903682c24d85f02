// What every test file of the dissector's shares: a scratch folder with its own HOME for
// tshark, the Wireshark check before each test, and hex literals as bytes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { parseHex } from '../../src/core/codec/index.js';
import { requireWireshark } from './tshark.js';
import type { TsharkOptions } from './tshark.js';

export interface Workspace {
  work: string;
  options: TsharkOptions;
  wireshark: { version: string; lua: string };
}

/** Registers the hooks; the fields are set once beforeAll (work, options) and beforeEach (wireshark) ran. */
export function tsharkWorkspace(prefix: string): Workspace {
  const space = {} as Workspace;
  beforeAll(() => {
    space.work = mkdtempSync(join(tmpdir(), prefix));
    space.options = { home: join(space.work, 'home') };
  });
  // Each test checks for tshark itself, so that without it every test fails with
  // the reason (a failing beforeAll would report the tests as skipped).
  beforeEach(() => {
    space.wireshark = requireWireshark();
  });
  afterAll(() => {
    if (space.work) rmSync(space.work, { recursive: true, force: true });
  });
  return space;
}

export function hexBytes(text: string): Uint8Array {
  const parsed = parseHex(text);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.bytes;
}
