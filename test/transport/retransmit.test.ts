// Retransmit policy (docs/sources.md 11): fixed, linear and exponential backoff,
// the optional retry limit, and several datagrams per update.
import { describe, expect, it } from 'vitest';
import { TYPE_GAME } from '../../src/core/codec/index.js';
import { retransmitIntervalUs } from '../../src/model/transport/backoff.js';
import { STOCK_RETRANSMIT } from '../../src/model/transport/switches.js';
import { makePair, ms, payload } from '../support/wire.js';

describe('backoff intervals', () => {
  it('fixed stays at the base', () => {
    expect([0, 1, 5, 50].map((n) => retransmitIntervalUs(STOCK_RETRANSMIT, n))).toEqual([2e6, 2e6, 2e6, 2e6]);
  });
  it('linear adds a step per retransmit up to the cap', () => {
    const linear = { backoff: 'linear', baseMs: 1000, stepMs: 1000, capMs: 5000, retryLimit: null } as const;
    expect([0, 1, 2, 3, 4, 10].map((n) => retransmitIntervalUs(linear, n) / 1000)).toEqual([
      1000, 2000, 3000, 4000, 5000, 5000,
    ]);
  });
  it('exponential doubles up to the cap, without overflow for huge counts', () => {
    const exp = { backoff: 'exponential', baseMs: 500, stepMs: 0, capMs: 8000, retryLimit: null } as const;
    expect([0, 1, 2, 3, 4, 5, 1e6].map((n) => retransmitIntervalUs(exp, n) / 1000)).toEqual([
      500, 1000, 2000, 4000, 8000, 8000, 8000,
    ]);
  });
});

/** Sends one reliable message from the client at 10 ms and drops everything it sends. */
function blackHole(retransmit: object) {
  const pair = makePair({
    preset: 'fixed',
    switches: { retransmit: { ...STOCK_RETRANSMIT, ...retransmit } },
    params: { keepaliveIdleMs: 1e9, peerTimeoutMs: 1e9 },
  });
  let dropped = 0;
  pair.dropFrom.client = () => {
    dropped++;
    return true;
  };
  pair.sim.at(ms(10), () => pair.client.send({ type: TYPE_GAME, payload: payload(20), reliable: true, uid: 42 }));
  return { pair, dropped: () => dropped };
}

const sendTimesMs = (pair: ReturnType<typeof makePair>) =>
  pair.sent
    .filter((r) => r.from === 'client' && r.messages.some((m) => m.type === TYPE_GAME))
    .map((r) => r.timeUs / 1000);

describe('retransmission on the wire', () => {
  it('linear backoff spaces retransmits 1, 2, 3 s (rounded up to 95 ms updates)', () => {
    const { pair, dropped } = blackHole({ backoff: 'linear', baseMs: 1000, stepMs: 1000, capMs: 5000 });
    pair.sim.runUntil(ms(12_000));
    const t = sendTimesMs(pair);
    const gaps = t.slice(1).map((x, i) => x - t[i]);
    // First send at 47 ms; each gap is the interval rounded up to the next client update.
    expect(gaps.slice(0, 3)).toEqual([1045, 2090, 3040]);
    expect(dropped()).toBe(t.length);
  });

  it('a retry limit gives the message up after that many retransmits', () => {
    const { pair } = blackHole({ retryLimit: 3 });
    pair.sim.runUntil(ms(30_000));
    expect(sendTimesMs(pair)).toHaveLength(4); // first send + 3 retransmits
    expect(pair.gaveUp).toEqual([42]);
    expect(pair.client.counters.gaveUp).toBe(1);
    expect(pair.client.retransmitQueue.size).toBe(0);
  });

  it('without a limit, stock keeps retransmitting', () => {
    const { pair } = blackHole({});
    pair.sim.runUntil(ms(30_000));
    expect(sendTimesMs(pair).length).toBeGreaterThanOrEqual(14);
    expect(pair.gaveUp).toEqual([]);
  });
});

describe('datagramsPerUpdate', () => {
  it('packs a backlog into several datagrams per update when allowed', () => {
    for (const perUpdate of [1, 3]) {
      const pair = makePair({ preset: 'fixed', params: { datagramsPerUpdate: perUpdate, keepaliveIdleMs: 1e9 } });
      pair.sim.at(ms(10), () => {
        for (let i = 0; i < 60; i++)
          pair.client.send({ type: TYPE_GAME, payload: payload(40), reliable: false, uid: -1 });
      });
      pair.sim.runUntil(ms(48));
      const first = pair.sent.filter((r) => r.from === 'client' && r.timeUs === ms(47));
      expect(first).toHaveLength(perUpdate);
      for (const d of first) expect(d.bytes.length).toBeLessThanOrEqual(512);
      expect(pair.client.counters.deferredMessages).toBe(60 - first.reduce((n, d) => n + d.messages.length, 0));
    }
  });
});
