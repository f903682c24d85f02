// The sweep grid, --vary syntaxes, shards, min/median/max.
import { describe, expect, it } from 'vitest';
import {
  cellAt,
  comboSets,
  comboVary,
  gridSize,
  parseModes,
  parseSeeds,
  parseVary,
} from '../../src/tools/sweep/grid.js';
import type { GridSpec } from '../../src/tools/sweep/grid.js';
import { SweepInputError } from '../../src/tools/sweep/errors.js';
import { parseShard, shardIndexes, shardSize } from '../../src/tools/sweep/shard.js';
import { SweepAggregator, statOf } from '../../src/tools/sweep/aggregate.js';
import type { SweepLine } from '../../src/tools/sweep/line.js';

describe('--vary', () => {
  it('takes a list of values, JSON where it parses and text otherwise', () => {
    const v = parseVary('link.both.loss=0.05,0.1,0.2');
    expect(v.path).toBe('link.both.loss');
    expect(v.values.map((x) => x.text)).toEqual(['0.05', '0.1', '0.2']);
    expect(v.values.map((x) => x.value)).toEqual([0.05, 0.1, 0.2]);
    expect(parseVary('duration=30s,1m').values.map((x) => x.value)).toEqual(['30s', '1m']);
  });

  it('keeps commas inside JSON values', () => {
    const v = parseVary('transport.updatePeriodMs={"server":5,"client":10},{"server":33,"client":33}');
    expect(v.values.map((x) => x.value)).toEqual([
      { server: 5, client: 10 },
      { server: 33, client: 33 },
    ]);
  });

  it("takes lo..hi:step with the inputs' decimals, hi included when on a step", () => {
    expect(parseVary('x=0..0.3:0.1').values.map((x) => x.text)).toEqual(['0', '0.1', '0.2', '0.3']);
    expect(parseVary('x=30..180:30').values.map((x) => x.value)).toEqual([30, 60, 90, 120, 150, 180]);
    expect(parseVary('x=1..10:4').values.map((x) => x.value)).toEqual([1, 5, 9]);
  });

  it('refuses bad syntax with the flag named', () => {
    for (const bad of ['link.both.loss', '=1,2', 'x=', 'x=1,,2', 'x=5..1:1', 'x=0..1:0', 'x=1,1', 'x=0..100000:1']) {
      expect(() => parseVary(bad), bad).toThrow(SweepInputError);
      expect(() => parseVary(bad), bad).toThrow(/^--vary /);
    }
  });

  it('--modes and --seeds', () => {
    expect(parseModes('stock,fixed')).toEqual(['stock', 'fixed']);
    expect(() => parseModes('stock,broken')).toThrow(/^--modes: /);
    expect(parseSeeds('1..3,9')).toEqual([1, 2, 3, 9]);
    expect(() => parseSeeds('3..1')).toThrow(/^--seeds: /);
  });
});

describe('grid order and indexes', () => {
  const spec: GridSpec = {
    modes: ['stock', 'fixed'],
    varies: [parseVary('a=1,2'), parseVary('b=x,y,z')],
    seeds: [7, 8],
  };

  it('modes outermost, then each vary in flag order (the last fastest), seeds innermost', () => {
    expect(gridSize(spec)).toBe(2 * 2 * 3 * 2);
    const rows = Array.from({ length: gridSize(spec) }, (_, i) => {
      const c = cellAt(spec, i);
      return `${c.index}:${c.mode}:${comboSets(spec, c.combo).join('&')}:${c.seed}`;
    });
    expect(rows.slice(0, 7)).toEqual([
      '0:stock:a=1&b=x:7',
      '1:stock:a=1&b=x:8',
      '2:stock:a=1&b=y:7',
      '3:stock:a=1&b=y:8',
      '4:stock:a=1&b=z:7',
      '5:stock:a=1&b=z:8',
      '6:stock:a=2&b=x:7',
    ]);
    expect(rows[12]).toBe('12:fixed:a=1&b=x:7');
    expect(rows[23]).toBe('23:fixed:a=2&b=z:8');
    expect(new Set(rows).size).toBe(24);
    expect(comboVary(spec, cellAt(spec, 9).combo)).toEqual({ a: 2, b: 'y' });
  });

  it('--shard i/n takes index % n == i-1; the shards partition the grid', () => {
    expect(parseShard('2/3')).toEqual({ i: 2, n: 3 });
    for (const bad of ['0/2', '3/2', '1/0', '1', 'a/b', '1/2/3'])
      expect(() => parseShard(bad), bad).toThrow(/^--shard: /);
    const all: number[] = [];
    for (let i = 1; i <= 3; i++) {
      const part = [...shardIndexes(10, { i, n: 3 })];
      expect(part.every((x) => x % 3 === i - 1)).toBe(true);
      expect(part.length).toBe(shardSize(10, { i, n: 3 }));
      all.push(...part);
    }
    expect(all.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(shardSize(2, { i: 5, n: 5 })).toBe(0);
  });
});

describe('summary statistics', () => {
  it('min / median / max, the median of an even count the mean of the middle two', () => {
    expect(statOf([5, 1, 3])).toEqual({ min: 1, median: 3, max: 5, n: 3 });
    expect(statOf([4, 1, 3, 10])).toEqual({ min: 1, median: 3.5, max: 10, n: 4 });
    expect(statOf([])).toBeNull();
  });

  it('groups lines by mode and values, in first-seen order, counting failed verdicts', () => {
    const line = (
      mode: 'stock' | 'fixed',
      a: number,
      seed: number,
      value: number,
      passed: boolean | null,
    ): SweepLine => ({
      index: 0,
      grid: 'g',
      runs: 0,
      scenario: 's',
      mode,
      seed,
      vary: { a },
      traceHash: '',
      simulatedSeconds: 1,
      figures: { delivery: { reliableLost: value } },
      verdict: passed === null ? null : { passed, failed: passed ? [] : ['delivery.reliableLost'] },
    });
    const agg = new SweepAggregator(['delivery.reliableLost'], ['a']);
    [
      line('stock', 1, 1, 4, true),
      line('stock', 1, 2, 2, false),
      line('stock', 2, 1, 9, null),
      line('fixed', 1, 1, 0, true),
    ].forEach((l) => agg.add(l));
    const s = agg.summary();
    expect(s.rows.map((r) => [r.mode, r.vary.a, r.runs, r.failed])).toEqual([
      ['stock', 1, 2, 1],
      ['stock', 2, 1, 0],
      ['fixed', 1, 1, 0],
    ]);
    expect(s.rows[0].stats['delivery.reliableLost']).toEqual({ min: 2, median: 3, max: 4, n: 2 });
    expect(s.failed).toBe(1);
  });
});
