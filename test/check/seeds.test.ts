// `bcsim check --seed/--seeds/--set/--duration`: seed sweeps
// for CI, the first failing seed with a command that really reproduces it.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_SEEDS, parseSeedList } from '../../src/analysis/check/seeds.js';
import { builtinNames, listBuiltins, loadScenario } from '../../src/model/scenario/load.js';
import { runScenario } from '../../src/model/session/run.js';
import { cli } from '../support/cli.js';
import { cpuMs, withCpuMs } from '../support/cpu.js';

const SWEEP = 'test/check/seed-sweep.json';
const BOUND = 12; // the fixture's links.clientToServer.droppedBy.loss <= 12

/** The fixture's loss count for one seed, run by the library rather than by check. */
function lossCount(seed: number, sets: string[] = [], durationUs?: number): number {
  return runScenario(loadScenario(SWEEP, { sets }), { preset: 'fixed', seed, durationUs }).summary.links.clientToServer
    .droppedBy.loss;
}

describe('--seeds list syntax', () => {
  it('takes ranges, single seeds and comma lists, in the order given', () => {
    expect(parseSeedList('1..5')).toEqual({ seeds: [1, 2, 3, 4, 5] });
    expect(parseSeedList('7')).toEqual({ seeds: [7] });
    expect(parseSeedList('9,1..3, 42')).toEqual({ seeds: [9, 1, 2, 3, 42] });
    expect(parseSeedList('0..0')).toEqual({ seeds: [0] });
    expect(parseSeedList('4294967295')).toEqual({ seeds: [4294967295] });
  });

  it(`allows at most ${MAX_SEEDS} seeds, counted without building the list`, () => {
    const most = parseSeedList(`1..${MAX_SEEDS}`);
    expect('seeds' in most && most.seeds.length).toBe(MAX_SEEDS);
    expect(parseSeedList(`0..${MAX_SEEDS}`)).toEqual({ problem: 'at most 10,000 seeds per check, got "0..10000"' });
    // Building 4.3 billion seeds would take minutes of CPU (and more memory than there is).
    const started = cpuMs();
    expect(parseSeedList('0..4294967295')).toEqual({ problem: 'at most 10,000 seeds per check, got "0..4294967295"' });
    expect(cpuMs() - started).toBeLessThan(1000);
  });

  it('names the problem of a bad list', () => {
    expect(parseSeedList('')).toEqual({ problem: 'expected seeds like 1..20, 5..9 or 1,4,9, got ""' });
    expect(parseSeedList('1..')).toEqual({
      problem: 'expected seeds like 1..20, 5..9 or 1,4,9, got "1.." ("1.." is neither a seed nor a range a..b)',
    });
    for (const text of ['a', '..5', '1...5', '-1', '1e3', '0x10', '1-5', '1..2..3', '1;2'])
      expect(parseSeedList(text)).toHaveProperty('problem');
    expect(parseSeedList('1,,2')).toHaveProperty('problem');
    expect(parseSeedList('9..5')).toEqual({ problem: 'the range 9..5 runs backwards (write 5..9), got "9..5"' });
    expect(parseSeedList('1..4294967296')).toEqual({
      problem: 'a seed is a whole number 0..4294967295, got "1..4294967296"',
    });
    expect(parseSeedList('1..10,5')).toEqual({ problem: 'seed 5 is given twice in "1..10,5"' });
  });
});

describe('bad --seed, --seeds and --duration values', () => {
  it('exit 2 with one line naming the flag, before anything runs', async () => {
    const many = ['--seeds', '1..10000'];
    const cases: [string[], string | RegExp][] = [
      [
        ['--seeds', '1..abc'],
        'bcsim: --seeds: expected seeds like 1..20, 5..9 or 1,4,9, got "1..abc" ("1..abc" is neither a seed nor a range a..b)\n',
      ],
      [['--seeds', '1..20000'], 'bcsim: --seeds: at most 10,000 seeds per check, got "1..20000"\n'],
      [['--seeds', '20..1'], 'bcsim: --seeds: the range 20..1 runs backwards (write 1..20), got "20..1"\n'],
      [['--seeds', ''], 'bcsim: --seeds: expected seeds like 1..20, 5..9 or 1,4,9, got ""\n'],
      [['--seeds', '1..3', '--seed', '2'], 'bcsim: --seeds: give either --seed or --seeds, not both\n'],
      [['--seed', '-1'], 'bcsim: --seed: expected a whole number 0..4294967295, got "-1"\n'],
      [
        [...many, '--duration', 'soon'],
        'bcsim: --duration: expected a duration of simulated time, like 30s, 10m or 4h, got "soon"\n',
      ],
      [
        [...many, '--duration', '0s'],
        'bcsim: --duration: expected a duration of simulated time, like 30s, 10m or 4h, got "0s"\n',
      ],
      [
        [...many, '--set', 'link.both.loss=2'],
        /^bcsim: --set link\.both\.loss=2: link\.both\.loss: expected a number between 0 and 1, got 2\n$/,
      ],
    ];
    for (const [flags, stderr] of cases) {
      // Every built-in, for up to 10,000 seeds: running any of it would take far more than a few
      // seconds of CPU (CPU time, not wall time: a machine busy with other work stretches only that).
      const { value: r, cpuMs: used } = await withCpuMs(() => cli(['check', ...builtinNames(), ...flags]));
      expect(used).toBeLessThan(5000);
      expect(r.code).toBe(2);
      if (typeof stderr === 'string') expect(r.stderr).toBe(stderr);
      else expect(r.stderr).toMatch(stderr);
      expect(r.stdout).toBe('');
    }
  });

  it('an expect path that names no summary field is refused before a sweep runs', async () => {
    const { value: r, cpuMs: used } = await withCpuMs(() =>
      cli(['check', 'test/scenarios/bad-expect-path.json', '--seeds', '1..10000']),
    );
    expect(used).toBeLessThan(5000);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^bcsim: test\/scenarios\/bad-expect-path\.json: expect: peers\.\*\.ackOutbox\.maximum: no summary field "maximum"/,
    );
    expect(r.stdout).toBe('');
  });
});

describe('a sweep with failing seeds', () => {
  // Computed independently of check: which seeds break the fixture's bound.
  const seeds = [1, 2, 3, 4, 5, 6, 7, 8];
  const failing = seeds.filter((s) => lossCount(s) > BOUND);
  const first = failing[0];

  it('the fixture really has passing and failing seeds', () => {
    expect(failing.length).toBeGreaterThan(0);
    expect(first).toBeGreaterThan(1);
  });

  it('runs every seed in order, exits 1, and names the first failing seed with a command that reproduces it', async () => {
    const r = await cli(['check', SWEEP, '--seeds', '1..8']);
    // The fixture's 20 s end inside its 15 s of combat after the join: said, and its upper bounds still judged.
    expect(r.stderr).toBe(
      'bcsim: warning: the phase plan is cut: the run ends at 20s inside traffic.phases[1] (combat, 15s)\n',
    );
    expect(r.code).toBe(1);
    const titles = [...r.stdout.matchAll(/^([✓✗]) seed-sweep \[fixed\] seed (\d+): /gm)].map((m) => [
      m[1],
      Number(m[2]),
    ]);
    expect(titles).toEqual(seeds.map((s) => [failing.includes(s) ? '✗' : '✓', s]));
    const tail = r.stdout.split('\n').slice(-5);
    expect(tail).toEqual([
      `8 runs: ${16 - failing.length} passed, ${failing.length} failed`,
      `seeds 1..8: ${failing.length} of 8 failed: ${failing.join(', ')}`,
      `first failing seed: ${first} (seed-sweep [fixed]); reproduce it with:`,
      `  bcsim check ${SWEEP} --mode fixed --seed ${first}`,
      '',
    ]);

    // The command really reproduces the failure, with the same value.
    const command = tail[3].trim();
    const again = await cli(command.split(' ').slice(1));
    expect(again.code).toBe(1);
    expect(again.stdout).toContain(
      `✗ links.clientToServer.droppedBy.loss = ${lossCount(first)}  (expected <= ${BOUND})`,
    );
    // So does the summary command printed under the failing run.
    const summaryCommand = new RegExp(`seed ${first}: [^]*?summary: +(bcsim run .*)\\n`).exec(r.stdout)?.[1] as string;
    expect(summaryCommand).toBe(`bcsim run ${SWEEP} --mode fixed --seed ${first} --json`);
    const rerun = await cli(summaryCommand.split(' ').slice(1));
    expect(rerun.code).toBe(0);
    expect(JSON.parse(rerun.stdout).links.clientToServer.droppedBy.loss).toBe(lossCount(first));
  });

  it('--json is one JSON object with the failing seeds and the first failure', async () => {
    const r = await cli(['check', SWEEP, '--seeds', '1..8', '--json']);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc.passed).toBe(false);
    expect(doc.failingSeeds).toEqual(failing);
    expect(doc.firstFailure).toEqual({
      seed: first,
      scenario: 'seed-sweep',
      ref: SWEEP,
      mode: 'fixed',
      recheck: `bcsim check ${SWEEP} --mode fixed --seed ${first}`,
      reproduce: `bcsim run ${SWEEP} --mode fixed --seed ${first} --json`,
    });
    expect(doc.runs.map((run: { seed: number; pass: boolean }) => [run.seed, run.pass])).toEqual(
      seeds.map((s) => [s, !failing.includes(s)]),
    );
    expect(doc.runs.every((run: { settings: { seed: number }; seed: number }) => run.settings.seed === run.seed)).toBe(
      true,
    );
  });

  it('writes deterministic JUnit with one suite per seed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bcsim-seeds-'));
    const xml = [1, 2].map(async (n) => {
      const file = join(dir, `junit-${n}.xml`);
      const r = await cli(['check', SWEEP, '--seeds', '1..8', '--junit', file]);
      expect(r.code).toBe(1);
      return readFileSync(file, 'utf8');
    });
    const [a, b] = await Promise.all(xml);
    expect(a).toBe(b);
    expect(a).toMatch(
      new RegExp(
        `^<\\?xml version="1.0" encoding="UTF-8"\\?>\\n<testsuites name="bcsim check" tests="16" failures="${failing.length}">\\n`,
      ),
    );
    expect([...a.matchAll(/<testsuite name="([^"]+)"/g)].map((m) => m[1])).toEqual(
      seeds.map((s) => `seed-sweep [fixed] seed ${s}`),
    );
    expect(a).toContain(
      `<testcase classname="seed-sweep [fixed] seed ${first}" name="links.clientToServer.droppedBy.loss &lt;= ${BOUND}"><failure message="links.clientToServer.droppedBy.loss is ${lossCount(first)}, expected &lt;= ${BOUND}">reproduce: bcsim run ${SWEEP} --mode fixed --seed ${first} --json</failure></testcase>`,
    );
    expect(a.match(/<testsuite /g)).toHaveLength(8);
    expect(a.match(/<\/testsuite>/g)).toHaveLength(8);
    expect(a.endsWith('</testsuites>\n')).toBe(true);
  });

  it('a sweep that passes says so', async () => {
    const passing = seeds.filter((s) => !failing.includes(s)).slice(0, 3);
    const r = await cli(['check', SWEEP, '--seeds', passing.join(',')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`\\nseeds ${passing.join(',')}: all 3 passed\\n$`));
    expect(r.stdout).not.toContain('first failing seed');
  });
});

describe('--seed, --set and --duration apply to every run', () => {
  it('--seed runs that seed and prints the usual listing', async () => {
    const first = [1, 2, 3, 4, 5, 6, 7, 8].find((s) => lossCount(s) > BOUND) as number;
    const r = await cli(['check', SWEEP, '--seed', String(first)]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      `seed-sweep [fixed] seed ${first}\n  ✗ links.clientToServer.droppedBy.loss = ${lossCount(first)}  (expected <= ${BOUND})`,
    );
    expect(r.stdout).toContain(`  reproduce: bcsim run ${SWEEP} --mode fixed --seed ${first} --json\n`);
  });

  it('--set and --duration change what runs, and the reproduction commands carry them', async () => {
    const first = [1, 2, 3, 4, 5, 6, 7, 8].find((s) => lossCount(s) > BOUND) as number;
    // A lossless link: the seed that failed now passes.
    const lossless = await cli(['check', SWEEP, '--seed', String(first), '--set', 'link.both.loss=0', '--json']);
    expect(lossless.code).toBe(0);
    const run = JSON.parse(lossless.stdout).runs[0];
    expect(run.results[0].actual).toBe(0);
    expect(run.settings.set).toEqual(['link.both.loss=0']);

    // Heavier loss and a shorter run: the values are those of that run, not of the file's.
    const sets = ['link.both.loss=0.3'];
    const r = await cli(['check', SWEEP, '--seeds', '1..3', '--duration', '10s', '--set', sets[0], '--json']);
    const doc = JSON.parse(r.stdout);
    for (const [i, seed] of [1, 2, 3].entries()) {
      const got = doc.runs[i];
      expect(got.seed).toBe(seed);
      expect(got.durationSeconds).toBe(10);
      expect(got.settings.durationSeconds).toBe(10);
      expect(got.settings.set).toEqual(sets);
      expect(got.results[0].actual).toBe(lossCount(seed, sets, 10e6));
      expect(got.recheck).toBe(
        `bcsim check ${SWEEP} --mode fixed --seed ${seed} --duration 10s --set link.both.loss=0.3`,
      );
      expect(got.reproduce).toBe(
        `bcsim run ${SWEEP} --mode fixed --seed ${seed} --duration 10s --set link.both.loss=0.3 --json`,
      );
    }
    expect(lossCount(1, sets, 10e6)).not.toBe(lossCount(1));
    expect(doc.passed).toBe([1, 2, 3].every((seed) => lossCount(seed, sets, 10e6) <= BOUND));
    expect(r.code).toBe(doc.passed ? 0 : 1);
    if (doc.firstFailure) {
      const again = await cli(doc.firstFailure.recheck.split(' ').slice(1));
      expect(again.code).toBe(1);
    }
    const rerun = await cli(doc.runs[0].reproduce.split(' ').slice(1));
    expect(JSON.parse(rerun.stdout).links.clientToServer.droppedBy.loss).toBe(doc.runs[0].results[0].actual);
    expect(JSON.parse(rerun.stdout).simulatedSeconds).toBe(10);
  });
});

describe('the example scenario for the README', () => {
  it('scenarios/examples/my-fix.json is valid and passes, and is not a built-in', async () => {
    const r = await cli(['check', 'scenarios/examples/my-fix.json', '--seeds', '1..3']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\nseeds 1\.\.3: all 3 passed\n$/);
    expect(listBuiltins().map((b) => b.name)).not.toContain('my-fix');
  });

  it('fails when a remedy is taken back, so it can catch a regression', async () => {
    const r = await cli([
      'check',
      'scenarios/examples/my-fix.json',
      '--seed',
      '1',
      '--set',
      'mode={"preset":"fixed","ackOutbox":"two-pass-gated"}',
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✗ peers\.(server|client)\.ackOutboxDeadZone\.max = [1-9]\d*  \(expected == 0\)/);
    expect(r.stdout).toContain(
      `reproduce: bcsim run scenarios/examples/my-fix.json --mode fixed --seed 1 --set 'mode={"preset":"fixed","ackOutbox":"two-pass-gated"}' --json`,
    );
  });
});
