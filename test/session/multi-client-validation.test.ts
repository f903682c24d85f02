// Determinism with three clients, and the multi-client scenario checks (API and CLI).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScenarioError } from '../../src/model/scenario/errors.js';
import { runScenario } from '../../src/model/session/run.js';
import { cli } from '../support/cli.js';
import { scenario } from './multi-client-run.js';

// ---------------------------------------------------------------------------
// Determinism.

describe('determinism with three clients', () => {
  it('the same scenario and seed give the same traceHash; another seed another', () => {
    const sc = scenario({
      name: 'det',
      clients: 3,
      duration: '40s',
      link: { both: { loss: 0.1 }, clients: { '2': { both: { latencyMs: 30, jitterMs: 10 } } } },
      traffic: { phases: ['join', { kind: 'combat', reliablePerSecond: 20, stateUpdatesPerSecond: 10 }] },
    });
    const a = runScenario(sc, { preset: 'fixed', seed: 7 }).summary;
    const b = runScenario(sc, { preset: 'fixed', seed: 7 }).summary;
    const c = runScenario(sc, { preset: 'fixed', seed: 8 }).summary;
    expect(a.traceHash).toMatch(/^[0-9a-f]{64}$/);
    expect(b.traceHash).toBe(a.traceHash);
    expect(b.datagrams).toBe(a.datagrams);
    expect(b.session).toEqual(a.session);
    expect(c.traceHash).not.toBe(a.traceHash);
    expect(a.session.connected).toBe(3);
    expect(a.session.relayedMessages).toBeGreaterThan(0);
  });
});

// ---------------------------------------------------------------------------
// Scenario validation.

const INVALID: Array<[string, object, string, string]> = [
  ['17 clients', { name: 'x', clients: 17 }, 'clients', 'expected a number of clients 1..16'],
  [
    'a link block for client 4 of 3',
    { name: 'x', clients: 3, link: { clients: { '4': { both: { loss: 0.1 } } } } },
    'link.clients["4"]',
    'no such client',
  ],
  [
    'a timeout of client 5 of 3',
    { name: 'x', clients: 3, traffic: { phases: ['join', { kind: 'timeout', client: 5 }, 'lobby'] } },
    'traffic.phases[1].client',
    'no such client',
  ],
];

describe('scenario validation', () => {
  it.each(INVALID)('%s is rejected with a ScenarioError naming the path', (_label, json, path, reason) => {
    let error: unknown;
    try {
      scenario(json);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ScenarioError);
    const e = error as ScenarioError;
    expect(e.path).toBe(path);
    expect(e.reason).toContain(reason);
    expect(e.message).toBe(`test: ${path}: ${e.reason}`);
  });

  it.each(INVALID)(
    '%s: the CLI exits 2 with one line naming the file and the path',
    async (_label, json, path, reason) => {
      const dir = mkdtempSync(join(tmpdir(), 'bcsim-mc-'));
      const file = join(dir, 'bad.json');
      writeFileSync(file, JSON.stringify(json, null, 2));
      const r = await cli(['run', file]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      const prefix = `bcsim: ${file}: `;
      expect(r.stderr.startsWith(prefix)).toBe(true);
      const [where, ...rest] = r.stderr.slice(prefix.length).split(': ');
      expect(where).toBe(path);
      expect(rest.join(': ')).toContain(reason);
      expect(r.stderr.endsWith('\n')).toBe(true);
      expect(r.stderr.split('\n')).toHaveLength(2);
    },
  );

  it('the limits themselves are accepted: 16 clients, link.clients["3"] and a timeout of client 3 with 3 clients', () => {
    expect(scenario({ name: 'x', clients: 16 }).clients).toBe(16);
    const sc = scenario({
      name: 'x',
      clients: 3,
      link: { both: { loss: 0.1 }, clients: { '3': { serverToClient: { loss: 0.3 } } } },
      traffic: { phases: ['join', { kind: 'timeout', client: 3 }, 'lobby'] },
    });
    expect(sc.clientLinks).toHaveLength(3);
    expect(sc.clientLinks[2].serverToClient.loss).toEqual({ model: 'bernoulli', probability: 0.3 });
    expect(sc.clientLinks[2].clientToServer.loss).toEqual({ model: 'bernoulli', probability: 0.1 });
    expect(sc.clientLinks[1].serverToClient.loss).toEqual({ model: 'bernoulli', probability: 0.1 });
  });
});
