// u16 sequence numbers wrap (docs/sources.md 1). Fixed mode must still deliver every
// reliable message exactly once and in order across wraps, under loss.
import { describe, expect, it } from 'vitest';
import { TYPE_GAME } from '../../src/core/codec/index.js';
import { namedStream } from '../../src/core/engine/random.js';
import { micros } from '../../src/core/engine/time.js';
import { makePair, ms } from '../support/wire.js';

describe('sequence wraparound', () => {
  it('fixed: > 70,000 reliable messages per direction with 10% loss arrive exactly once, in order', () => {
    const perDirection = 70_500;
    const pair = makePair({ preset: 'fixed', params: { peerTimeoutMs: 1e9 } });
    const loss = { server: namedStream(7, 'loss.server'), client: namedStream(7, 'loss.client') };
    let dropped = 0;
    for (const role of ['server', 'client'] as const) {
      pair.dropFrom[role] = () => {
        const drop = loss[role].next() < 0.1;
        if (drop) dropped++;
        return drop;
      };
    }
    // 8 messages per 95 ms update per direction; uids count up per direction.
    const sent = { server: 0, client: 0 };
    const feed = () => {
      for (const role of ['server', 'client'] as const) {
        for (let i = 0; i < 8 && sent[role] < perDirection; i++) {
          const p = new Uint8Array(12);
          p[0] = 0x06;
          expect(pair.peer(role).send({ type: TYPE_GAME, payload: p, reliable: true, uid: sent[role]++ })).toBe(true);
        }
      }
      if (sent.server < perDirection || sent.client < perDirection) pair.sim.after(ms(95), feed);
    };
    pair.sim.at(micros(0), feed);
    pair.sim.runUntil(ms(1_200_000));

    // The loss really happened: about 10% of all datagrams (4 sigma of a binomial).
    const n = pair.sent.length;
    expect(Math.abs(dropped - 0.1 * n)).toBeLessThan(4 * Math.sqrt(n * 0.1 * 0.9));
    for (const role of ['server', 'client'] as const) {
      const got = pair.delivered[role].filter((d) => d.type === TYPE_GAME).map((d) => d.uid);
      expect(got.length).toBe(perDirection);
      // Exactly once and in order: the delivered uids are 0..n-1 in sequence.
      let inOrder = true;
      for (let i = 0; i < got.length; i++) if (got[i] !== i) inOrder = false;
      expect(inOrder).toBe(true);
    }
    // The counters really wrapped: 70,500 = 65,536 + 4,964.
    expect(pair.server.nextSendSeq(false)).toBe(perDirection - 65_536);
    expect(pair.client.expectedSeq(false)).toBe(perDirection - 65_536);
    expect(pair.server.counters.retransmits).toBeGreaterThan(0);
  }, 30_000);
});
