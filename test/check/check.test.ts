// `bcsim check`: expectations, reproduction commands, JUnit, determinism.
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluate, PathError, resolvePath } from '../../src/analysis/check/assertions.js';
import { compareRuns } from '../../src/analysis/check/determinism.js';
import { builtinNames, loadScenario } from '../../src/model/scenario/load.js';
import { runScenario } from '../../src/model/session/run.js';
import { cli } from '../support/cli.js';

describe('bcsim check on the built-in scenarios', () => {
  it('passes every expectation, and two runs of each give identical traces', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bcsim-check-'));
    const junit = join(dir, 'junit.xml');
    const r = await cli(['check', ...builtinNames(), '--check-determinism', '--junit', junit]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const runs = 2 * builtinNames().length;
    expect(r.stdout).toMatch(new RegExp(`${runs} runs: \\d+ passed, 0 failed\\n$`));
    expect(r.stdout.match(/✓ determinism: two runs, \d+ identical datagrams/g)).toHaveLength(runs);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="bcsim check" tests="\d+" failures="0">/,
    );
    expect(xml.match(/<testsuite /g)).toHaveLength(runs);
  }, 300_000); // every built-in twice (~90 s when the machine has other work): the timeout catches a hang, not slowness
});

describe('a deliberately wrong expectation', () => {
  it('exits 1, prints the reproduction command, and that command reproduces the value', async () => {
    const file = 'test/scenarios/wrong-expectation.json';
    const r = await cli(['check', file]);
    expect(r.code).toBe(1);
    const failed = r.stdout.match(/✗ peers\.client\.fragmentRetransmits = (\d+) {2}\(expected == 0\)/);
    expect(failed).not.toBeNull();
    expect(r.stdout).toContain('✓ delivery.reliableLost = 0');
    const command = r.stdout.match(/reproduce: (bcsim run .*)\n/)?.[1] as string;
    expect(command).toBe(`bcsim run ${file} --mode stock --seed 7 --json`);
    const rerun = await cli(command.split(' ').slice(1));
    expect(rerun.code).toBe(0);
    expect(JSON.parse(rerun.stdout).peers.client.fragmentRetransmits).toBe(Number(failed?.[1]));
    expect(Number(failed?.[1])).toBeGreaterThan(0);
  });

  it('writes the failure into JUnit XML with the reproduction command', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bcsim-junit-'));
    const junit = join(dir, 'out.xml');
    const r = await cli(['check', 'test/scenarios/wrong-expectation.json', '--junit', junit, '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).passed).toBe(false);
    const xml = readFileSync(junit, 'utf8');
    expect(readdirSync(dir)).toEqual(['out.xml']); // written by temporary and rename: nothing left beside it
    expect(xml).toContain('failures="1"');
    expect(xml).toMatch(
      /<failure message="peers\.client\.fragmentRetransmits is \d+, expected == 0">reproduce: bcsim run test\/scenarios\/wrong-expectation\.json --mode stock --seed 7 --json<\/failure>/,
    );
  });
});

// --junit is checked before anything runs.
describe('--junit into a place that cannot be written', () => {
  it('exits 2 with one line before running, whether under /proc, under a file or empty', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bcsim-junit-'));
    writeFileSync(join(dir, 'file'), 'x');
    const cases: [string, string][] = [
      ['/proc/x/junit.xml', 'the folder /proc/x does not exist'],
      ['file/junit.xml', `${join(dir, 'file')} is a file, not a folder`],
      // A mistyped folder is refused, never made.
      ['missing/deeper/junit.xml', `the folder ${join(dir, 'missing', 'deeper')} does not exist`],
      ['', 'an empty path names no file'],
      [dir, 'is a folder, not a file'],
    ];
    for (const [junit, problem] of cases) {
      const started = Date.now();
      // Every built-in, twice: running them would take far longer than 2 s.
      const r = await cli(['check', ...builtinNames(), '--check-determinism', '--junit', junit], { cwd: dir });
      expect(Date.now() - started).toBeLessThan(2000);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`bcsim: --junit ${junit === '' ? "''" : junit}: ${problem}\n`);
      expect(r.stdout).toBe('');
    }
    expect(readdirSync(dir)).toEqual(['file']);
  });

  it('is refused before a bad expect path would be found by running', async () => {
    const r = await cli(['check', 'test/scenarios/bad-expect-path.json', '--junit', '/proc/junit.xml']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('bcsim: --junit /proc/junit.xml: cannot write (/proc is a kernel filesystem)\n');
  });
});

describe('assertion paths', () => {
  const summary = runScenario(loadScenario('fragment-ack-bug'), { preset: 'fixed', durationUs: 10e6 }).summary;

  it('"*" expands to both peers', () => {
    expect(resolvePath(summary, 'peers.*.ackOutbox.max').map((r) => r.path)).toEqual([
      'peers.server.ackOutbox.max',
      'peers.client.ackOutbox.max',
    ]);
    const results = evaluate(summary, { 'peers.*.retransmits': { eq: 0, lte: 5 } });
    expect(results).toHaveLength(4);
    expect(results.every((r) => r.pass)).toBe(true);
  });

  it('a path that names no summary field is an error, never a pass', () => {
    expect(() => resolvePath(summary, 'peers.*.ackOutbox.maximum')).toThrow(PathError);
    expect(() => resolvePath(summary, 'delivery')).toThrow(/not a number/);
    expect(() => resolvePath(summary, 'links.*.sent')).toThrow(
      /allowed only as peers\.\*, peers\.server\.connections\.\*/,
    );
  });

  it('the CLI exits 2 with one line naming the file and the path', async () => {
    const r = await cli(['check', 'test/scenarios/bad-expect-path.json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'bcsim: test/scenarios/bad-expect-path.json: expect: peers.*.ackOutbox.maximum: no summary field "maximum" under peers.server.ackOutbox (known: final, max)\n',
    );
  });

  it('a scenario without expectations is refused unless determinism is checked', async () => {
    const r = await cli(['check', 'test/scenarios/minimal.json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no expectations to check/);
    const d = await cli(['check', 'test/scenarios/minimal.json', '--check-determinism']);
    expect(d.code).toBe(0);
  });
});

describe('determinism comparison', () => {
  it('names the first diverging datagram when two runs differ', () => {
    const scenario = loadScenario('fragment-ack-bug', { sets: ['link.both.loss=0.2'] });
    const a = runScenario(scenario, { seed: 1, keepDigests: true, durationUs: 30e6 });
    const b = runScenario(scenario, { seed: 2, keepDigests: true, durationUs: 30e6 });
    const verdict = compareRuns(a, b);
    expect(verdict.identical).toBe(false);
    expect(verdict.message).toMatch(
      /^runs differ: first diverging datagram is #\d+ \(run 1: t=\d+\.\d{6} s from (client|server); run 2: /,
    );
    expect(compareRuns(a, runScenario(scenario, { seed: 1, keepDigests: true, durationUs: 30e6 })).identical).toBe(
      true,
    );
  });
});
