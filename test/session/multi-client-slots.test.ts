// Slots, the ConnectAck, the header byte, a graceful Disconnect, and a late join.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ACK_FLAG_LOW_TYPE,
  PEER_ID_SERVER,
  PEER_ID_UNASSIGNED,
  TYPE_ACK,
  TYPE_CONNECT_ACK,
  TYPE_DISCONNECT,
  isAck,
  isLowType,
} from '../../src/core/codec/index.js';
import type { AckMessage, DataMessage, Located } from '../../src/core/codec/index.js';
import { type Recorded, countBy, dataMessages, isEvent, runRecorded } from './multi-client-run.js';

// ---------------------------------------------------------------------------
// Slots, the ConnectAck, the header byte, and a graceful Disconnect.

describe('slots and the Disconnect exchange (docs/sources.md 5, 19, 21, join sequence)', () => {
  let run: Recorded;
  beforeAll(() => {
    run = runRecorded(
      {
        name: 'slots',
        clients: 3,
        duration: '40s',
        traffic: {
          phases: ['join', { kind: 'lobby', duration: '5s' }, { kind: 'disconnect', client: 3 }, { kind: 'lobby' }],
        },
      },
      { preset: 'stock', wire: true },
    );
  });

  it('gives slots 2, 3, 4 in connect order, each in its ConnectAck', () => {
    const { session, wire } = run;
    const connectAt = [1, 2, 3].map((k) => wire.find((w) => w.from === 'client' && w.client === k)!.timeUs);
    // Staggered joins: 0, 2 s, 4 s.
    expect(connectAt).toEqual([...connectAt].sort((a, b) => a - b));
    expect(connectAt[1] - connectAt[0]).toBeGreaterThanOrEqual(2_000_000);
    expect([1, 2, 3].map((k) => session.server.slotOf(k - 1))).toEqual([2, 3, 4]);
    expect(session.server.acceptedConnections()).toEqual([0, 1, 2]);
    for (const k of [1, 2, 3]) {
      const slot = k + 1;
      // The first datagram is the Connect (type 0x03 as captured), header 0xFF.
      const first = wire.find((w) => w.from === 'client' && w.client === k)!;
      expect(first.bytes[0]).toBe(PEER_ID_UNASSIGNED);
      expect(dataMessages(first, TYPE_CONNECT_ACK)).toHaveLength(1);
      // The server's reply on this connection: header 0x01, a reliable type-0x03 with payload [slot].
      const acks = wire
        .filter((w) => w.from === 'server' && w.client === k)
        .flatMap((w) => dataMessages(w, TYPE_CONNECT_ACK));
      expect(acks.map((m) => [m.reliable, [...m.payload]])).toEqual([[true, [slot]]]);
      expect(
        wire.filter((w) => w.from === 'server' && w.client === k).every((w) => w.bytes[0] === PEER_ID_SERVER),
      ).toBe(true);
      const delivered = run.deliveries.filter(
        (d) => d.to === 'client' && d.client === k && d.type === TYPE_CONNECT_ACK,
      );
      expect(delivered.map((d) => [...d.payload])).toEqual([[slot]]);
      expect(session.connection(k).clientPeer.peerId).toBe(slot);
    }
    expect(run.summary.session.connected).toBe(3);
    expect(run.summary.session.strayDatagrams).toBe(0);
  });

  it("puts 0xFF in a client's header until its ConnectAck, then its slot", () => {
    for (const k of [1, 2, 3]) {
      const ackAt = run.deliveries.find(
        (d) => d.to === 'client' && d.client === k && d.type === TYPE_CONNECT_ACK,
      )!.atUs;
      const mine = run.wire.filter((w) => w.from === 'client' && w.client === k);
      const before = mine.filter((w) => w.timeUs <= ackAt);
      const after = mine.filter((w) => w.timeUs > ackAt);
      expect(before.length).toBeGreaterThan(0);
      expect(after.length).toBeGreaterThan(5);
      expect(new Set(before.map((w) => w.bytes[0]))).toEqual(new Set([PEER_ID_UNASSIGNED]));
      expect(new Set(after.map((w) => w.bytes[0]))).toEqual(new Set([k + 1]));
    }
  });

  it('a graceful leaver sends a Disconnect [slot][IPv4] on the low seqs; the server ACKs it with the low-type flag', () => {
    const { wire, session } = run;
    const leaveAt = session.traffic.phaseLog.find((p) => p.kind === 'disconnect')!.startUs;
    const fromThree = wire.filter((w) => w.from === 'client' && w.client === 3);
    const disconnects = fromThree.flatMap((w) => dataMessages(w, TYPE_DISCONNECT).map((m) => ({ w, m })));
    expect(disconnects.length).toBeGreaterThan(0);
    const seqs = new Set(disconnects.map(({ m }) => m.seq));
    expect(seqs.size).toBe(1); // re-sends (if any) repeat the one message
    const { w: first, m } = disconnects[0];
    expect(first.timeUs).toBeGreaterThanOrEqual(leaveAt);
    expect(first.bytes[0]).toBe(4); // its slot in the header
    expect([m.reliable, m.ordered, m.fragment]).toEqual([true, true, false]);
    expect(isLowType(m.type)).toBe(true);
    // Its own address: client k is 10.10.10.(238 + k), so client 3 is 10.10.10.241.
    expect([...m.payload]).toEqual([4, 0x0a, 0x0a, 0x0a, 241]);
    // Low category: the seq follows the client's earlier low-category reliable messages (Connect, ...).
    const earlierLow = fromThree
      .filter((w) => w.timeUs < first.timeUs)
      .flatMap((w) => w.messages.filter((x): x is Located<DataMessage> => !isAck(x) && x.reliable && isLowType(x.type)))
      .map((x) => x.seq as number);
    expect(earlierLow.length).toBeGreaterThan(0); // the Connect at least
    expect(m.seq).toBe(Math.max(...earlierLow) + 1);
    // The server ACKs that seq, low-type flag set, not a fragment ACK: 01 <seq LE> 02.
    const serverAcks = wire
      .filter((w) => w.from === 'server' && w.client === 3 && w.timeUs > first.timeUs)
      .flatMap((w) =>
        w.messages
          .filter((x): x is Located<AckMessage> => isAck(x) && x.seq === m.seq && (x.flags & ACK_FLAG_LOW_TYPE) !== 0)
          .map((x) => ({ w, x })),
      );
    expect(serverAcks.length).toBeGreaterThan(0);
    const { w: ackDatagram, x: ack } = serverAcks[0];
    expect(ack.fragIndex).toBeNull();
    expect([...ackDatagram.bytes.subarray(ack.offset, ack.offset + ack.size)]).toEqual([
      TYPE_ACK,
      m.seq! & 0xff,
      m.seq! >> 8,
      ACK_FLAG_LOW_TYPE,
    ]);
    expect(ackDatagram.bytes[0]).toBe(PEER_ID_SERVER);
    // Both ends of client 3 closed; the other clients stay open, and nobody was Booted.
    const s = run.summary;
    expect(s.peers.clients['4'].state).toBe('closed');
    expect(s.peers.server.connections['4'].state).toBe('closed');
    for (const other of ['2', '3']) {
      expect(s.peers.clients[other].state).toBe('open');
      expect(s.peers.server.connections[other].state).toBe('open');
    }
    expect(s.session.bootsSent).toBe(0);
    // The others keep talking after the leave (keepalives, at least).
    for (const k of [1, 2])
      expect(wire.some((w) => w.from === 'client' && w.client === k && w.timeUs > leaveAt + 10_000_000)).toBe(true);
    expect(wire.some((w) => w.from === 'client' && w.client === 1 && dataMessages(w, TYPE_DISCONNECT).length > 0)).toBe(
      false,
    );
  });
});

// ---------------------------------------------------------------------------
// A late join.

describe('a late join', () => {
  it('joins after the phase starts, gets the next slot, and then receives relayed events', () => {
    const run = runRecorded(
      {
        name: 'late',
        clients: 3,
        duration: '90s',
        traffic: {
          phases: [
            'join',
            { kind: 'combat', duration: '20s', reliablePerSecond: 30, stateUpdatesPerSecond: 10 },
            { kind: 'join', client: 3 },
            { kind: 'combat', duration: '40s', reliablePerSecond: 30, stateUpdatesPerSecond: 10 },
            { kind: 'quiet' },
          ],
        },
      },
      { preset: 'fixed', wire: true },
    );
    const { session, wire, sends, deliveries } = run;
    const lateJoin = session.traffic.phaseLog.find((p) => p.kind === 'join' && p.index === 2)!;
    expect(lateJoin.startUs).toBeGreaterThan(20_000_000);
    const firstOfThree = wire.find((w) => w.from === 'client' && w.client === 3)!;
    expect(firstOfThree.timeUs).toBeGreaterThanOrEqual(lateJoin.startUs);
    expect(firstOfThree.bytes[0]).toBe(PEER_ID_UNASSIGNED);
    expect(dataMessages(firstOfThree, TYPE_CONNECT_ACK)).toHaveLength(1);
    // Clients 1 and 2 were already playing: the others had relayed to each other before.
    const relaysBefore = sends.filter((m) => m.relayOf !== null && m.atUs < lateJoin.startUs);
    expect(relaysBefore.length).toBeGreaterThan(50);
    expect(relaysBefore.some((m) => m.client === 3)).toBe(false);
    expect([1, 2, 3].map((k) => session.server.slotOf(k - 1))).toEqual([2, 3, 4]);
    expect(deliveries.find((d) => d.client === 3 && d.to === 'client' && d.type === TYPE_CONNECT_ACK)!.payload[0]).toBe(
      4,
    );
    // Once in game, client 3 receives the others' events, each exactly once.
    const toThree = sends.filter((m) => m.relayOf !== null && m.client === 3);
    expect(toThree.length).toBeGreaterThan(100);
    const clientOf = new Map(sends.filter((m) => m.from === 'client').map((m) => [m.uid, m.client]));
    expect(new Set(toThree.map((m) => clientOf.get(m.relayOf as number)))).toEqual(new Set([1, 2]));
    const got = countBy(
      deliveries.filter((d) => d.to === 'client' && d.client === 3),
      (d) => String(d.uid),
    );
    expect(toThree.filter((m) => got.get(String(m.uid)) !== 1).map((m) => m.uid)).toEqual([]);
    // And its own events reach the two others.
    const fromThree = sends.filter((m) => m.from === 'client' && m.client === 3 && isEvent(m));
    expect(fromThree.length).toBeGreaterThan(50);
    const relayedFromThree = sends.filter((m) => m.relayOf !== null && clientOf.get(m.relayOf) === 3);
    expect(relayedFromThree.length).toBe(2 * fromThree.length);
    expect(session.connection(3).clientPeer.state).toBe('open');
    const d = run.summary.delivery;
    expect([d.reliableLost, d.duplicateDeliveries, d.outOfOrderDeliveries, d.reliableInFlight]).toEqual([0, 0, 0, 0]);
  });
});
