// `--shard i/n`: a deterministic slice of the grid, index % n === i - 1, so n
// machines (or a batch system's indexed jobs) split one sweep with no coordinator.
import { SweepInputError } from './errors.js';

export interface Shard {
  /** 1-based, as written on the command line. */
  readonly i: number;
  readonly n: number;
}

/** Far more machines than anyone runs; keeps a typo from meaning a shard of one run in a billion. */
const MAX_SHARDS = 100_000;

export function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text);
  const fail = (why: string): never => {
    throw new SweepInputError(`--shard: ${why}, got ${JSON.stringify(text)}`);
  };
  if (m === null) fail('expected i/n such as 1/4 (shard i of n, 1-based)');
  const [i, n] = [Number((m as RegExpExecArray)[1]), Number((m as RegExpExecArray)[2])];
  if (n < 1 || n > MAX_SHARDS) fail(`n must be 1..${MAX_SHARDS.toLocaleString('en-US')}`);
  if (i < 1 || i > n) fail(`i must be 1..n`);
  return { i, n };
}

export function inShard(index: number, shard: Shard | undefined): boolean {
  return shard === undefined || index % shard.n === shard.i - 1;
}

/** How many of `total` indexes the shard holds. */
export function shardSize(total: number, shard: Shard | undefined): number {
  if (shard === undefined) return total;
  const first = shard.i - 1;
  return first >= total ? 0 : Math.floor((total - 1 - first) / shard.n) + 1;
}

/** The shard's indexes in ascending order, lazily: a grid of a million never becomes an array. */
export function* shardIndexes(total: number, shard: Shard | undefined): Generator<number> {
  const [start, step] = shard === undefined ? [0, 1] : [shard.i - 1, shard.n];
  for (let index = start; index < total; index += step) yield index;
}
