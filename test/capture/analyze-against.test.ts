// `analyze --against` feeds a simulated run's datagrams through the same
// analyzer as a capture, and holds the ACK-outbox estimate against the
// model's own outbox each second: within one entry at every
// second the estimate is defined, for one and several clients, clean and
// lossy links, a partition, stock and fixed. Each end's ACK behaviour is read
// from its own wire (ack-behaviour.ts): two-pass for every stock end,
// single-pass for a fixed end whose wire shows it.
import { describe, expect, it } from 'vitest';
import { analyzeScenario } from '../../src/analysis/capture/analyze-against.js';
import type { SimulatedAnalysis } from '../../src/analysis/capture/analyze-against.js';
import { loadScenario } from '../../src/model/scenario/load.js';

const CASES: Array<[string, 'stock' | 'fixed', number | undefined]> = [
  ['fragment-ack-bug', 'stock', undefined],
  ['lossy-link', 'stock', undefined],
  ['lossy-link', 'fixed', undefined],
  ['partition', 'stock', undefined],
  ['partition', 'fixed', undefined],
  ['valentines', 'stock', 300_000_000],
  ['lobby-idle', 'stock', 600_000_000],
  ['lobby-idle', 'fixed', 600_000_000],
];

function expectAgreement(result: SimulatedAnalysis): void {
  expect(result.truth.length).toBeGreaterThan(0);
  for (const truth of result.truth) {
    for (const side of ['server', 'client'] as const) {
      const a = truth.agreement[side];
      expect(a.samples, `client ${truth.index} ${side}`).toBeGreaterThan(10);
      expect(a.beyondOne, `client ${truth.index} ${side}: max |diff| ${a.maxAbsDiff}`).toBe(0);
    }
  }
}

describe('the estimate against the model', () => {
  for (const [name, preset, durationUs] of CASES) {
    it(`${name}, ${preset}: each end's behaviour read from its wire, the estimate within one entry`, () => {
      const result = analyzeScenario(loadScenario(name, { sets: [] }), { preset, durationUs });
      for (const c of result.connections) {
        for (const side of ['server', 'client'] as const) {
          const b = c.ackOutbox[side].behaviour;
          expect(b.rule, `client ${c.index} ${side}: ${b.summary}`).toBe(
            preset === 'stock' ? 'two-pass' : 'single-pass',
          );
          expect(b.basis).toBe('inferred');
        }
      }
      expectAgreement(result);
    });
  }

  it('fragment-ack-bug, fixed: the queued keepalive would open a two-pass gate, so its datagrams show single-pass', () => {
    const scenario = loadScenario('fragment-ack-bug', { sets: [] });
    const inferred = analyzeScenario(scenario, { preset: 'fixed' });
    for (const side of ['server', 'client'] as const) {
      const o = inferred.connections[0].ackOutbox[side];
      // Entries stop at 3 sends though later datagrams carried first sends (the keepalive, docs/sources.md 26).
      expect(o.behaviour, o.behaviour.summary).toMatchObject({ rule: 'single-pass', basis: 'inferred', freeAt: 3 });
      expect(o.behaviour.summary).toContain('stopped though a later datagram had room');
    }
    expectAgreement(inferred);
  });

  it('fragment-ack-bug, fixed, keepalive unreliable and outside the queues: the join alone shows single-pass, and the estimate agrees', () => {
    const scenario = loadScenario('fragment-ack-bug', {
      sets: ['mode.keepalive.path=outside-queues', 'mode.keepalive.reliable=false'],
    });
    const inferred = analyzeScenario(scenario, { preset: 'fixed' });
    // On its captured timeline (1.26 s) the join's keys stop at 3 sends while a later join datagram had
    // room (4 on the server's side, 5 on the client's): the wire infers single-pass from the join alone.
    for (const [side, keys, stopped] of [
      ['server', 10, 4],
      ['client', 12, 5],
    ] as const) {
      const o = inferred.connections[0].ackOutbox[side];
      expect(o.behaviour, o.behaviour.summary).toMatchObject({ rule: 'single-pass', basis: 'inferred', freeAt: 3 });
      expect(o.behaviour.evidence).toMatchObject({ judgedKeys: keys, passedOver: { 3: stopped } });
      expect(o.behaviour.evidence.violations).toMatchObject({ twoPass: 0, singlePass: 0 });
      expect(o.behaviour.evidence.skipped.twoPass).toBe(stopped);
      expect([o.peak, o.final]).toEqual([keys, 0]);
      expect(inferred.truth[0].agreement[side]).toMatchObject({ maxAbsDiff: 0, beyondOne: 0 });
    }
    const forced = analyzeScenario(scenario, { preset: 'fixed', ackRule: 'single-pass' });
    expect(forced.connections[0].ackOutbox.server.behaviour).toMatchObject({
      rule: 'single-pass',
      basis: 'forced',
      freeAt: 3,
    });
    expectAgreement(forced);
  });

  it('a multi-client run pairs capture and simulated connections by slot', () => {
    const result = analyzeScenario(loadScenario('valentines', { sets: [] }), {
      preset: 'stock',
      durationUs: 60_000_000,
    });
    expect(result.connections.map((c) => c.slot).sort()).toEqual([2, 3, 4]);
    expect(result.connections.map((c) => c.client)).toEqual([
      '10.10.10.239:22102',
      '10.10.10.240:22103',
      '10.10.10.241:22104',
    ]);
  });
});
