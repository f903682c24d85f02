// The swarm generator's randomness: a small seeded PRNG and one independent stream per run.
// Every draw the generator makes goes through one of these methods, in a fixed order:
// changing that order changes every generated run.

/** mulberry32: tiny, fast, and good enough to pick test parameters. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), 1 | t);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** Integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** Number in [lo, hi), rounded to `digits` decimals (short command lines). */
  float(lo: number, hi: number, digits = 3): number {
    const f = 10 ** digits;
    return Math.round((lo + this.next() * (hi - lo)) * f) / f;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  weighted<T extends string>(table: ReadonlyArray<readonly [T, number]>): T {
    const total = table.reduce((s, [, w]) => s + w, 0);
    let x = this.next() * total;
    for (const [value, w] of table) {
      x -= w;
      if (x < 0) return value;
    }
    return table[table.length - 1][0];
  }
}

/** Independent stream per (generator seed, run index): any subset of runs is reproducible alone. */
export function runRng(generatorSeed: number, index: number): Rng {
  let h = Math.imul(generatorSeed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(index + 1, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  return new Rng(h >>> 0);
}
