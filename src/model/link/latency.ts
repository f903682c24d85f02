// Latency jitter and netem-style explicit reordering.
import { exponential, millis, normal, uniform } from '../../core/engine/index.js';
import type { Millis, MillisIn, RandomStream } from '../../core/engine/index.js';
import type { JitterDistribution } from './config.js';
import { chance } from './draw.js';

/**
 * A sampler of the jitter added to the base delay, in ms, always >= 0 so a
 * datagram never arrives before its base delay:
 * - 'uniform': U[0, jitterMs] (one draw), mean jitterMs/2.
 * - 'normal': half-normal |N(0, jitterMs)| (two draws, Box–Muller), mean
 *   jitterMs·sqrt(2/π). Folding keeps the "σ = jitterMs" reading of the knob
 *   without clipping a probability mass onto zero.
 * - 'exponential': Exp with mean jitterMs (one draw).
 */
export function createJitter(distribution: JitterDistribution, jitterMs: MillisIn, stream: RandomStream): () => Millis {
  switch (distribution) {
    case 'uniform':
      return () => millis(uniform(stream, 0, jitterMs));
    case 'normal':
      return () => millis(Math.abs(normal(stream, 0, jitterMs)));
    case 'exponential':
      return () => millis(exponential(stream, jitterMs));
  }
}

/**
 * netem `reorder P gap G`, with netem's counter: a datagram is eligible once
 * G-1 datagrams have passed since the last reordered one; an eligible datagram
 * skips the delay with probability P (one draw, unless P is 0 or 1), which
 * resets the count. An eligible datagram that loses the draw keeps the next one
 * eligible. With P = 1 exactly every G-th datagram skips the delay.
 */
export class NetemReorder {
  private sinceLast = 0;

  constructor(
    private readonly probability: number,
    private readonly gap: number,
    private readonly stream: RandomStream | null,
  ) {}

  /** Called once per datagram reaching the delay stage; true = send without delay. */
  skipDelay(): boolean {
    if (this.sinceLast >= this.gap - 1 && chance(this.stream, this.probability)) {
      this.sinceLast = 0;
      return true;
    }
    this.sinceLast++;
    return false;
  }
}
