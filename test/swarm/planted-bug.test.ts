// The harness's self-test: with the planted bug `no-duplicate-ack` (a receiver
// that does not ACK a reliable message it has seen before) forced into every run, the swarm must
// fail, print a command that carries the bug, and that command must fail the same way.
import { describe, expect, it } from 'vitest';
import { generateRun, generateRuns } from '../../src/tools/swarm/generator.js';
import { reproCommand } from '../../src/tools/swarm/repro.js';
import type { RunSpec } from '../../src/tools/swarm/spec.js';
import { executeCommand, executeRun, executeRuns } from '../../src/tools/swarm/execute.js';
import { formatFailure, formatReport } from '../../src/tools/swarm/report.js';
import { generatorSeedFromEnv } from './chunks.js';

const PLANTED = 'no-duplicate-ack';
/** The first 100 runs of the swarm, less the high-rate ones (most of the cost, nothing extra here). */
const SUBSET = 100;

const isHighRate = (spec: RunSpec) => spec.classes.some((c) => c === 'rate 2500/s' || c === 'rate 500-2499/s');

describe(`planted bug "${PLANTED}"`, () => {
  it('makes the swarm fail, and the printed command reproduces the failure exactly', () => {
    const generatorSeed = generatorSeedFromEnv();
    const specs = generateRuns(generatorSeed, 0, SUBSET, { plantedBug: PLANTED }).filter((s) => !isHighRate(s));
    const outcomes = executeRuns(specs);
    const failures = outcomes.filter((o) => o.violations.length > 0);
    expect(
      failures.length,
      `the swarm did not catch plantedBug ${PLANTED} in ${specs.length} runs (is it implemented?)`,
    ).toBeGreaterThan(0);

    // Every failing run's command carries the bug, in the mode --set.
    for (const f of failures) expect(reproCommand(f.spec)).toContain(`--set 'mode={"preset":"fixed",`);
    for (const f of failures) expect(reproCommand(f.spec)).toContain(`"plantedBug":"${PLANTED}"}'`);
    expect(formatReport(outcomes)).toContain(`"plantedBug":"${PLANTED}"`);

    // The first failure's printed command, taken from the printed text, re-run through loadScenario.
    const first = failures[0];
    const printed = formatFailure(first);
    const line = printed
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.startsWith('repro: '))
      ?.slice('repro: '.length);
    expect(line, printed).toBeDefined();
    expect(line?.startsWith('bcsim run fragment-ack-bug --mode fixed --seed ')).toBe(true);
    expect(line?.endsWith(' --json')).toBe(true);
    const again = executeCommand(line as string, first.spec);
    expect(again.traceHash).toBe(first.traceHash);
    expect(again.violations).toEqual(first.violations);
    expect(again.violations.length).toBeGreaterThan(0);

    // The same run without the bug keeps the promise: the failure is the bug's doing.
    const clean = executeRun(generateRun(generatorSeed, first.spec.index));
    expect(clean.violations, formatFailure(clean)).toEqual([]);
  }, 180_000);
});
