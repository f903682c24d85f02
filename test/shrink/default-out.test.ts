// The `shrink:` line swarm prints runs as printed: without --out the shrunk
// scenario, its trace and its capture go into the working directory, named after the repro.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shellWords } from '../../src/tools/swarm/repro.js';
import { cli } from '../support/cli.js';
import { defaultOut } from '../../src/cli/commands/shrink.js';
import { parseShrinkLine } from '../../src/tools/shrink/input.js';

describe('bcsim shrink without --out', () => {
  it('the shrink line of a swarm failure runs as printed and names its files after the run', async () => {
    const swarm = await cli([
      'swarm',
      '--seed',
      '9062024',
      '--index',
      '208',
      '--mode',
      'fixed',
      '--switch',
      'plantedBug=no-duplicate-ack',
    ]);
    expect(swarm.code, swarm.stdout + swarm.stderr).toBe(1);
    const printed = /^ {2}shrink: (bcsim shrink .*)$/m.exec(swarm.stdout)?.[1] as string;
    expect(printed).toBeDefined();
    const words = shellWords(printed);
    expect(words.slice(0, 2)).toEqual(['bcsim', 'shrink']);

    const dir = mkdtempSync(join(tmpdir(), 'bcsim-shrink-out-'));
    const r = await cli(words.slice(1), { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    for (const ext of ['json', 'trace', 'pcapng'])
      expect(existsSync(join(dir, `shrunk-swarm-9062024-208.${ext}`)), ext).toBe(true);
    expect(r.stdout).toContain(`wrote ${join(dir, 'shrunk-swarm-9062024-208.json')}`);
    expect(JSON.parse(readFileSync(join(dir, 'shrunk-swarm-9062024-208.json'), 'utf8')).link).toBeDefined();
  }, 120_000);

  it('a run line gets the scenario and seed in its name', () => {
    const line = "bcsim run scenarios/examples/my-fix.json --mode fixed --seed 9025 --set 'duration=116s' --json";
    expect(defaultOut(line, parseShrinkLine(line, process.cwd()))).toBe('shrunk-my-fix-seed-9025.json');
    const swarmLine = 'swarm:  bcsim swarm --seed 7 --index 12';
    expect(defaultOut(swarmLine, parseShrinkLine(swarmLine, process.cwd()))).toBe('shrunk-swarm-7-12.json');
  });

  it('an empty --out is still refused', async () => {
    const r = await cli(['shrink', 'bcsim swarm --seed 1 --index 0', '--out', '']);
    expect(r.code).toBe(2);
  });
});
