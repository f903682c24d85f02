// The game's side of the run: how many entities die in each frame, and the
// ordinary position updates. The game steps once per frame (its delta time is a
// constant 1), so rates are per frame at the nominal 30 Hz, however long a frame took.
import { bernoulli, msToUs } from '../../core/engine/index.js';
import type { Micros, RandomStream, StreamSource } from '../../core/engine/index.js';
import type { RtypeWorkload } from './config.js';

/** Death entity ids start here, clear of player (1..64) and enemy position ids. */
export const FIRST_DEATH_ENTITY = 100_000;
/** Position updates cycle over this many enemies, from ENEMY_ENTITY_BASE. */
const ENEMY_ENTITY_BASE = 1_000;
const ENEMY_COUNT = 64;
/** Bounds a Poisson draw; a frame never holds more single deaths than this. */
const MAX_SINGLE_DEATHS_PER_FRAME = 1_000;

export class DeathWorkload {
  private readonly singles: RandomStream | null;
  private readonly bursts: RandomStream | null;
  private readonly lambda: number;
  private readonly burstChance: number;
  private readonly scripted: ReadonlyArray<{ readonly atUs: Micros; readonly size: number }>;
  private nextScripted = 0;
  private nextEntity = FIRST_DEATH_ENTITY;

  constructor(
    private readonly workload: RtypeWorkload,
    tickHz: number,
    streams: StreamSource,
  ) {
    this.lambda = workload.deathsPerSecond / tickHz;
    this.burstChance = workload.burstsPerMinute / 60 / tickHz;
    // A stream is taken only when its feature is on, so turning one off shifts no other draw.
    this.singles = this.lambda > 0 ? streams.stream('rtype.deaths') : null;
    this.bursts = this.burstChance > 0 ? streams.stream('rtype.bursts') : null;
    this.scripted = [...workload.scriptedBursts]
      .map((b) => ({ atUs: msToUs(b.atMs), size: b.size }))
      .sort((a, b) => a.atUs - b.atUs);
  }

  /** Entity ids that die in the frame starting at `nowUs`. */
  deathsAt(nowUs: Micros): number[] {
    let count = this.singles === null ? 0 : poisson(this.singles, this.lambda);
    if (this.bursts !== null && bernoulli(this.bursts, this.burstChance)) count += this.workload.burstSize;
    while (this.nextScripted < this.scripted.length && this.scripted[this.nextScripted].atUs <= nowUs)
      count += this.scripted[this.nextScripted++].size;
    const ids: number[] = [];
    for (let i = 0; i < count; i++) ids.push(this.nextEntity++);
    return ids;
  }

  /** The i-th position update of frame `frame`: deterministic, no draws. */
  static position(frame: number, i: number): { entityId: number; x: number; y: number } {
    return {
      entityId: ENEMY_ENTITY_BASE + ((frame * 7 + i) % ENEMY_COUNT),
      x: (frame * 3 + i * 97) % 1920,
      y: (i * 131) % 1080,
    };
  }
}

/** Poisson by inversion: one uniform per call. */
function poisson(stream: RandomStream, lambda: number): number {
  const u = stream.next();
  let p = Math.exp(-lambda);
  let cumulative = p;
  let k = 0;
  while (u > cumulative && k < MAX_SINGLE_DEATHS_PER_FRAME) {
    k++;
    p *= lambda / k;
    cumulative += p;
    if (p === 0) break;
  }
  return k;
}
