// Seeded randomness in named streams. Each stream is seeded from
// (scenario seed, stream name) alone, so adding a stream never shifts another.
// The generator is Johannes Baagøe's Alea, as seedrandom.alea draws it (test/engine/random.test.ts
// holds every draw to that package): the step is written here for speed (see AleaStream), and
// so is its 15-line seed hash, which seedrandom exposes only through an internal file.

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
  // The whole key string is hashed into Alea's state, so nearby names and seeds
  // give unrelated sequences.
  return new AleaStream(name, aleaState(`bcsim\u0000${String(seed)}\u0000${name}`));
}

/** Alea's seeding: three state words from Baagøe's Mash hash of a space, less the key's. */
function aleaState(key: string): { s0: number; s1: number; s2: number; c: number } {
  const mash = mashHash();
  const words = [mash(' '), mash(' '), mash(' ')];
  for (let i = 0; i < 3; i++) {
    words[i] -= mash(key);
    if (words[i] < 0) words[i] += 1;
  }
  return { s0: words[0], s1: words[1], s2: words[2], c: 1 };
}

/** Baagøe's Mash: a string hash into [0, 1) whose running state carries from one call to the next. */
function mashHash(): (text: string) => number {
  let n = 0xefc8249d;
  return (text) => {
    for (let i = 0; i < text.length; i++) {
      n += text.charCodeAt(i);
      let h = 0.02519603282416938 * n;
      n = h >>> 0;
      h -= n;
      h *= n;
      n = h >>> 0;
      h -= n;
      n += h * 0x100000000; // 2^32
    }
    return (n >>> 0) * 2.3283064365386963e-10; // 2^-32
  };
}

/** Alea's state words are fractions in [0, 1): a double of that range seeds their fields. */
const STATE_SEED = 0.5;

/**
 * Alea's step (the arithmetic of seedrandom.alea) on a class of its
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
