// `analyze --against` feeds a simulated run's datagrams through the same
// analyzer as a capture, and holds the ACK-outbox estimate against the
// model's own outbox each second (issue 13, item 3): within one entry at every
// second the estimate is defined, for one and several clients, clean and
// lossy links, a partition, stock and fixed.
import { describe, expect, it } from 'vitest';
import { analyzeScenario } from '../../src/capture/analyze-against.js';
import { loadScenario } from '../../src/scenario/load.js';

const CASES: Array<[string, 'stock' | 'fixed', number | undefined]> = [
  ['fragment-ack-bug', 'stock', undefined],
  ['fragment-ack-bug', 'fixed', undefined],
  ['lossy-link', 'stock', undefined],
  ['lossy-link', 'fixed', undefined],
  ['partition', 'stock', undefined],
  ['partition', 'fixed', undefined],
  ['valentines', 'stock', 300_000_000],
  ['lobby-idle', 'stock', 600_000_000],
];

describe('the estimate against the model', () => {
  for (const [name, preset, durationUs] of CASES) {
    it(`${name}, ${preset}`, () => {
      const result = analyzeScenario(loadScenario(name, { sets: [] }), { preset, durationUs });
      expect(result.ackRule.rule).toBe(preset === 'stock' ? 'two-pass' : 'single-pass');
      expect(result.truth.length).toBeGreaterThan(0);
      for (const truth of result.truth) {
        for (const side of ['server', 'client'] as const) {
          const a = truth.agreement[side];
          expect(a.samples, `client ${truth.index} ${side}`).toBeGreaterThan(10);
          expect(a.beyondOne, `client ${truth.index} ${side}: max |diff| ${a.maxAbsDiff}`).toBe(0);
        }
      }
    });
  }

  it('a multi-client run pairs capture and simulated connections by slot', () => {
    const result = analyzeScenario(loadScenario('valentines', { sets: [] }), { preset: 'stock', durationUs: 60_000_000 });
    expect(result.connections.map((c) => c.slot).sort()).toEqual([2, 3, 4]);
    expect(result.connections.map((c) => c.client)).toEqual(['10.10.10.239:22102', '10.10.10.240:22103', '10.10.10.241:22104']);
  });
});
