import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';

describe('bcsim run', () => {
  it('prints a short table', async () => {
    const r = await cli(['run', 'fragment-ack-bug', '--duration', '30s']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('fragment-ack-bug  mode stock  seed 1  30 s simulated');
    expect(r.stdout).toMatch(/retransmits \(fragment\)\s+│\s+0 \(0\)\s+│\s+\d+ \(\d+\)/);
    expect(r.stdout).toContain('reliable:');
  });

  it.each([
    [['--mode', 'fast'], /--mode: expected stock or fixed, optionally followed by \+switch=value, got "fast"/],
    [['--seed', '-3'], /--seed: expected a whole number/],
    [
      ['--duration', '4 hours'],
      /--duration: expected a duration of simulated time, like 30s, 10m or 4h, got "4 hours"/,
    ],
    [['--loss', 'high'], /--loss: expected a decimal number between 0 and 1, got "high"/],
    [['--set', 'link.both.loss'], /--set link.both.loss: expected path=value/],
  ])('bad flag %j exits 2 with one line', async (flags, message) => {
    const r = await cli(['run', 'fragment-ack-bug', ...flags]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('--loss replaces every loss model of the scenario, in both directions', async () => {
    const r = await cli(['run', 'lossy-link', '--loss', '0', '--duration', '30s', '--json']);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.links.clientToServer.droppedBy.loss).toBe(0);
    expect(s.links.serverToClient.droppedBy.loss).toBe(0);
    expect(s.links.clientToServer.reordered + s.links.clientToServer.duplicated).toBeGreaterThan(0); // the rest of the link stays
  });

  it('an unknown scenario name lists the built-ins', async () => {
    const r = await cli(['run', 'no-such-scenario']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no-such-scenario: no built-in scenario of that name \(try one of: .*fragment-ack-bug/);
  });

  it('a folder given as the scenario is named a directory, by name or by path', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'bcsim-run-dir-'));
    mkdirSync(join(cwd, 'adir'));
    for (const ref of ['adir', 'adir/', './adir']) {
      const r = await cli(['run', ref], { cwd });
      expect(r.stderr).toBe(`bcsim: ${ref}: is a directory, not a scenario file\n`);
      expect(r.code).toBe(2);
    }
  });

  it('a missing file says so in words; a bare name of a file that exists says how to read it', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'bcsim-run-file-'));
    const missing = await cli(['run', './nope.json'], { cwd });
    expect(missing.stderr).toBe('bcsim: ./nope.json: cannot read: no such file\n');
    expect(missing.code).toBe(2);
    writeFileSync(join(cwd, 'mine'), '{}');
    const bare = await cli(['run', 'mine'], { cwd });
    expect(bare.stderr).toMatch(
      /^bcsim: mine: no built-in scenario of that name \(.*\); to read the file mine, write \.\/mine\n$/,
    );
    expect(bare.code).toBe(2);
  });
});
