// Seeded randomness in named streams. Each stream is seeded from
// (scenario seed, stream name) alone, so adding a stream never shifts another.
// alea alone: seedrandom's index also loads its five other generators and node:crypto
// (for autoseeding, which a named stream never does), ~8 ms of a start that hashes nothing (--help).
import alea from 'seedrandom/lib/alea.js';

/** One independent, reproducible source of uniform numbers in [0, 1). */
export interface RandomStream {
  readonly name: string;
  /** Uniform in [0, 1). */
  next(): number;
}

/**
 * Where a Link takes its named streams from: RandomStreams for a simulated run,
 * or the live proxy's per-datagram streams (src/live/proxy/indexed-streams.ts).
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
  // seedrandom hashes the whole key string into alea's state, so nearby names
  // and seeds give unrelated sequences; the stream then steps that state itself.
  const prng = alea(`bcsim\u0000${String(seed)}\u0000${name}`, { state: true });
  return new AleaStream(name, prng.state());
}

/** Alea's state words are fractions in [0, 1): a double of that range seeds their fields. */
const STATE_SEED = 0.5;

/**
 * Alea's step (seedrandom's lib/alea.js, the same arithmetic) on a class of its
 * own: one shape for every stream, so draws inline at their call sites and
 * return unboxed doubles. A closure per stream cost a boxed number per draw,
 * ~3.5 M draws in 4 simulated hours of long-session.
 */
class AleaStream implements RandomStream {
  // A field declared without a value starts as undefined and then holds every double
  // it is given in a new heap box; seeded with a double, it keeps one box and rewrites it.
  private s0 = STATE_SEED;
  private s1 = STATE_SEED;
  private s2 = STATE_SEED;
  private c = 0;

  constructor(
    readonly name: string,
    state: { s0: number; s1: number; s2: number; c: number },
  ) {
    this.s0 = state.s0;
    this.s1 = state.s1;
    this.s2 = state.s2;
    this.c = state.c;
  }

  next(): number {
    const t = 2091639 * this.s0 + this.c * 2.3283064365386963e-10; // 2^-32
    this.s0 = this.s1;
    this.s1 = this.s2;
    this.c = t | 0;
    this.s2 = t - this.c;
    return this.s2;
  }
}
