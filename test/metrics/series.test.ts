import { describe, expect, it } from 'vitest';
import { Series } from '../../src/model/metrics/series.js';
import { trendOf } from '../../src/model/metrics/trend.js';
import { namedStream } from '../../src/core/engine/random.js';

describe('Series downsampling', () => {
  it('keeps at most maxPoints buckets however long the run', () => {
    const s = new Series(100);
    for (let t = 0; t < 86_400; t++) s.add(t, t % 7);
    expect(s.points().length).toBeLessThanOrEqual(100);
    expect(s.points().length).toBeGreaterThan(50);
    expect(s.bucketWidth).toBe(1024);
  });

  it('preserves min, max and mean of every sample a bucket covers', () => {
    const stream = namedStream(3, 'series');
    const values: number[] = [];
    const s = new Series(16);
    for (let t = 0; t < 1000; t++) {
      const v = Math.round(stream.next() * 1000) - 500;
      values.push(v);
      s.add(t, v);
    }
    let covered = 0;
    for (const b of s.points()) {
      const inside = values.slice(b.t, b.t + b.width);
      expect(b.count).toBe(inside.length);
      expect(b.min).toBe(Math.min(...inside));
      expect(b.max).toBe(Math.max(...inside));
      expect(b.mean).toBeCloseTo(inside.reduce((a, v) => a + v, 0) / inside.length, 9);
      covered += b.count;
    }
    expect(covered).toBe(1000);
    // A spike survives downsampling in the max.
    const spiky = new Series(8);
    for (let t = 0; t < 500; t++) spiky.add(t, t === 333 ? 1e6 : 1);
    expect(Math.max(...spiky.points().map((b) => b.max))).toBe(1e6);
  });

  it('refuses samples out of time order', () => {
    const s = new Series(8);
    s.add(10, 1);
    expect(() => s.add(3, 1)).toThrow(/time order/);
  });
});

describe('leak detection', () => {
  const endS = 4 * 3600;
  const build = (f: (t: number) => number) => {
    const s = new Series(500);
    for (let t = 0; t < endS; t++) s.add(t, f(t));
    return trendOf(s.points(), endS);
  };
  const noise = namedStream(5, 'noise');

  it('flags a queue that keeps growing', () => {
    const trend = build((t) => 20 + t / 100 + (noise.next() - 0.5) * 10);
    expect(trend.leak).toBe(true);
    expect(trend.slopePerHour).toBeCloseTo(36, 0);
  });

  it('does not flag a flat, noisy queue', () => {
    expect(build(() => 20 + (noise.next() - 0.5) * 10).leak).toBe(false);
  });

  it('does not flag a saw-tooth queue that fills in combat and drains in the lobby', () => {
    expect(build((t) => (t % 1800 < 1200 ? 30 + (noise.next() - 0.5) * 6 : 3)).leak).toBe(false);
  });

  it('does not flag tiny growth', () => {
    expect(build((t) => 2 + t / 10_000).leak).toBe(false);
  });
});
