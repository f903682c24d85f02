// The real update loop (docs/sources.md 16) and each open reading as a
// switch, with exact event times. Both peers update every 95 ms (server at
// k*95 ms, client at 47 + k*95 ms); the wire takes 5 ms.
import { describe, expect, it } from 'vitest';
import { TYPE_ACK, TYPE_CONNECT, TYPE_DATA, TYPE_GAME, encodeDatagram } from '../../src/core/codec/index.js';
import type { DataMessage } from '../../src/core/codec/index.js';
import type { Role } from '../../src/model/transport/roles.js';
import { QUEUED_RELIABLE_READINGS } from '../../src/model/transport/switches.js';
import type { SwitchPatch, TransportParams } from '../../src/model/transport/switches.js';
import { makePair, ms, payload } from '../support/wire.js';
import type { Pair } from '../support/wire.js';

const QUIET: Partial<TransportParams> = { keepaliveIdleMs: 1e9, peerTimeoutMs: 1e9 };

/** Stock with the "queued-reliable" readings, then `patch`: each test states every reading it relies on. */
function readings(patch: SwitchPatch = {}): SwitchPatch {
  return {
    ...QUEUED_RELIABLE_READINGS,
    ...patch,
    keepalive: { ...QUEUED_RELIABLE_READINGS.keepalive, ...patch.keepalive },
  };
}

/** Times (ms) of `from`'s datagrams that carry a message matching `pick`. */
function times(pair: Pair, from: Role, pick: (m: Pair['sent'][number]['messages'][number]) => boolean): number[] {
  return pair.sent.filter((r) => r.from === from && r.messages.some(pick)).map((r) => r.timeUs / 1000);
}

const highAck = (seq: number) => (m: Pair['sent'][number]['messages'][number]) =>
  m.type === TYPE_ACK && m.seq === seq && (m.flags & 2) === 0;

/** The client sends one reliable game message at 10 ms: the server ACKs it at 190, 950, 1710 ms, then it is stranded. */
function strandOne(switches: SwitchPatch, params: Partial<TransportParams> = QUIET): Pair {
  const pair = makePair({ preset: 'stock', switches: readings(switches), params });
  pair.sim.at(ms(10), () => pair.client.send({ type: TYPE_GAME, payload: payload(20), reliable: true, uid: 1 }));
  return pair;
}

describe('the update loop: send, then receive, then dispatch (docs/sources.md 16)', () => {
  it('a reply queued while a message is dispatched leaves in the next update, in one datagram with its ACK', () => {
    const pair = makePair({ preset: 'stock', params: QUIET });
    pair.onDelivered = (role, d) => {
      if (role === 'server' && d.type === TYPE_GAME)
        pair.server.send({ type: TYPE_GAME, payload: payload(12, 0x09), reliable: true, uid: 2 });
    };
    pair.sim.at(ms(10), () => pair.client.send({ type: TYPE_GAME, payload: payload(20), reliable: true, uid: 1 }));
    pair.sim.runUntil(ms(1_000));
    // Sent at 47 ms, on the socket at 52 ms, read and dispatched in the server's update at 95 ms.
    const first = pair.sent.find((r) => r.from === 'server');
    expect(first?.timeUs).toBe(ms(190));
    expect(first?.messages.map((m) => [m.type, m.seq])).toEqual([
      [TYPE_ACK, 0],
      [TYPE_GAME, 0],
    ]);
  });

  it('a datagram is not read before the next update, even if it arrived just after the last one', () => {
    const pair = makePair({ preset: 'stock', params: QUIET });
    pair.sim.at(ms(10), () => pair.client.send({ type: TYPE_GAME, payload: payload(20), reliable: true, uid: 1 }));
    pair.sim.runUntil(ms(94));
    expect(pair.server.counters.packetsReceived).toBe(0); // on the socket since 52 ms
    pair.sim.runUntil(ms(95));
    expect(pair.server.counters.packetsReceived).toBe(1);
    expect(pair.delivered.server.length).toBe(1);
  });
});

describe('keepalive switches (docs/sources.md 12, 18)', () => {
  it('queued-reliable: the echo of the client keepalive opens the pass-2 gate and frees the stranded ACK', () => {
    const pair = strandOne({}, { peerTimeoutMs: 1e9 });
    pair.sim.runUntil(ms(6_000));
    // The client last sent at 47 ms; its keepalive leaves at 5.082 s, is read at 5.130 s, echoed at 5.225 s.
    expect(times(pair, 'client', (m) => m.type === TYPE_DATA)).toEqual([5_082]);
    expect(times(pair, 'server', (m) => m.type === TYPE_DATA)).toEqual([5_225]);
    // From then on the pass-1 sends of the keepalive's own ACK (5.225, 5.985 s) hold the gate open.
    expect(times(pair, 'server', highAck(0))).toEqual([190, 950, 1710, 5_225, 5_985]);
  });

  it('unreliable and outside the queues: keepalives never open the gate, the dead zone persists', () => {
    const pair = strandOne(
      { keepalive: { reliable: false, path: 'outside-queues', echoPath: 'outside-queues' } },
      { peerTimeoutMs: 1e9 },
    );
    pair.sim.runUntil(ms(60_000));
    expect(times(pair, 'server', highAck(0))).toEqual([190, 950, 1710]);
    expect(pair.server.ackOutbox.deadZone).toBe(1);
    const keepalives = pair.sent.filter((r) => r.messages.some((m) => m.type === TYPE_DATA));
    expect(keepalives.length).toBeGreaterThan(10);
    // Each carries only the keepalive: unreliable type 0x00, 20 bytes.
    for (const r of keepalives)
      expect(r.messages.map((m) => [m.type, m.type !== TYPE_ACK && m.reliable, m.size])).toEqual([
        [TYPE_DATA, false, 20],
      ]);
  });

  it('unreliable but queued: it is still a first send, so the echo opens the gate', () => {
    const pair = strandOne({ keepalive: { reliable: false } }, { peerTimeoutMs: 1e9 });
    pair.sim.runUntil(ms(6_000));
    // No ACK entry for an unreliable keepalive: only the echo's first send opens the gate.
    expect(times(pair, 'server', highAck(0))).toEqual([190, 950, 1710, 5_225]);
  });

  it('type 0x02 (the decompiled constructor): a 5-byte reliable message, not echoed', () => {
    const pair = strandOne({ keepalive: { message: 'type-0x02' } }, { peerTimeoutMs: 1e9 });
    pair.sim.runUntil(ms(6_000));
    const sent = pair.sent.filter((r) => r.messages.some((m) => m.type === TYPE_CONNECT));
    expect(sent.map((r) => [r.from, r.timeUs / 1000])).toEqual([['client', 5_082]]); // no echo
    const message = sent[0].messages.find((m) => m.type === TYPE_CONNECT);
    expect(message?.type === TYPE_CONNECT ? [message.size, message.reliable, message.ordered] : null).toEqual([
      5,
      true,
      true,
    ]);
  });

  it('senders client: the server never sends an idle keepalive', () => {
    const pair = strandOne({ keepalive: { message: 'type-0x02', senders: 'client' } }, { peerTimeoutMs: 1e9 });
    pair.sim.runUntil(ms(20_000));
    expect(times(pair, 'server', (m) => m.type === TYPE_CONNECT)).toEqual([]);
    expect(times(pair, 'client', (m) => m.type === TYPE_CONNECT).length).toBeGreaterThan(2);
  });

  it('serverEcho false: the client keepalive gets its ACK but no echo', () => {
    const pair = strandOne({ keepalive: { serverEcho: false } }, { peerTimeoutMs: 1e9 });
    pair.sim.runUntil(ms(6_000));
    expect(times(pair, 'server', (m) => m.type === TYPE_DATA)).toEqual([]);
    expect(times(pair, 'server', (m) => m.type === TYPE_ACK && (m.flags & 2) !== 0)).toEqual([5_225, 5_985]);
  });

  it('idleCounts first-sends: retransmits do not count as sending, so a keepalive still goes out', () => {
    const run = (idleCounts: 'any-datagram' | 'first-sends') => {
      const pair = makePair({
        preset: 'stock',
        switches: readings({ keepalive: { idleCounts } }),
        params: { peerTimeoutMs: 1e9 },
      });
      pair.dropFrom.client = (_i, bytes) => bytes.includes(TYPE_GAME); // never ACKed: re-sent every 2.09 s
      pair.sim.at(ms(10), () => pair.client.send({ type: TYPE_GAME, payload: payload(20), reliable: true, uid: 1 }));
      pair.sim.runUntil(ms(12_000));
      return times(pair, 'client', (m) => m.type === TYPE_DATA);
    };
    expect(run('any-datagram')).toEqual([]);
    expect(run('first-sends')).toEqual([5_082, 10_117]);
  });
});

describe('gateOpeners and gateScope (ack-outbox-deadlock.md §2)', () => {
  it('without pass-one in gateOpeners, a fresh ACK no longer carries stranded ones', () => {
    const run = (gateOpeners: SwitchPatch['gateOpeners']) => {
      const pair = strandOne({ gateOpeners });
      // A second reliable message at 3 s: its ACK (pass 1) is the server's only send.
      pair.sim.at(ms(3_000), () => pair.client.send({ type: TYPE_GAME, payload: payload(20), reliable: true, uid: 2 }));
      pair.sim.runUntil(ms(4_000));
      return times(pair, 'server', highAck(0));
    };
    // Sent at 3.087 s, read at 3.135 s, its ACK leaves at 3.230 s and again at 3.990 s.
    expect(run(['pass-one', 'retransmits', 'first-sends'])).toEqual([190, 950, 1710, 3_230, 3_990]);
    expect(run(['retransmits', 'first-sends'])).toEqual([190, 950, 1710]);
  });

  it('gateScope update: a second datagram of the same update may run pass 2 after the first filled up', () => {
    const run = (gateScope: 'datagram' | 'update') => {
      const pair = strandOne({ gateScope }, { ...QUIET, datagramsPerUpdate: 2 });
      // At 3 s the server queues two 254-byte messages: 2 + 508 bytes leave no room for the 4-byte stale ACK.
      pair.sim.at(ms(3_000), () => {
        for (const uid of [2, 3]) pair.server.send({ type: TYPE_GAME, payload: payload(251), reliable: false, uid });
      });
      pair.sim.runUntil(ms(4_000));
      return pair.sent
        .filter((r) => r.from === 'server' && r.timeUs === ms(3_040))
        .map((r) => r.messages.map((m) => m.type));
    };
    expect(run('datagram')).toEqual([[TYPE_GAME, TYPE_GAME]]);
    expect(run('update')).toEqual([[TYPE_GAME, TYPE_GAME], [TYPE_ACK]]);
  });
});

describe('messageLifetime (fragmented-reliable-ack-bug-analysis.md; docs/sources.md 20)', () => {
  it('peer-timeout drops an unACKed message once its age passes the peer timeout; session keeps it', () => {
    const run = (messageLifetime: 'session' | 'peer-timeout') => {
      // Keepalives every 2 s keep the connection alive; every game datagram from the client is lost.
      const pair = makePair({
        preset: 'stock',
        switches: readings({ messageLifetime }),
        params: { keepaliveIdleMs: 2_000, peerTimeoutMs: 10_000 },
      });
      pair.dropFrom.client = (_i, bytes) => bytes.includes(TYPE_GAME);
      pair.sim.at(ms(10), () => pair.client.send({ type: TYPE_GAME, payload: payload(20), reliable: true, uid: 1 }));
      const gaveUpAt: number[] = [];
      pair.sim.at(ms(10_116), () => gaveUpAt.push(pair.client.counters.gaveUp));
      pair.sim.at(ms(10_118), () => gaveUpAt.push(pair.client.counters.gaveUp));
      pair.sim.runUntil(ms(30_000));
      return { gaveUpAt, resends: times(pair, 'client', (m) => m.type === TYPE_GAME).length, state: pair.client.state };
    };
    // First sent at 47 ms; past 10 s of age at the client update of 10.117 s.
    expect(run('peer-timeout')).toEqual({ gaveUpAt: [0, 1], resends: 5, state: 'open' });
    expect(run('session')).toEqual({ gaveUpAt: [0, 0], resends: 15, state: 'open' });
  });
});

describe('duplicateAckTimer (docs/sources.md 10)', () => {
  it('a duplicate makes the existing entry due now, or restarts its 667 ms timer', () => {
    const run = (duplicateAckTimer: 'due-now' | 'restart') => {
      const pair = makePair({
        preset: 'stock',
        switches: { duplicateAckTimer, retransmit: { baseMs: 300 } },
        params: QUIET,
      });
      pair.dropFrom.server = (i) => i === 0; // the first ACK is lost: the client re-sends at 427 ms
      pair.sim.at(ms(10), () => pair.client.send({ type: TYPE_GAME, payload: payload(20), reliable: true, uid: 1 }));
      pair.sim.runUntil(ms(1_500));
      return times(pair, 'server', highAck(0));
    };
    // The duplicate is read at 475 ms: due-now ACKs it in the next update.
    expect(run('due-now')).toEqual([190, 570, 1_330]);
    // restart pushes the timer to 475 + 667 ms, but the next duplicate (read at 855 ms) pushes it
    // again: a sender re-sending faster than the ACK timer never gets its ACK.
    expect(run('restart')).toEqual([190]);
  });
});

describe('wrapReceive: a seq whose receive slot is held by a different message', () => {
  const datagram = (seq: number, fill: number): Uint8Array => {
    const message: DataMessage = {
      type: TYPE_GAME,
      reliable: true,
      ordered: false,
      fragment: false,
      seq,
      fragIndex: null,
      fragCount: null,
      payload: payload(10, fill),
    };
    const encoded = encodeDatagram({ peerId: 0x02, messages: [message] });
    if (!encoded.ok) throw new Error(encoded.error.reason);
    return encoded.bytes;
  };
  const run = (wrapReceive: 'first-wins' | 'last-wins' | 'reject') => {
    const pair = makePair({ preset: 'stock', switches: { wrapReceive }, params: QUIET });
    pair.sim.at(ms(20), () => pair.server.arrive(datagram(5, 0xaa), [1]));
    pair.sim.at(ms(30), () => pair.server.arrive(datagram(5, 0xbb), [2]));
    pair.sim.at(ms(200), () => {
      for (let seq = 0; seq < 5; seq++) pair.server.arrive(datagram(seq, 0x11), [10 + seq]);
    });
    pair.sim.runUntil(ms(1_000));
    const fifth = pair.delivered.server.find((d) => d.seq === 5);
    return {
      opcode: fifth?.payload[0],
      conflicts: pair.server.counters.wrapConflicts,
      refreshed: pair.server.counters.ackEntriesRefreshed,
    };
  };

  it('first-wins keeps the held message; the newcomer is ACKed and dropped', () => {
    expect(run('first-wins')).toEqual({ opcode: 0xaa, conflicts: 1, refreshed: 1 });
  });
  it('last-wins replaces it', () => {
    expect(run('last-wins')).toEqual({ opcode: 0xbb, conflicts: 1, refreshed: 1 });
  });
  it('reject drops the newcomer without ACKing it', () => {
    expect(run('reject')).toEqual({ opcode: 0xaa, conflicts: 1, refreshed: 0 });
  });

  it('a whole message where fragments are being reassembled is a conflict too', () => {
    const fragment: DataMessage = {
      type: TYPE_GAME,
      reliable: true,
      ordered: false,
      fragment: true,
      seq: 5,
      fragIndex: 0,
      fragCount: 2,
      payload: payload(10, 0xcc),
    };
    const encoded = encodeDatagram({ peerId: 0x02, messages: [fragment] });
    if (!encoded.ok) throw new Error(encoded.error.reason);
    // first-wins keeps the fragment (uid 1); last-wins holds the whole message (uid 2) instead.
    for (const [wrapReceive, heldUid] of [
      ['first-wins', 1],
      ['last-wins', 2],
    ] as const) {
      const pair = makePair({ preset: 'stock', switches: { wrapReceive }, params: QUIET });
      pair.sim.at(ms(20), () => pair.server.arrive(encoded.bytes, [1]));
      pair.sim.at(ms(30), () => pair.server.arrive(datagram(5, 0xbb), [2]));
      pair.sim.runUntil(ms(200));
      expect([wrapReceive, pair.server.counters.wrapConflicts, pair.server.heldUids()]).toEqual([
        wrapReceive,
        1,
        [heldUid],
      ]);
    }
  });
});

describe('disconnectedPeerLingerMs (docs/sources.md 21)', () => {
  it('0 closes the remote side right after the update that ACKed the Disconnect', () => {
    const pair = makePair({ preset: 'stock', params: { ...QUIET, disconnectedPeerLingerMs: 0 } });
    pair.sim.at(ms(1_000), () => pair.server.disconnect());
    pair.sim.runUntil(ms(5_000));
    // Server Disconnect at 1.045 s, read by the client at 1.092 s, ACKed at 1.187 s, then closed.
    expect(times(pair, 'client', (m) => m.type === TYPE_ACK)).toEqual([1_187]);
    expect([pair.server.state, pair.client.state]).toEqual(['closed', 'closed']);
  });
});
