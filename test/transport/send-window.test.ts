// sendWindow: a fixed sender never has `sendWindow` or more
// seqs outstanding per category, so the u16 half-window cannot alias; the
// receiver refuses (and does not ACK) anything past the window.
import { describe, expect, it } from 'vitest';
import { TYPE_ACK, TYPE_GAME, encodeDatagram } from '../../src/core/codec/index.js';
import { makePair, ms, payload } from '../support/wire.js';

const params = { keepaliveIdleMs: 1e9, datagramsPerUpdate: 4 };

describe('send window', () => {
  it('holds first sends past the window until the oldest seq is ACKed, then delivers all in order', () => {
    const pair = makePair({ preset: 'fixed', switches: { sendWindow: 4 }, params });
    // The client's datagrams are lost for the first second.
    pair.dropFrom.client = () => pair.sim.now < ms(1000);
    pair.sim.at(ms(10), () => {
      for (let i = 0; i < 10; i++)
        pair.client.send({ type: TYPE_GAME, payload: payload(20), reliable: true, uid: 100 + i });
    });
    const firstSeqsSent: number[] = [];
    pair.sim.at(ms(1500), () => {
      for (const r of pair.sent)
        for (const m of r.messages)
          if (r.from === 'client' && m.type === TYPE_GAME) firstSeqsSent.push(m.seq as number);
    });
    pair.sim.runUntil(ms(10_000));
    // Before the first retransmit (2.09 s) only seqs 0..3 ever left.
    expect([...new Set(firstSeqsSent)]).toEqual([0, 1, 2, 3]);
    expect(pair.client.counters.windowStalls).toBeGreaterThan(0);
    expect(pair.client.counters.deferredMessages).toBe(6);
    expect(pair.delivered.server.map((d) => d.uid)).toEqual([100, 101, 102, 103, 104, 105, 106, 107, 108, 109]);
    expect(pair.client.retransmitQueue.size).toBe(0);
  });

  it('without a window the same burst goes out at once', () => {
    const pair = makePair({ preset: 'fixed', switches: { sendWindow: null }, params });
    pair.sim.at(ms(10), () => {
      for (let i = 0; i < 10; i++)
        pair.client.send({ type: TYPE_GAME, payload: payload(20), reliable: true, uid: 100 + i });
    });
    pair.sim.runUntil(ms(100));
    expect(pair.sent.filter((r) => r.from === 'client').flatMap((r) => r.messages.map((m) => m.seq))).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
    ]);
    expect(pair.client.counters.windowStalls).toBe(0);
  });

  it('the receiver drops a message past the window without ACKing it, and counts it', () => {
    const pair = makePair({ preset: 'fixed', switches: { sendWindow: 8 }, params });
    const datagram = (seq: number) => {
      const encoded = encodeDatagram({
        peerId: 0x02,
        messages: [
          {
            type: TYPE_GAME,
            reliable: true,
            ordered: false,
            fragment: false,
            seq,
            fragIndex: null,
            fragCount: null,
            payload: payload(10),
          },
        ],
      });
      if (!encoded.ok) throw new Error(encoded.error.reason);
      return encoded.bytes;
    };
    const stale = datagram(8);
    const inside = datagram(7);
    pair.sim.at(ms(20), () => {
      pair.server.arrive(stale, [1]);
      pair.server.arrive(inside, [2]);
    });
    pair.sim.runUntil(ms(500));
    expect(pair.server.counters.outOfWindow).toBe(1);
    const acked = pair.sent
      .filter((r) => r.from === 'server')
      .flatMap((r) => r.messages.filter((m) => m.type === TYPE_ACK).map((m) => m.seq));
    expect(acked).toEqual([7]); // seq 7 is buffered (waiting for 0..6); seq 8 is never ACKed
  });
});
