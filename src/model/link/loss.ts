// Random loss processes, advanced once per datagram that reaches the loss stage.
import type { RandomStream } from '../../core/engine/index.js';
import type { LossModel } from './config.js';
import { chance } from './draw.js';

export interface LossProcess {
  /** Decides the fate of the next datagram: true = lost. */
  lose(): boolean;
}

/** Independent loss: each datagram is lost with probability p (one draw). */
class BernoulliLoss implements LossProcess {
  constructor(
    private readonly stream: RandomStream,
    private readonly probability: number,
  ) {}

  lose(): boolean {
    return chance(this.stream, this.probability);
  }
}

/**
 * Gilbert–Elliott burst loss. Per datagram: FIRST advance the two-state chain
 * (good→bad with pGoodToBad, bad→good with pBadToGood), THEN draw the loss in
 * the new state (lossGood / lossBad). The chain starts in the good state.
 *
 * Stationary bad-state share πB = pGoodToBad / (pGoodToBad + pBadToGood), so the
 * long-run loss rate is (pGoodToBad·lossBad + pBadToGood·lossGood) / (pGoodToBad + pBadToGood).
 * With lossGood = 0, lossBad = 1 a loss burst is a bad-state sojourn: geometric
 * with mean 1 / pBadToGood datagrams.
 */
class GilbertElliottLoss implements LossProcess {
  private bad = false;

  constructor(
    private readonly stream: RandomStream,
    private readonly pGoodToBad: number,
    private readonly pBadToGood: number,
    private readonly lossGood: number,
    private readonly lossBad: number,
  ) {}

  get inBadState(): boolean {
    return this.bad;
  }

  lose(): boolean {
    this.bad = this.bad ? !chance(this.stream, this.pBadToGood) : chance(this.stream, this.pGoodToBad);
    return chance(this.stream, this.bad ? this.lossBad : this.lossGood);
  }
}

/** The process for `model`, or null for 'none' (no stream is touched then). */
export function createLoss(model: LossModel, stream: () => RandomStream): LossProcess | null {
  switch (model.model) {
    case 'none':
      return null;
    case 'bernoulli':
      return new BernoulliLoss(stream(), model.probability);
    case 'gilbert-elliott':
      return new GilbertElliottLoss(stream(), model.pGoodToBad, model.pBadToGood, model.lossGood, model.lossBad);
  }
}
