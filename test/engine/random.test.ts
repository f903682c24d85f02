import { describe, expect, it } from 'vitest';
import { RandomStreams, namedStream } from '../../src/core/engine/random.js';
import fc from 'fast-check';
import seedrandom from 'seedrandom';
import { exponential, normal, uniformInt } from '../../src/core/engine/distributions.js';

const draw = (s: { next(): number }, n: number) => Array.from({ length: n }, () => s.next());

describe('named random streams', () => {
  it('the same (seed, name) gives the same sequence', () => {
    expect(draw(namedStream(42, 'link.loss'), 100)).toEqual(draw(namedStream(42, 'link.loss'), 100));
  });

  it('different names or seeds give different sequences', () => {
    const base = draw(namedStream(42, 'link.loss'), 100);
    expect(draw(namedStream(42, 'link.jitter'), 100)).not.toEqual(base);
    expect(draw(namedStream(43, 'link.loss'), 100)).not.toEqual(base);
  });

  it('adding a stream does not shift another', () => {
    const alone = new RandomStreams(7);
    const a1 = draw(alone.stream('a'), 50);
    const crowded = new RandomStreams(7);
    const extra = crowded.stream('zzz');
    draw(extra, 1000);
    const a2 = draw(crowded.stream('a'), 50);
    expect(a2).toEqual(a1);
  });

  it('streams are uncorrelated: sample correlation near zero', () => {
    const n = 20_000;
    const x = draw(namedStream(1, 'x'), n);
    const y = draw(namedStream(1, 'y'), n);
    const mean = (v: number[]) => v.reduce((s, a) => s + a, 0) / v.length;
    const mx = mean(x);
    const my = mean(y);
    let cov = 0;
    let vx = 0;
    let vy = 0;
    for (let i = 0; i < n; i++) {
      cov += (x[i] - mx) * (y[i] - my);
      vx += (x[i] - mx) ** 2;
      vy += (y[i] - my) ** 2;
    }
    const r = cov / Math.sqrt(vx * vy);
    // Under independence r ~ N(0, 1/n); 4 standard errors.
    expect(Math.abs(r)).toBeLessThan(4 / Math.sqrt(n));
    // And the draws really are uniform on [0,1): mean within 4 standard errors of 0.5.
    expect(Math.abs(mx - 0.5)).toBeLessThan(4 * Math.sqrt(1 / 12 / n));
  });

  it('refuses to hand the same name out twice', () => {
    const streams = new RandomStreams(1);
    streams.stream('a');
    expect(() => streams.stream('a')).toThrow(/requested twice/);
  });
});

describe('distributions', () => {
  it('exponential, normal and uniformInt have their configured moments', () => {
    const n = 40_000;
    const s = namedStream(9, 'moments');
    let sumE = 0;
    let sumN = 0;
    let sumN2 = 0;
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < n; i++) {
      sumE += exponential(s, 3);
      const v = normal(s, 10, 2);
      sumN += v;
      sumN2 += v * v;
      counts[uniformInt(s, 0, 3)]++;
    }
    // Exponential(mean 3): sd 3, so the mean's standard error is 3/sqrt(n).
    expect(Math.abs(sumE / n - 3)).toBeLessThan(4 * (3 / Math.sqrt(n)));
    const meanN = sumN / n;
    expect(Math.abs(meanN - 10)).toBeLessThan(4 * (2 / Math.sqrt(n)));
    const sdN = Math.sqrt(sumN2 / n - meanN * meanN);
    expect(Math.abs(sdN - 2)).toBeLessThan(0.05);
    for (const c of counts) expect(Math.abs(c - n / 4)).toBeLessThan(4 * Math.sqrt(n * 0.25 * 0.75));
  });
});

describe('namedStream steps alea itself', () => {
  it('draws exactly what seedrandom.alea draws for the same key', () => {
    for (const [seed, name] of [
      [1, 'link.loss'],
      [42, 'traffic.stateUpdates.server'],
      ['abc', ''],
      [0, 'client7.serverToClient.delay'],
    ] as const) {
      const reference = seedrandom.alea(`bcsim\u0000${String(seed)}\u0000${name}`);
      const stream = namedStream(seed, name);
      for (let i = 0; i < 20_000; i++) expect(stream.next()).toBe(reference());
    }
  });

  it("is seeded as seedrandom.alea seeds, for any key (the seed hash is bcsim's own)", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer(), fc.string({ unit: 'binary' })),
        fc.string({ unit: 'binary' }),
        (seed, name) => {
          const reference = seedrandom.alea(`bcsim\u0000${String(seed)}\u0000${name}`);
          const stream = namedStream(seed, name);
          for (let i = 0; i < 8; i++) expect(stream.next()).toBe(reference());
        },
      ),
      { seed: 20261206, numRuns: 2_000 },
    );
  });
});
