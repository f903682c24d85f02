import { describe, expect, it } from 'vitest';
import type { JitterDistribution } from '../../src/model/link/config.js';
import { CountingStreams, binomialTolerance, datagram, game, harness, linkConfig, sendEvery } from './helpers.js';
import type { Arrival } from './helpers.js';

const BYTES = datagram([game(1)]);

/** Φ⁻¹ at the two points the half-normal p50/p90 need. */
const PHI_INV_075 = 0.6744897501960817;
const PHI_INV_095 = 1.6448536269514722;

interface DistributionFacts {
  mean: number;
  sd: number;
  quantile(q: number): number;
  density(x: number): number;
}

/** Exact moments, quantiles and densities of the jitter for jitterMs = J. */
function facts(distribution: JitterDistribution, J: number): DistributionFacts {
  switch (distribution) {
    case 'uniform':
      return { mean: J / 2, sd: J / Math.sqrt(12), quantile: (q) => q * J, density: () => 1 / J };
    case 'normal': // half-normal |N(0, J)|
      return {
        mean: J * Math.sqrt(2 / Math.PI),
        sd: J * Math.sqrt(1 - 2 / Math.PI),
        quantile: (q) => J * (q === 0.5 ? PHI_INV_075 : q === 0.9 ? PHI_INV_095 : Number.NaN),
        density: (x) => (2 / (J * Math.sqrt(2 * Math.PI))) * Math.exp(-(x * x) / (2 * J * J)),
      };
    case 'exponential':
      return { mean: J, sd: J, quantile: (q) => -J * Math.log(1 - q), density: (x) => Math.exp(-x / J) / J };
  }
}

function jitterSamplesMs(distribution: JitterDistribution, baseMs: number, jitterMs: number, n: number): number[] {
  const streams = new CountingStreams(31);
  const h = harness(linkConfig({ latency: { baseMs, jitterMs, distribution } }), { streams });
  for (let i = 0; i < n; i++) h.link.send(BYTES, [i]);
  h.sim.runUntilIdle();
  expect(h.arrivals.length).toBe(n);
  // One uniform per draw, two for Box–Muller.
  expect(streams.draws.get('c2s.jitter')).toBe(distribution === 'normal' ? 2 * n : n);
  return h.arrivals.map((a) => (a.atUs - a.sentAtUs) / 1_000 - baseMs);
}

describe('latency jitter', () => {
  const n = 20_000;
  const baseMs = 10;
  const jitterMs = 20;
  // Delays are rounded to whole microseconds: at most 0.0005 ms off each.
  const roundingMs = 0.0005;

  it.each(['uniform', 'normal', 'exponential'] as const)(
    '%s: mean, p50 and p90 match the exact distribution',
    (distribution) => {
      const f = facts(distribution, jitterMs);
      const samples = jitterSamplesMs(distribution, baseMs, jitterMs, n);
      expect(Math.min(...samples)).toBeGreaterThanOrEqual(-roundingMs); // never earlier than the base delay
      if (distribution === 'uniform') expect(Math.max(...samples)).toBeLessThanOrEqual(jitterMs + roundingMs);
      const mean = samples.reduce((s, x) => s + x, 0) / n;
      // Sample mean: 4 standard errors (CLT).
      expect(Math.abs(mean - f.mean)).toBeLessThan((4 * f.sd) / Math.sqrt(n) + roundingMs);
      const sorted = [...samples].sort((a, b) => a - b);
      for (const q of [0.5, 0.9]) {
        const xq = f.quantile(q);
        // Sample quantile is asymptotically normal with sd sqrt(q(1-q)/n) / f(x_q); 4 of them.
        const se = Math.sqrt((q * (1 - q)) / n) / f.density(xq);
        expect(Math.abs(sorted[Math.floor(q * n)] - xq)).toBeLessThan(4 * se + roundingMs);
      }
    },
  );
});

/** Reorder count recomputed from the arrival sequence: an original arriving below the highest index seen. */
function countOvertaken(arrivals: readonly Arrival[]): number {
  let max = -1;
  let reordered = 0;
  for (const a of arrivals) {
    if (a.duplicate) continue;
    if (a.uids[0] < max) reordered++;
    else max = a.uids[0];
  }
  return reordered;
}

describe('reordering', () => {
  it('jitter lets later datagrams overtake earlier ones; nothing is lost', () => {
    const h = harness(linkConfig({ latency: { baseMs: 20, jitterMs: 20, distribution: 'uniform' } }));
    const n = 2_000;
    sendEvery(h, n, 1_000, () => BYTES);
    expect(h.link.counters.reordered).toBeGreaterThan(0);
    expect(h.link.counters.reordered).toBe(countOvertaken(h.arrivals));
    expect(h.link.counters.delivered).toBe(n);
    expect(new Set(h.arrivals.map((a) => a.uids[0])).size).toBe(n);
  });

  it('no jitter and no reorder keep send order', () => {
    const h = harness(linkConfig({ latency: { baseMs: 30, jitterMs: 0, distribution: 'uniform' } }));
    sendEvery(h, 500, 100, () => BYTES);
    expect(h.link.counters.reordered).toBe(0);
    expect(h.arrivals.map((a) => a.uids[0])).toEqual(Array.from({ length: 500 }, (_, i) => i));
  });

  it('netem reorder P=1 gap 5: exactly every 5th datagram skips the delay and overtakes', () => {
    const streams = new CountingStreams(1);
    const h = harness(
      linkConfig({
        latency: { baseMs: 50, jitterMs: 0, distribution: 'uniform' },
        reorder: { probability: 1, gap: 5 },
      }),
      { streams },
    );
    sendEvery(h, 100, 1_000, () => BYTES);
    for (const a of h.arrivals) {
      const i = a.uids[0];
      expect(a.atUs - a.sentAtUs).toBe(i % 5 === 4 ? 0 : 50_000);
    }
    expect(h.link.counters.reordered).toBeGreaterThan(0);
    expect(h.link.counters.reordered).toBe(countOvertaken(h.arrivals));
    expect(streams.total).toBe(0); // P = 1 needs no draw
  });

  it('netem reorder P=0.5 gap 3: undelayed datagrams are at least 3 apart, and some exist', () => {
    const h = harness(
      linkConfig({
        latency: { baseMs: 50, jitterMs: 0, distribution: 'uniform' },
        reorder: { probability: 0.5, gap: 3 },
      }),
    );
    sendEvery(h, 3_000, 1_000, () => BYTES);
    const fast = h.arrivals.filter((a) => a.atUs === a.sentAtUs).map((a) => a.uids[0]);
    expect(fast.length).toBeGreaterThan(0);
    expect(fast[0]).toBeGreaterThanOrEqual(2);
    for (let k = 1; k < fast.length; k++) expect(fast[k] - fast[k - 1]).toBeGreaterThanOrEqual(3);
    expect(h.link.counters.reordered).toBeGreaterThan(0);
  });
});

describe('slot batching', () => {
  it('arrivals only on the slot grid, several datagrams per slot, held less than one interval', () => {
    const h = harness(
      linkConfig({ latency: { baseMs: 3, jitterMs: 5, distribution: 'uniform' }, slot: { intervalMs: 10 } }),
    );
    sendEvery(h, 400, 1_000, () => BYTES);
    const perSlot = new Map<number, number>();
    for (const a of h.arrivals) {
      expect(a.atUs % 10_000).toBe(0);
      const heldUs = a.atUs - a.sentAtUs - 3_000;
      expect(heldUs).toBeGreaterThanOrEqual(0);
      expect(heldUs).toBeLessThan(5_000 + 10_000);
      perSlot.set(a.atUs, (perSlot.get(a.atUs) ?? 0) + 1);
    }
    expect(h.arrivals.length).toBe(400);
    expect(Math.max(...perSlot.values())).toBeGreaterThan(1);
  });

  it('without jitter the arrival is exactly the next grid point at or after sent + base', () => {
    const h = harness(
      linkConfig({ latency: { baseMs: 2.5, jitterMs: 0, distribution: 'uniform' }, slot: { intervalMs: 4 } }),
    );
    sendEvery(h, 50, 700, () => BYTES);
    for (const a of h.arrivals) expect(a.atUs).toBe(Math.ceil((a.sentAtUs + 2_500) / 4_000) * 4_000);
  });
});

describe('duplication', () => {
  function run(extraDelayMs: number) {
    const h = harness(
      linkConfig({
        latency: { baseMs: 10, jitterMs: 0, distribution: 'uniform' },
        duplicate: { probability: 0.2, extraDelayMs },
      }),
      {
        seed: 8,
      },
    );
    sendEvery(h, 20_000, 100, () => BYTES);
    return h;
  }

  it('copies a fraction p of datagrams; each copy arrives after its original within extraDelayMs', () => {
    const n = 20_000;
    const p = 0.2;
    const h = run(5);
    const k = h.link.counters;
    expect(k.duplicated).toBeGreaterThan(0);
    expect(Math.abs(k.duplicated / n - p)).toBeLessThan(binomialTolerance(p, n));
    expect(k.delivered).toBe(n + k.duplicated);
    expect(k.reordered).toBe(0); // copies never count as overtaking
    const originalPos = new Map<number, number>();
    const extras: number[] = [];
    const problems: string[] = []; // collected, not asserted per item: 4,000 expects are slow
    h.arrivals.forEach((a, pos) => {
      const uid = a.uids[0];
      if (!a.duplicate) {
        originalPos.set(uid, pos);
        return;
      }
      const o = originalPos.get(uid);
      if (o === undefined) return void problems.push(`copy of ${uid} before its original`);
      const original = h.arrivals[o];
      if (
        a.bytes === original.bytes ||
        a.bytes.length !== original.bytes.length ||
        a.bytes.some((b, i) => b !== original.bytes[i])
      ) {
        problems.push(`copy of ${uid} is not an independent equal buffer`);
      }
      const extraUs = a.atUs - original.atUs;
      if (extraUs < 0 || extraUs > 5_000) problems.push(`copy of ${uid} ${extraUs} us after its original`);
      extras.push(extraUs / 1_000);
    });
    expect(problems).toEqual([]);
    expect(extras.length).toBe(k.duplicated);
    // Extra delay ~ U[0, 5 ms]: mean 2.5, sd 5/sqrt(12); 4 standard errors.
    const meanExtra = extras.reduce((s, x) => s + x, 0) / extras.length;
    expect(Math.abs(meanExtra - 2.5)).toBeLessThan((4 * 5) / Math.sqrt(12) / Math.sqrt(extras.length) + 0.0005);
  });

  it('with no extra delay the copy is still dispatched right after its original', () => {
    const h = run(0);
    h.arrivals.forEach((a, pos) => {
      if (!a.duplicate) return;
      const prev = h.arrivals[pos - 1];
      expect(prev.duplicate).toBe(false);
      expect(prev.uids).toEqual(a.uids);
      expect(prev.atUs).toBe(a.atUs);
    });
    expect(h.link.counters.duplicated).toBeGreaterThan(0);
  });

  it('extraDelayMs does not change which datagrams are copied (separate stream)', () => {
    const copied = (h: ReturnType<typeof run>) =>
      h.arrivals
        .filter((a) => a.duplicate)
        .map((a) => a.uids[0])
        .sort((x, y) => x - y);
    expect(copied(run(0))).toEqual(copied(run(5)));
  });
});
