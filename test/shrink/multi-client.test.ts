// Shrinking a multi-client failure: every client's link decisions are recorded and
// replayed as link.clients["k"] fault lists, and the shrunk file fails the same invariant on the
// same message (on the same client) under `bcsim run`, the swarm's own check and `bcsim check`.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { DEFAULT_GENERATOR_SEED } from '../../src/tools/swarm/generator.js';
import { loadScenario } from '../../src/model/scenario/load.js';
import { executeRun, executeScenario } from '../../src/tools/swarm/execute.js';
import { failsSameWay } from '../../src/tools/swarm/invariants.js';
import { specFor } from '../../src/tools/swarm/swarm.js';

const PLANTED = 'plantedBug=no-duplicate-ack';
/** A 3-client run of the committed generator seed that the planted bug breaks (found by a scan of the fixed preset). */
const INDEX = 228;
const BUDGET = 120;

describe('shrink on a multi-client run', () => {
  it('records, replays and shrinks every client’s link decisions; the shrunk file fails the same way', async () => {
    const spec = specFor(DEFAULT_GENERATOR_SEED, INDEX, 'fixed', [PLANTED]);
    expect(spec.clients).toBe(3);
    // The bug's doing: the run without it keeps every invariant.
    expect(executeRun(specFor(DEFAULT_GENERATOR_SEED, INDEX, 'fixed')).violations).toEqual([]);

    const line = `bcsim swarm --seed ${DEFAULT_GENERATOR_SEED} --index ${INDEX} --mode fixed --switch '${PLANTED}'`;
    const dir = mkdtempSync(join(tmpdir(), 'bcsim-shrink-multi-'));
    const out = join(dir, 'shrunk.json');
    const shrunk = await cli(['shrink', line, '--out', out, '--budget', String(BUDGET)]);
    expect(shrunk.code, shrunk.stderr).toBe(0);
    expect(shrunk.stdout).toContain('replay: the recorded fault list alone gives the same run');
    const target = /^fails: (.*)$/m.exec(shrunk.stdout)?.[1] as string;
    // The target names its client when it is not client 1.
    const [, invariant, kind, from, category, seq, onClient] =
      /^(.*)\/([\w-]+) (\w+) (\w+) seq (\d+)(?: on client (\d+))?$/.exec(target) ?? [];
    const client = onClient ?? '1';
    expect(invariant, shrunk.stdout).toBe('2 end the link did not force');
    expect(kind).toBe('given-up');
    expect(client).toBe('1');
    const [, before, configuredBefore, after, configuredAfter] =
      /faults: (\d+) recorded events \+ (\d+) configured → (\d+) events \+ (\d+) configured/.exec(shrunk.stdout) ?? [];
    // Three clients' recorded link decisions and a shared drop rule: a handful is enough.
    expect(Number(before)).toBeGreaterThan(1000);
    expect(Number(after) + Number(configuredAfter)).toBeLessThanOrEqual(5);
    expect(Number(configuredAfter)).toBeLessThanOrEqual(Number(configuredBefore));
    expect(Number(/runs: (\d+) of the budget of 120/.exec(shrunk.stdout)?.[1])).toBeLessThanOrEqual(BUDGET);

    // Each client's own list, in link.clients["k"]; none in the shared blocks.
    const doc = JSON.parse(readFileSync(out, 'utf8'));
    expect(doc.clients).toBe(3);
    expect(doc.link.clientToServer.faults).toBeUndefined();
    const lists = [1, 2, 3].flatMap((k) => [
      doc.link.clients[k].clientToServer.faults,
      doc.link.clients[k].serverToClient.faults,
    ]);
    for (const list of lists) expect(Array.isArray(list)).toBe(true);
    expect(lists.flat()).toHaveLength(Number(after));

    // `bcsim run` of the file: the same side gives a message up.
    const run = await cli(['run', out, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout);
    expect(summary.peers[from].gaveUp).toBeGreaterThan(0);
    // The swarm's own check with the run's spec, and `bcsim check` with the file's expect block.
    const again = executeScenario({ ...spec, checks: [] }, () => loadScenario(out), doc.seed);
    const message = { kind, from, category, seq: Number(seq), client: Number(client) } as never;
    expect(failsSameWay(again.violations, { invariant, detail: '', message })).toBe(true);
    expect((await cli(['check', out])).code).toBe(1);
  }, 120_000);
});
