// bucketDelayed and slotDelayed: the swarm needs proof that a
// bandwidth cap or a slot really held datagrams. The counters only observe.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { datagram, game, harness, linkConfig, sendEvery } from './helpers.js';
import { PERFECT_LINK } from '../../src/model/link/config.js';

describe('bucketDelayed', () => {
  it('counts exactly the datagrams whose departure the token bucket moved past their send time', () => {
    const packet = datagram([game(0, 200)]); // 207 bytes
    const h = harness(linkConfig({ bandwidth: { bytesPerSecond: 100_000, burstBytes: 1_500, queueLimitPackets: 5 } }));
    for (let i = 0; i < 20; i++) h.link.send(packet, [i]);
    h.sim.runUntilIdle();
    const k = h.link.counters;
    // 7 fit the burst; the next 5 wait; the queue is then full and the rest are tail-dropped (not counted).
    expect(h.arrivals.filter((a) => a.atUs > a.sentAtUs)).toHaveLength(5);
    expect(k.bucketDelayed).toBe(5);
    expect(k.droppedBy.queue).toBe(8);
    expect(k.slotDelayed).toBe(0);
  });

  it('stays 0 when the bucket never runs dry, and on a perfect link', () => {
    const roomy = harness(linkConfig({ bandwidth: { bytesPerSecond: 1e9, burstBytes: 1_500, queueLimitPackets: 5 } }));
    sendEvery(roomy, 100, 10_000, (i) => datagram([game(i)]));
    expect(roomy.link.counters.bucketDelayed).toBe(0);
    const perfect = harness(PERFECT_LINK);
    sendEvery(perfect, 100, 10_000, (i) => datagram([game(i)]));
    expect(perfect.link.counters).toMatchObject({ bucketDelayed: 0, slotDelayed: 0 });
  });
});

describe('slotDelayed', () => {
  it('counts the arrivals the slot grid moved later, not the ones already on it', () => {
    // Sent every 2.5 ms with a 1 ms delay onto a 5 ms grid: arrivals at 1, 3.5, 6, 8.5, … ms; none on the grid.
    const h = harness(
      linkConfig({ latency: { baseMs: 1, jitterMs: 0, distribution: 'uniform' }, slot: { intervalMs: 5 } }),
    );
    sendEvery(h, 40, 2_500, (i) => datagram([game(i)]));
    expect(h.link.counters.slotDelayed).toBe(40);
    // With no delay, datagrams sent on the grid (every other one) stay where they are.
    const g = harness(linkConfig({ slot: { intervalMs: 5 } }));
    sendEvery(g, 40, 2_500, (i) => datagram([game(i)]));
    expect(g.link.counters.slotDelayed).toBe(20);
    expect(g.link.counters.bucketDelayed).toBe(0);
  });

  it("a duplicate copy counts only if the grid moves it: with no extra delay it lands on its original's slot", () => {
    const h = harness(
      linkConfig({
        latency: { baseMs: 1, jitterMs: 0, distribution: 'uniform' },
        duplicate: { probability: 1, extraDelayMs: 0 },
        slot: { intervalMs: 5 },
      }),
    );
    sendEvery(h, 10, 10_000, (i) => datagram([game(i)]));
    expect(h.link.counters.duplicated).toBe(10);
    expect(h.arrivals).toHaveLength(20);
    expect(h.link.counters.slotDelayed).toBe(10);
    // With an extra delay off the grid (1 ms on a 5 ms grid, the copy at slot + U[0,1] ms), copies move too.
    const d = harness(
      linkConfig({
        latency: { baseMs: 1, jitterMs: 0, distribution: 'uniform' },
        duplicate: { probability: 1, extraDelayMs: 1 },
        slot: { intervalMs: 5 },
      }),
    );
    sendEvery(d, 10, 10_000, (i) => datagram([game(i)]));
    const copiesMoved = d.arrivals.filter(
      (a) =>
        a.duplicate &&
        a.atUs % 5_000 === 0 &&
        a.atUs > d.arrivals.find((o) => !o.duplicate && o.uids[0] === a.uids[0])!.atUs,
    ).length;
    expect(d.link.counters.slotDelayed).toBe(10 + copiesMoved);
    expect(copiesMoved).toBeGreaterThan(0);
  });

  it('property: both counters match what the arrivals show, and never change timings', () => {
    fc.assert(
      fc.property(
        fc.record({
          seed: fc.integer({ min: 1, max: 1_000 }),
          rate: fc.integer({ min: 5_000, max: 200_000 }),
          burst: fc.integer({ min: 100, max: 3_000 }),
          slotMs: fc.integer({ min: 1, max: 20 }),
          intervalUs: fc.integer({ min: 100, max: 5_000 }),
        }),
        (c) => {
          // Zero latency: an arrival's unslotted time is its departure, so both counters can be recomputed.
          const bucketOnly = harness(
            linkConfig({ bandwidth: { bytesPerSecond: c.rate, burstBytes: c.burst, queueLimitPackets: 50 } }),
            { seed: c.seed },
          );
          sendEvery(bucketOnly, 200, c.intervalUs, (i) => datagram([game(i, 10 + (i % 7) * 30)]));
          expect(bucketOnly.link.counters.bucketDelayed).toBe(
            bucketOnly.arrivals.filter((a) => a.atUs > a.sentAtUs).length,
          );

          const both = harness(
            linkConfig({
              bandwidth: { bytesPerSecond: c.rate, burstBytes: c.burst, queueLimitPackets: 50 },
              slot: { intervalMs: c.slotMs },
            }),
            { seed: c.seed },
          );
          sendEvery(both, 200, c.intervalUs, (i) => datagram([game(i, 10 + (i % 7) * 30)]));
          // The bucket decides before the slot: the same datagrams wait, and the slot only rounds their departures up.
          expect(both.link.counters.bucketDelayed).toBe(bucketOnly.link.counters.bucketDelayed);
          expect(both.arrivals.map((a) => a.uids[0])).toEqual(bucketOnly.arrivals.map((a) => a.uids[0]));
          const slotUs = c.slotMs * 1_000;
          let moved = 0;
          both.arrivals.forEach((a, i) => {
            const departUs = bucketOnly.arrivals[i].atUs;
            expect(a.atUs).toBe(Math.ceil(departUs / slotUs) * slotUs);
            if (a.atUs > departUs) moved++;
          });
          expect(both.link.counters.slotDelayed).toBe(moved);
        },
      ),
      { numRuns: 60, seed: 9 },
    );
  });
});
