// onGiveUp: in a reliable ordered stream a message given up
// leaves a hole nothing can fill, so fixed ends the connection (transport-layer.md
// §4); stock drops the message and carries on.
import { describe, expect, it } from 'vitest';
import { TYPE_GAME } from '../../src/core/codec/index.js';
import { STOCK_RETRANSMIT } from '../../src/model/transport/switches.js';
import type { OnGiveUp } from '../../src/model/transport/switches.js';
import { makePair, ms, payload } from '../support/wire.js';

function giveUpAfterTwoRetries(onGiveUp: OnGiveUp) {
  const pair = makePair({
    preset: 'fixed',
    switches: { onGiveUp, retransmit: { ...STOCK_RETRANSMIT, retryLimit: 2 } },
    params: { keepaliveIdleMs: 1e9 },
  });
  // Only the first message's datagrams are lost; the second goes through.
  pair.dropFrom.client = (_i, bytes) => bytes.includes(0x32) && pair.sim.now < ms(7000);
  pair.sim.at(ms(10), () => pair.client.send({ type: TYPE_GAME, payload: payload(20), reliable: true, uid: 1 }));
  pair.sim.at(ms(8000), () => pair.client.send({ type: TYPE_GAME, payload: payload(20), reliable: true, uid: 2 }));
  pair.sim.runUntil(ms(12_000));
  return pair;
}

describe('onGiveUp', () => {
  it('disconnect: the give-up ends the connection at that update; later sends are refused', () => {
    const pair = giveUpAfterTwoRetries('disconnect');
    expect(pair.gaveUp).toEqual([1]);
    expect(pair.client.state).toBe('gave-up');
    expect(pair.client.counters.sendRejected).toBe(1); // uid 2 refused, never sent
    expect(pair.delivered.server).toEqual([]);
  });

  it('drop: the message is dropped and the stream stalls behind its hole', () => {
    const pair = giveUpAfterTwoRetries('drop');
    expect(pair.gaveUp).toEqual([1]);
    expect(pair.client.state).toBe('open');
    // seq 1 arrives and is ACKed, but waits for seq 0 for ever.
    expect(pair.delivered.server).toEqual([]);
    expect(pair.server.heldUids()).toEqual([2]);
  });
});
