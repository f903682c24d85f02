// Shared by the swarm-N tests: runs a range of the swarm in chunks, one test per chunk, and fails
// a chunk with the full report (every failing run, every violation, a command each); then checks
// that the range held multi-client runs, per-client link faults, and every fault kind often enough.
// CI runs 100 runs on each of three generator seeds (swarm-1, -2, -3); `npm run soak` runs ten
// seeds of 1,000. 100 per seed is sized to what the promise needs in CI: every fault kind fires at
// least 10 times in each seed's range (checked below), with 14 to 18 multi-client runs whose own links fault.
import { describe, expect, it } from 'vitest';
import { DEFAULT_GENERATOR_SEED, generateRuns } from '../../src/tools/swarm/generator.js';
import { executeRuns } from '../../src/tools/swarm/execute.js';
import type { RunOutcome } from '../../src/tools/swarm/execute.js';
import { formatReport } from '../../src/tools/swarm/report.js';

/** The committed swarm's generator seed; BCSIM_SWARM_SEED overrides it. */
export function generatorSeedFromEnv(): number {
  const raw = process.env.BCSIM_SWARM_SEED;
  if (raw === undefined || raw === '') return DEFAULT_GENERATOR_SEED;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff)
    throw new Error(`BCSIM_SWARM_SEED: expected a whole number 0..4294967295, got "${raw}"`);
  return n;
}

/** Generous: a chunk takes a few seconds; the machine may be shared. */
const CHUNK_TIMEOUT_MS = 180_000;

/** Runs per generator seed in CI. */
export const CI_RUNS_PER_SEED = 100;

/** Each fault kind the generator plants, and how often at least it must fire in a CI range. */
const FAULT_KINDS = ['loss', 'duplicate', 'outage', 'rule', 'reorder', 'bandwidth', 'slot', 'giveUp'] as const;
const MIN_PER_FAULT_KIND = 10;

/** Two more generator seeds CI runs, so that a generator or a check tuned to one seed's runs cannot pass alone. */
export const MORE_CI_SEEDS = [11, 777] as const;

export function swarmChunks(from: number, to: number, chunk = 50, generatorSeed = generatorSeedFromEnv()): void {
  const passed: RunOutcome[] = [];
  describe(`fixed-mode swarm, generator seed ${generatorSeed}`, () => {
    for (let start = from; start < to; start += chunk) {
      const end = Math.min(to, start + chunk);
      it(
        `runs ${start}..${end - 1} keep the promise (exactly once, in order, or the connection ends and losses are counted)`,
        () => {
          const outcomes = executeRuns(generateRuns(generatorSeed, start, end));
          const failures = outcomes.filter((o) => o.violations.length > 0);
          if (failures.length > 0) expect.fail(`\n${formatReport(outcomes)}`);
          expect(outcomes).toHaveLength(end - start);
          passed.push(...outcomes);
        },
        CHUNK_TIMEOUT_MS,
      );
    }
    // Every passing run kept invariant 4, so each of its per-client faults fired on that client's links.
    it(`runs ${from}..${to - 1} include multi-client runs, and per-client link faults that fired`, () => {
      expect(passed, 'a chunk above failed').toHaveLength(to - from);
      // A run the link ended before a fault acted passes; it must stay the exception.
      expect(passed.filter((o) => o.notExercised.length > 0).length).toBeLessThanOrEqual(0.02 * (to - from));
      const multi = passed.filter((o) => o.spec.clients > 1);
      const own = multi.filter((o) => o.spec.checks.some((c) => c.fault !== 'giveUp' && c.client !== undefined));
      expect(multi.length).toBeGreaterThanOrEqual(0.15 * (to - from));
      expect(own.length).toBeGreaterThanOrEqual(5);
      for (const o of own) expect(o.violations).toEqual([]);
      for (const kind of FAULT_KINDS) {
        const fired = passed.flatMap((o) => o.spec.checks).filter((c) => c.fault === kind).length;
        expect(fired, `fault kind ${kind}`).toBeGreaterThanOrEqual(MIN_PER_FAULT_KIND);
      }
    });
  });
}
