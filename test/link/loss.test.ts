import { describe, expect, it } from 'vitest';
import type { LossModel } from '../../src/model/link/config.js';
import { CountingStreams, binomialTolerance, datagram, game, harness, linkConfig } from './helpers.js';

const BYTES = datagram([game(1)]);

/** Sends n datagrams (uid = index) through a link with `loss`; returns the per-datagram loss pattern. */
function lossPattern(loss: LossModel, n: number, seed: number, streams = new CountingStreams(seed)) {
  const h = harness(linkConfig({ loss }), { streams });
  for (let i = 0; i < n; i++) h.link.send(BYTES, [i]);
  h.sim.runUntilIdle();
  const lost = new Uint8Array(n);
  for (const d of h.drops) {
    expect(d.cause).toBe('loss');
    lost[d.uids[0]] = 1;
  }
  return { lost, counters: h.link.counters, streams };
}

describe('Bernoulli loss', () => {
  it('loses a fraction p of datagrams (4-sigma binomial bound), one draw per datagram', () => {
    const n = 40_000;
    const p = 0.1;
    const { counters, streams } = lossPattern({ model: 'bernoulli', probability: p }, n, 5);
    expect(counters.droppedBy.loss).toBeGreaterThan(0);
    expect(counters.dropped).toBe(counters.droppedBy.loss);
    expect(counters.delivered).toBe(n - counters.dropped);
    expect(Math.abs(counters.droppedBy.loss / n - p)).toBeLessThan(binomialTolerance(p, n));
    expect(streams.draws.get('c2s.loss')).toBe(n);
    expect(streams.total).toBe(n);
  });

  it('p = 0 and p = 1 are exact and consume no draws', () => {
    const none = lossPattern({ model: 'bernoulli', probability: 0 }, 1_000, 1);
    expect(none.counters.dropped).toBe(0);
    expect(none.streams.total).toBe(0);
    const all = lossPattern({ model: 'bernoulli', probability: 1 }, 1_000, 1);
    expect(all.counters.droppedBy.loss).toBe(1_000);
    expect(all.counters.delivered).toBe(0);
    expect(all.streams.total).toBe(0);
  });
});

describe('Gilbert–Elliott loss', () => {
  it('steps the chain first, then draws the loss in the new state', () => {
    // Certain transitions, no draws: good→bad (lost), bad→good (kept), …
    const { lost, streams } = lossPattern(
      { model: 'gilbert-elliott', pGoodToBad: 1, pBadToGood: 1, lossGood: 0, lossBad: 1 },
      6,
      1,
    );
    expect(Array.from(lost)).toEqual([1, 0, 1, 0, 1, 0]);
    expect(streams.total).toBe(0);
  });

  it('mean loss matches the stationary formula (tolerance from the Markov-correlated variance)', () => {
    const pGB = 0.05;
    const pBG = 0.25;
    const lossGood = 0.01;
    const lossBad = 0.6;
    const n = 100_000;
    const { counters, streams } = lossPattern(
      { model: 'gilbert-elliott', pGoodToBad: pGB, pBadToGood: pBG, lossGood, lossBad },
      n,
      17,
    );
    const mean = (pGB * lossBad + pBG * lossGood) / (pGB + pBG);
    // Loss indicator X_t = Bernoulli(loss(S_t)); Cov(X_t, X_t+k) = (lossBad-lossGood)^2·πB·πG·λ^k, λ = 1-pGB-pBG.
    // Asymptotic variance of the sample mean: [m(1-m) + 2(lossBad-lossGood)^2 πB πG λ/(1-λ)] / n.
    const piB = pGB / (pGB + pBG);
    const lambda = 1 - pGB - pBG;
    const sigma2 = mean * (1 - mean) + (2 * (lossBad - lossGood) ** 2 * piB * (1 - piB) * lambda) / (1 - lambda);
    // Starting in the good state biases the mean by at most (lossBad-lossGood)·πB·λ/(1-λ)/n.
    const startBias = ((lossBad - lossGood) * piB * lambda) / (1 - lambda) / n;
    const observed = counters.droppedBy.loss / n;
    expect(counters.droppedBy.loss).toBeGreaterThan(0);
    expect(Math.abs(observed - mean)).toBeLessThan(4 * Math.sqrt(sigma2 / n) + startBias);
    // Two draws per datagram: transition, then loss.
    expect(streams.draws.get('c2s.loss')).toBe(2 * n);
  });

  it('with lossGood = 0, lossBad = 1 loss bursts are geometric with mean 1/pBadToGood', () => {
    const pGB = 0.1;
    const pBG = 0.3;
    const n = 100_000;
    const { lost } = lossPattern(
      { model: 'gilbert-elliott', pGoodToBad: pGB, pBadToGood: pBG, lossGood: 0, lossBad: 1 },
      n,
      23,
    );
    const bursts: number[] = [];
    let run = 0;
    for (let i = 0; i < n; i++) {
      if (lost[i]) run++;
      else if (run > 0) {
        bursts.push(run);
        run = 0;
      }
    }
    // A burst still open at the end is truncated: leave it out.
    expect(bursts.length).toBeGreaterThan(5_000);
    const meanBurst = bursts.reduce((s, b) => s + b, 0) / bursts.length;
    // Geometric on {1,2,…} with success pBG: mean 1/p, variance (1-p)/p^2; 4 standard errors.
    const expected = 1 / pBG;
    const tolerance = 4 * Math.sqrt((1 - pBG) / pBG ** 2 / bursts.length);
    expect(Math.abs(meanBurst - expected)).toBeLessThan(tolerance);
    // The loss rate is πB; here X_t = S_t, so the variance is πB·πG·(1 + 2λ/(1-λ)) / n.
    const piB = pGB / (pGB + pBG);
    const lambda = 1 - pGB - pBG;
    const rate = lost.reduce((s, x) => s + x, 0) / n;
    const rateSigma = Math.sqrt((piB * (1 - piB) * (1 + (2 * lambda) / (1 - lambda))) / n);
    expect(Math.abs(rate - piB)).toBeLessThan(4 * rateSigma + (piB * lambda) / (1 - lambda) / n);
  });
});
