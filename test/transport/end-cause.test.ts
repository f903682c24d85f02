// Each peer keeps why its connection ended (src/model/transport/end-cause.ts): the swarm judges ends by
// it, and a failure report names the message that ran out of time. One test per way to end.
import { describe, expect, it } from 'vitest';
import { TYPE_DISCONNECT, TYPE_GAME } from '../../src/core/codec/index.js';
import { STOCK_RETRANSMIT } from '../../src/model/transport/switches.js';
import { endCauseText } from '../../src/model/transport/index.js';
import { makePair, ms, payload } from '../support/wire.js';

const params = { keepaliveIdleMs: 1e9 };

describe('a peer says why its connection ended', () => {
  it('null while it lives; closed after a drain that completed', () => {
    const pair = makePair({ preset: 'fixed', params });
    pair.sim.at(ms(10), () => pair.client.send({ type: TYPE_GAME, payload: payload(20), reliable: true, uid: 7 }));
    pair.sim.runUntil(ms(1_000));
    expect(pair.client.endCause).toBeNull();
    pair.sim.at(ms(1_100), () => pair.client.disconnect());
    pair.sim.runUntil(ms(20_000));
    expect([pair.client.state, pair.server.state]).toEqual(['closed', 'closed']);
    expect(pair.client.endCause).toEqual({ kind: 'closed' });
    expect(pair.server.endCause).toEqual({ kind: 'closed' });
  });

  it('the peer timeout, with the time it last heard anything', () => {
    const pair = makePair({ preset: 'fixed', params: { ...params, peerTimeoutMs: 5_000 } });
    pair.dropFrom.server = () => pair.sim.now > ms(1_000);
    pair.dropFrom.client = () => pair.sim.now > ms(1_000);
    pair.sim.at(ms(10), () => pair.client.send({ type: TYPE_GAME, payload: payload(20), reliable: true, uid: 7 }));
    pair.sim.runUntil(ms(10_000));
    const cause = pair.client.endCause;
    expect(pair.client.state).toBe('timed-out');
    expect(cause?.kind).toBe('peer-timeout');
    if (cause?.kind !== 'peer-timeout') return;
    expect(cause.lastHeardUs).toBeLessThanOrEqual(ms(1_100));
    expect(endCauseText(cause)).toMatch(/^peer timeout \(last heard at 0\.\d{3} s\)$/);
  });

  it('the message given up, at its retry limit, with its first send and how often it went out', () => {
    const pair = makePair({
      preset: 'fixed',
      switches: { retransmit: { ...STOCK_RETRANSMIT, retryLimit: 2 } },
      params,
    });
    pair.dropFrom.client = (_i, bytes) => bytes.includes(0x32);
    pair.sim.at(ms(10), () => pair.client.send({ type: TYPE_GAME, payload: payload(20), reliable: true, uid: 7 }));
    pair.sim.runUntil(ms(12_000));
    expect(pair.client.state).toBe('gave-up');
    expect(pair.client.endCause).toEqual({
      kind: 'message-given-up',
      limit: 'retry-limit',
      message: { type: TYPE_GAME, low: false, seq: 0, fragment: false, fragIndex: 0, firstSendUs: ms(47), sends: 3 },
    });
    expect(endCauseText(pair.client.endCause as never)).toBe('gave up high seq 0 at its retry-limit after 3 sends');
  });

  it('the message given up at its age (the peer timeout: messageLifetime)', () => {
    const pair = makePair({ preset: 'fixed', params: { ...params, peerTimeoutMs: 8_000 } });
    // The client's game messages never arrive; everything else does, so nobody times out.
    pair.dropFrom.client = (_i, bytes) => bytes.includes(0x32);
    pair.sim.at(ms(10), () => pair.client.send({ type: TYPE_GAME, payload: payload(20), reliable: true, uid: 7 }));
    for (let t = 500; t < 12_000; t += 500)
      pair.sim.at(ms(t), () => pair.server.send({ type: 0x00, payload: payload(4, 0), reliable: false, uid: -1 }));
    pair.sim.runUntil(ms(12_000));
    const cause = pair.client.endCause;
    expect(cause?.kind).toBe('message-given-up');
    if (cause?.kind !== 'message-given-up') return;
    expect(cause.limit).toBe('message-age');
    expect(cause.message.seq).toBe(0);
  });

  it('the drain deadline, naming the message it still waited for', () => {
    const pair = makePair({ preset: 'fixed', params: { ...params, peerTimeoutMs: 8_000 } });
    // Every Disconnect the client sends is lost; the server keeps talking, so nobody times out.
    pair.dropFrom.client = (_i, bytes) => pair.sent.at(-1)?.messages.some((m) => m.type === TYPE_DISCONNECT) === true;
    for (let t = 500; t < 14_000; t += 500)
      pair.sim.at(ms(t), () => pair.server.send({ type: 0x00, payload: payload(4, 0), reliable: false, uid: -1 }));
    pair.sim.at(ms(100), () => pair.client.disconnect());
    pair.sim.runUntil(ms(14_000));
    const cause = pair.client.endCause;
    expect(pair.client.state).toBe('gave-up');
    expect(cause?.kind).toBe('drain-deadline');
    if (cause?.kind !== 'drain-deadline') return;
    expect(cause.drainStartUs).toBe(ms(100));
    expect(cause.oldestUnacked?.type).toBe(TYPE_DISCONNECT);
    expect(cause.remoteDisconnected).toBe(false);
    expect(endCauseText(cause)).toMatch(
      /^drain deadline \(drain began at 0\.100 s; waiting for low seq \d+ \(type 0x05\) unACKed\)$/,
    );
  });
});
