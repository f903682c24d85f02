// With the planted bug (a fixed-mode receiver that does not ACK a duplicate),
// swarm finds a failure, shrink reduces its recorded fault list to a handful of faults, and the
// shrunk scenario file, run by `bcsim run`, fails the same invariant on the same message.
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { DEFAULT_GENERATOR_SEED } from '../../src/tools/swarm/generator.js';
import { runSwarm } from '../../src/tools/swarm/swarm.js';
import { loadScenario } from '../../src/model/scenario/load.js';
import { executeScenario } from '../../src/tools/swarm/execute.js';
import { failsSameWay } from '../../src/tools/swarm/invariants.js';
import { specFor } from '../../src/tools/swarm/swarm.js';

const PLANTED = 'plantedBug=no-duplicate-ack';
/** A low-rate run of the committed generator seed that the planted bug breaks (see /tmp scan in the README text). */
const INDEX = 133;

describe('swarm and shrink on the planted bug', () => {
  it('swarm stops at the first failing run and prints its swarm and shrink lines', () => {
    const result = runSwarm({ generatorSeed: DEFAULT_GENERATOR_SEED, runs: 40, preset: 'fixed', switches: [PLANTED] });
    expect(result.failures).toHaveLength(1);
    expect(result.outcomes.length).toBe(result.failures[0].spec.index + 1);
    expect(result.failures[0].violations.map((v) => v.invariant)).toContain('2 end the link did not force');
    // The same run without the bug keeps the promise.
    const clean = runSwarm({
      generatorSeed: DEFAULT_GENERATOR_SEED,
      from: result.failures[0].spec.index,
      runs: 1,
      preset: 'fixed',
    });
    expect(clean.failures).toEqual([]);
  }, 120_000);

  it('shrinks the failure to at most 6 faults, and `bcsim run` of the shrunk file fails the same way', async () => {
    const line = `bcsim swarm --seed ${DEFAULT_GENERATOR_SEED} --index ${INDEX} --mode fixed --switch '${PLANTED}'`;
    const swarm = await cli([
      'swarm',
      '--seed',
      String(DEFAULT_GENERATOR_SEED),
      '--index',
      String(INDEX),
      '--switch',
      PLANTED,
    ]);
    expect(swarm.code, swarm.stdout + swarm.stderr).toBe(1);
    expect(swarm.stdout).toContain(`swarm:  ${line}`);
    expect(swarm.stdout).toContain('shrink: bcsim shrink ');

    const dir = mkdtempSync(join(tmpdir(), 'bcsim-shrink-'));
    const out = join(dir, 'shrunk.json');
    const shrunk = await cli(['shrink', line, '--out', out, '--budget', '300']);
    expect(shrunk.code, shrunk.stderr).toBe(0);
    expect(shrunk.stdout).toMatch(
      /^fails: 2 end the link did not force\/given-up (client|server) (low|high) seq \d+$/m,
    );
    expect(shrunk.stdout).toContain('replay: the recorded fault list alone gives the same run');
    const [, beforeEvents, beforeConfigured, afterEvents, afterConfigured] =
      /faults: (\d+) recorded events \+ (\d+) configured → (\d+) events \+ (\d+) configured/.exec(shrunk.stdout) ?? [];
    expect(Number(beforeEvents) + Number(beforeConfigured)).toBeGreaterThan(100);
    expect(Number(afterEvents) + Number(afterConfigured)).toBeLessThanOrEqual(6); // run 133: 2 drops and an outage
    expect(Number(afterEvents) + Number(afterConfigured)).toBeGreaterThan(0);
    expect(Number(/runs: (\d+) of the budget of 300/.exec(shrunk.stdout)?.[1])).toBeLessThanOrEqual(300);

    // The files: a scenario with explicit fault lists, its trace and its capture.
    const doc = JSON.parse(readFileSync(out, 'utf8'));
    const lists = [...(doc.link.clientToServer.faults ?? []), ...(doc.link.serverToClient.faults ?? [])];
    expect(lists.length).toBe(Number(afterEvents));
    for (const f of lists) expect(Object.keys(f)).toEqual(expect.arrayContaining(['at', 'datagram', 'action']));
    expect(readFileSync(join(dir, 'shrunk.trace'), 'utf8')).toContain('DROP(loss)');
    expect(statSync(join(dir, 'shrunk.pcapng')).size).toBeGreaterThan(1000);

    // `bcsim run` of the file alone: the same side gives a message up.
    const target = /^fails: (.*)$/m.exec(shrunk.stdout)?.[1] as string;
    const [, kind, from, category, seq] = /\/([\w-]+) (\w+) (\w+) seq (\d+)$/.exec(target) ?? [];
    const run = await cli(['run', out, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout);
    expect(summary.peers[from].gaveUp).toBeGreaterThan(0);
    // …and by the swarm's own check, with the run's spec: the same invariant on the same message.
    const spec = { ...specFor(DEFAULT_GENERATOR_SEED, INDEX, 'fixed', [PLANTED]), checks: [] };
    const again = executeScenario(spec, () => loadScenario(out), doc.seed);
    const goal = {
      invariant: '2 end the link did not force',
      detail: '',
      message: { kind, from, category, seq: Number(seq) } as never,
    };
    expect(failsSameWay(again.violations, goal)).toBe(true);
    // Its expect block makes `bcsim check` fail too.
    expect((await cli(['check', out])).code).toBe(1);
  }, 180_000);
});
