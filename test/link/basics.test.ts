import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toHex } from '../../src/core/codec/index.js';
import { RandomStreams } from '../../src/core/engine/random.js';
import { Simulator } from '../../src/core/engine/simulator.js';
import { PERFECT_LINK } from '../../src/model/link/config.js';
import type { LinkConfig } from '../../src/model/link/config.js';
import { Link } from '../../src/model/link/link.js';
import { CountingStreams, datagram, game, harness, linkConfig, sendEvery } from './helpers.js';

describe('perfect link', () => {
  it('delivers everything at once, in order, with no drops, no draws and one event per datagram', () => {
    const streams = new CountingStreams(1);
    const h = harness(PERFECT_LINK, { streams });
    const n = 500;
    sendEvery(h, n, 250, (i) => datagram([game(i)]));
    expect(h.link.counters).toMatchObject({
      sent: n,
      delivered: n,
      dropped: 0,
      duplicated: 0,
      reordered: 0,
      messagesDropped: 0,
    });
    expect(h.link.counters.bytesDelivered).toBe(h.link.counters.bytesSent);
    expect(h.deliverCalls).toBe(n);
    h.arrivals.forEach((a, i) => {
      expect(a.uids).toEqual([i]);
      expect(a.atUs).toBe(i * 250);
      expect(a.sentAtUs).toBe(i * 250);
    });
    // No stream was even requested, so nothing can have been drawn.
    expect(streams.draws.size).toBe(0);
    expect(streams.total).toBe(0);
    // n send events + n arrival events.
    expect(h.sim.eventCount).toBe(2 * n);
  });

  it('a fixed base delay is exact to the microsecond', () => {
    const streams = new CountingStreams(1);
    const h = harness(linkConfig({ latency: { baseMs: 7.25, jitterMs: 0, distribution: 'normal' } }), { streams });
    sendEvery(h, 100, 1_000, (i) => datagram([game(i)]));
    for (const a of h.arrivals) expect(a.atUs - a.sentAtUs).toBe(7_250);
    expect(streams.total).toBe(0);
  });

  it('passes the very same bytes object through (no copy, no re-encode)', () => {
    const h = harness(PERFECT_LINK);
    const bytes = datagram([game(1)]);
    h.link.send(bytes, [9]);
    h.sim.runUntilIdle();
    expect(h.arrivals[0].bytes).toBe(bytes);
  });
});

describe('config validation', () => {
  const bad: Array<[string, LinkConfig]> = [
    ['loss.probability', linkConfig({ loss: { model: 'bernoulli', probability: 1.5 } })],
    [
      'loss.pBadToGood',
      linkConfig({ loss: { model: 'gilbert-elliott', pGoodToBad: 0.1, pBadToGood: -0.1, lossGood: 0, lossBad: 1 } }),
    ],
    ['latency.baseMs', linkConfig({ latency: { baseMs: -1, jitterMs: 0, distribution: 'uniform' } })],
    ['latency.jitterMs', linkConfig({ latency: { baseMs: 0, jitterMs: Number.NaN, distribution: 'uniform' } })],
    ['duplicate.probability', linkConfig({ duplicate: { probability: 2, extraDelayMs: 0 } })],
    ['duplicate.extraDelayMs', linkConfig({ duplicate: { probability: 0.1, extraDelayMs: -3 } })],
    ['reorder.gap', linkConfig({ reorder: { probability: 0.1, gap: 0 } })],
    ['reorder.probability', linkConfig({ reorder: { probability: -0.5, gap: 1 } })],
    [
      'bandwidth.bytesPerSecond',
      linkConfig({ bandwidth: { bytesPerSecond: 0, burstBytes: 1500, queueLimitPackets: 10 } }),
    ],
    [
      'bandwidth.queueLimitPackets',
      linkConfig({ bandwidth: { bytesPerSecond: 1000, burstBytes: 1500, queueLimitPackets: 1.5 } }),
    ],
    ['slot.intervalMs', linkConfig({ slot: { intervalMs: 0 } })],
    [
      'outages[1].endMs',
      linkConfig({
        outages: [
          { startMs: 0, endMs: 5 },
          { startMs: 10, endMs: 10 },
        ],
      }),
    ],
    [
      'dropRules[0].probability',
      linkConfig({
        dropRules: [
          { scope: 'message', match: { type: 'ack' }, firstN: null, probability: 7, fromMs: null, untilMs: null },
        ],
      }),
    ],
    [
      'dropRules[0].match.type',
      linkConfig({
        dropRules: [
          { scope: 'message', match: { type: 'acks' }, firstN: null, probability: 1, fromMs: null, untilMs: null },
        ],
      }),
    ],
    [
      'dropRules[0].firstN',
      linkConfig({
        dropRules: [{ scope: 'datagram', match: { seq: 5 }, firstN: -1, probability: 1, fromMs: null, untilMs: null }],
      }),
    ],
  ];
  it.each(bad)('rejects a bad %s and names it', (field, config) => {
    const escaped = field.replace(/[[\].]/g, (c) => `\\${c}`);
    expect(() => new Link(new Simulator(), 'l', config, new RandomStreams(1), () => {})).toThrow(new RegExp(escaped));
  });

  it('accepts PERFECT_LINK', () => {
    expect(() => new Link(new Simulator(), 'l', PERFECT_LINK, new RandomStreams(1), () => {})).not.toThrow();
  });
});

const FAULTY: LinkConfig = linkConfig({
  latency: { baseMs: 40, jitterMs: 15, distribution: 'normal' },
  loss: { model: 'bernoulli', probability: 0.1 },
  duplicate: { probability: 0.05, extraDelayMs: 10 },
  reorder: { probability: 0.2, gap: 3 },
  bandwidth: { bytesPerSecond: 50_000, burstBytes: 2_000, queueLimitPackets: 20 },
});

function trace(seed: number): string[] {
  const h = harness(FAULTY, { seed });
  sendEvery(h, 2_000, 700, (i) => datagram([game(i & 0xffff)]));
  return h.arrivals.map((a) => `${a.atUs} ${a.duplicate ? 'D' : 'O'} ${a.uids.join(',')} ${toHex(a.bytes)}`);
}

describe('determinism', () => {
  it('the same seed gives the identical arrival sequence; another seed does not', () => {
    const a = trace(11);
    const b = trace(11);
    const c = trace(12);
    expect(a.length).toBeGreaterThan(1_000);
    expect(b).toEqual(a);
    expect(c).not.toEqual(a);
  });

  it('link name scopes its streams: two differently named links on one RandomStreams coexist', () => {
    const streams = new RandomStreams(3);
    const sim = new Simulator();
    expect(() => {
      new Link(sim, 'c2s', FAULTY, streams, () => {});
      new Link(sim, 's2c', FAULTY, streams, () => {});
    }).not.toThrow();
    // The same name twice is a wiring bug the streams catch.
    expect(() => new Link(sim, 'c2s', FAULTY, streams, () => {})).toThrow(/requested twice/);
  });
});

describe('invariants under random configs (property)', () => {
  const prob = fc.double({ min: 0, max: 1, noNaN: true });
  const config = fc.record({
    baseMs: fc.double({ min: 0, max: 100, noNaN: true }),
    jitterMs: fc.double({ min: 0, max: 50, noNaN: true }),
    distribution: fc.constantFrom('uniform' as const, 'normal' as const, 'exponential' as const),
    loss: prob,
    dup: prob,
    extraMs: fc.double({ min: 0, max: 20, noNaN: true }),
    reorderP: prob,
    gap: fc.integer({ min: 1, max: 5 }),
    rate: fc.option(fc.integer({ min: 5_000, max: 1_000_000 }), { nil: null }),
    queue: fc.integer({ min: 0, max: 50 }),
    slotMs: fc.option(fc.integer({ min: 1, max: 30 }), { nil: null }),
    seed: fc.integer(),
  });

  it('conservation, causality, integer times, slot grid', () => {
    fc.assert(
      fc.property(config, (c) => {
        const cfg = linkConfig({
          latency: { baseMs: c.baseMs, jitterMs: c.jitterMs, distribution: c.distribution },
          loss: { model: 'bernoulli', probability: c.loss },
          duplicate: { probability: c.dup, extraDelayMs: c.extraMs },
          reorder: { probability: c.reorderP, gap: c.gap },
          bandwidth: { bytesPerSecond: c.rate, burstBytes: 600, queueLimitPackets: c.queue },
          slot: { intervalMs: c.slotMs },
        });
        const h = harness(cfg, { seed: c.seed });
        sendEvery(h, 200, 1_000, (i) => datagram([game(i, i % 50)]));
        const k = h.link.counters;
        expect(k.sent).toBe(200);
        expect(k.delivered).toBe(k.sent - k.dropped + k.duplicated);
        expect(k.droppedBy.loss + k.droppedBy.queue + k.droppedBy.outage + k.droppedBy.rule).toBe(k.dropped);
        expect(h.arrivals.length).toBe(k.delivered);
        expect(h.deliverCalls).toBe(k.delivered);
        expect(h.drops.length).toBe(k.dropped);
        let bytes = 0;
        for (const a of h.arrivals) {
          bytes += a.bytes.length;
          expect(Number.isInteger(a.atUs)).toBe(true);
          expect(a.atUs).toBeGreaterThanOrEqual(a.sentAtUs);
          if (c.slotMs !== null) expect(a.atUs % (c.slotMs * 1_000)).toBe(0);
        }
        expect(bytes).toBe(k.bytesDelivered);
        // Each uid arrives at most once as an original.
        const originals = h.arrivals.filter((a) => !a.duplicate).map((a) => a.uids[0]);
        expect(new Set(originals).size).toBe(originals.length);
      }),
      { numRuns: 60, seed: 4242 },
    );
  });
});
