// Seeded randomness in named streams. Each stream is seeded from
// (scenario seed, stream name) alone, so adding a stream never shifts another.
import seedrandom from 'seedrandom';

/** One independent, reproducible source of uniform numbers in [0, 1). */
export interface RandomStream {
  readonly name: string;
  /** Uniform in [0, 1). */
  next(): number;
}

/**
 * Where a Link takes its named streams from: RandomStreams for a simulated run,
 * or the live proxy's per-datagram streams (issue 14, src/live/proxy/indexed-streams.ts).
 */
export interface StreamSource {
  stream(name: string): RandomStream;
}

/** Hands out named streams for one run. A name may be taken only once. */
export class RandomStreams implements StreamSource {
  private readonly taken = new Set<string>();

  constructor(readonly seed: number | string) {}

  /** The stream for `name`. Asking twice is a wiring bug: two users would share draws. */
  stream(name: string): RandomStream {
    if (this.taken.has(name)) throw new Error(`random stream "${name}" requested twice`);
    this.taken.add(name);
    return namedStream(this.seed, name);
  }
}

/** A stream derived from (seed, name), independent of every other name. */
export function namedStream(seed: number | string, name: string): RandomStream {
  // alea is fast and seedrandom hashes the whole key string, so nearby names
  // and seeds give unrelated sequences.
  const prng = seedrandom.alea(`bcsim\u0000${String(seed)}\u0000${name}`);
  return { name, next: () => prng() };
}
