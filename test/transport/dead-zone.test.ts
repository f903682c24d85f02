// The dead zone (ack-outbox-deadlock.md §1–§2, docs/sources.md 8–9) with exact event
// times. Server updates run at k*95 ms; a datagram is read in the first update
// after it arrives, after that update's send step (docs/sources.md 16), so its ACK
// leaves one update later. An ACK entry is due when more than 667 ms passed
// since its last send, so resends land 8 updates (760 ms) apart.
import { describe, expect, it } from 'vitest';
import { TYPE_ACK, TYPE_GAME } from '../../src/core/codec/index.js';
import { makePair, ms, payload } from '../support/wire.js';
import type { Pair } from '../support/wire.js';

const QUIET = { keepaliveIdleMs: 1e9, peerTimeoutMs: 1e9 };

/** Times (ms) at which the server put an ACK for high-category seq `seq` on the wire. */
function ackTimes(pair: Pair, seq: number): number[] {
  return pair.sent
    .filter(
      (r) => r.from === 'server' && r.messages.some((m) => m.type === TYPE_ACK && m.seq === seq && (m.flags & 2) === 0),
    )
    .map((r) => r.timeUs / 1000);
}

function sendGame(pair: Pair, atMs: number, reliable: boolean, from: 'client' | 'server' = 'client') {
  pair.sim.at(ms(atMs), () => {
    pair.peer(from).send({ type: TYPE_GAME, payload: payload(20), reliable, uid: 1 });
  });
}

describe('stock two-pass ACK-outbox: the dead zone', () => {
  it('sends a fresh entry 3 times, strands it until traffic opens the gate, and frees it at count 9', () => {
    const pair = makePair({ preset: 'stock', params: QUIET });
    sendGame(pair, 10, true); // client tick 47 ms -> arrives at 52 ms, read by the server's update at 95 ms
    // From 20 s the server has unreliable data for every update: the gate opens each time.
    for (let t = 20_000; t < 30_000; t += 95) sendGame(pair, t, false, 'server');

    pair.sim.runUntil(ms(1_600));
    expect(pair.server.ackOutbox.size).toBe(1);
    expect(pair.server.ackOutbox.deadZone).toBe(0);
    pair.sim.runUntil(ms(19_999));
    // Pass 1 has sent it 3 times; pass 2 is gated shut: nothing else was written.
    expect(ackTimes(pair, 0)).toEqual([190, 950, 1710]);
    expect(pair.server.ackOutbox.deadZone).toBe(1);
    expect(pair.server.ackOutbox.entriesInQueueOrder()[0].sendCount).toBe(3);

    pair.sim.runUntil(ms(30_000));
    // Every datagram from 20.045 s carries data, so pass 2 runs; the entry goes
    // out whenever its timer expired, and is freed at its 9th send.
    expect(ackTimes(pair, 0)).toEqual([190, 950, 1710, 20045, 20805, 21565, 22325, 23085, 23845]);
    expect(pair.server.ackOutbox.size).toBe(0);
    expect(pair.server.counters.ackEntriesFreed).toBe(1);
    expect(pair.server.counters.ackOutboxDeadZoneMax).toBe(1);
  });

  it('a disconnect opens the gate: the stranded ACK rides in the Disconnect datagram', () => {
    const pair = makePair({ preset: 'stock', params: QUIET });
    sendGame(pair, 10, true);
    pair.sim.at(ms(10_000), () => pair.server.disconnect());
    pair.sim.runUntil(ms(9_999));
    expect(ackTimes(pair, 0)).toEqual([190, 950, 1710]);
    pair.sim.runUntil(ms(12_000));
    // Server update at 10.070 s: the Disconnect (type 0x05) plus the stale ACK, count 4.
    const disconnectDatagram = pair.sent.find((r) => r.from === 'server' && r.messages.some((m) => m.type === 0x05));
    expect(disconnectDatagram?.timeUs).toBe(ms(10_070));
    expect(disconnectDatagram?.messages.map((m) => m.type)).toEqual([0x05, TYPE_ACK]);
    expect(ackTimes(pair, 0)).toEqual([190, 950, 1710, 10_070]);
    // The client ACKs the Disconnect with its gate open and keeps re-sending that ACK
    // until it removes the peer 4.16 s later (disconnectedPeerLingerMs, docs/sources.md 28).
    pair.sim.runUntil(ms(20_000));
    const clientAcks = pair.sent.filter(
      (r) => r.from === 'client' && r.messages.some((m) => m.type === TYPE_ACK && (m.flags & 2) !== 0),
    );
    expect(clientAcks.map((r) => r.timeUs / 1000)).toEqual([10_212, 10_972, 11_732, 12_492, 13_252, 14_012]);
    expect(pair.server.state).toBe('closed');
    expect(pair.client.state).toBe('closed');
  });

  it('receiveTiming on-arrival: the ACK leaves in the next update', () => {
    const pair = makePair({ preset: 'stock', switches: { receiveTiming: 'on-arrival' }, params: QUIET });
    sendGame(pair, 10, true);
    pair.sim.runUntil(ms(9_999));
    expect(ackTimes(pair, 0)).toEqual([95, 855, 1615]);
  });
});

describe('fixed single-pass ACK-outbox', () => {
  it('sends each entry 3 times and frees it: the outbox empties', () => {
    const pair = makePair({ preset: 'fixed', params: QUIET });
    sendGame(pair, 10, true);
    for (let t = 20_000; t < 30_000; t += 95) sendGame(pair, t, false, 'server');
    pair.sim.runUntil(ms(1_709));
    expect(pair.server.ackOutbox.size).toBe(1);
    pair.sim.runUntil(ms(1_710));
    expect(pair.server.ackOutbox.size).toBe(0);
    pair.sim.runUntil(ms(30_000));
    expect(ackTimes(pair, 0)).toEqual([190, 950, 1710]);
    expect(pair.server.counters.ackOutboxDeadZoneMax).toBe(0);
    expect(pair.server.counters.ackEntriesFreed).toBe(1);
  });
});
