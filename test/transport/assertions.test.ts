// Assertions inside the transport. Each structure is called
// wrongly on purpose (fault injection) and must throw `<module>: <what>` rather
// than go on silently corrupted; and each explicit limit that is hit is counted.
import { describe, expect, it } from 'vitest';
import { MAX_UNFRAGMENTED_PAYLOAD_BYTES, TYPE_DATA, TYPE_GAME, packKeyOf } from '../../src/core/codec/index.js';
import type { DataMessage } from '../../src/core/codec/index.js';
import { LimitError, Simulator, ZERO_US } from '../../src/core/engine/index.js';
import { AckOutbox } from '../../src/model/transport/ack-outbox.js';
import { COUNTER_SCHEMA } from '../../src/model/transport/counter-schema.js';
import { newPeerCounters } from '../../src/model/transport/counters.js';
import { EntryList } from '../../src/core/containers/entry-list.js';
import { Fifo } from '../../src/core/containers/fifo.js';
import { KeyedHeap, heapNode } from '../../src/core/containers/keyed-heap.js';
import type { IntMap } from '../../src/core/containers/int-map.js';
import { ConnectionLifecycle } from '../../src/model/transport/lifecycle.js';
import { newOutgoing } from '../../src/model/transport/outgoing.js';
import { PositionIndex } from '../../src/core/containers/position-index.js';
import { MAX_HELD_PIECES, ReceiveChannel } from '../../src/model/transport/receive-channel.js';
import { RetransmitQueue } from '../../src/model/transport/retransmit-queue.js';
import { ServerHost } from '../../src/model/transport/server-host.js';
import { Slab } from '../../src/model/transport/slab.js';
import { DEFAULT_PARAMS, resolveSwitches } from '../../src/model/transport/switches.js';
import { makePair, payload } from '../support/wire.js';

interface Node {
  order: number;
  prev: Node | null;
  next: Node | null;
}

const nodes = (n: number): Node[] => Array.from({ length: n }, (_, order) => ({ order, prev: null, next: null }));
const game = (seq: number | null, fragIndex: number | null = null): DataMessage => ({
  type: TYPE_GAME,
  reliable: seq !== null,
  ordered: false,
  fragment: fragIndex !== null,
  seq,
  fragIndex,
  fragCount: null,
  payload: new Uint8Array(4),
});
/** A private field, for fault injection only. */
const internal = <T>(object: object, field: string): T => (object as Record<string, T>)[field];

describe('queue removals assert presence', () => {
  it('fifo: shift on an empty queue', () => {
    const fifo = new Fifo<number>();
    expect(() => fifo.shift()).toThrow('fifo: shift on an empty queue');
    fifo.push(1);
    expect(fifo.shift()).toBe(1);
    expect(() => fifo.shift()).toThrow('fifo: shift on an empty queue');
  });

  it('entry-list: removing a non-member, or a member twice', () => {
    const all = nodes(4);
    const list = new EntryList<Node>(16, (order) => all[order]);
    list.append(all[0]);
    list.append(all[2]);
    expect(() => list.remove(all[1])).toThrow('entry-list: remove of order 1, which is not a member');
    list.remove(all[2]);
    expect(() => list.remove(all[2])).toThrow('entry-list: remove of order 2, which is not a member');
    list.remove(all[0]);
    expect(() => list.remove(all[0])).toThrow('entry-list: remove of order 0, which is not a member');
    expect(list.length).toBe(0);
  });

  it('entry-list: adding an entry twice, or appending one older than the tail', () => {
    const all = nodes(4);
    const list = new EntryList<Node>(16, (order) => all[order]);
    list.append(all[2]);
    expect(() => list.append(all[2])).toThrow('entry-list: order 2 is already linked');
    expect(() => list.insertOrdered(all[2])).toThrow('entry-list: order 2 is already linked');
    expect(() => list.append(all[1])).toThrow('entry-list: append of order 1 after 2');
    list.insertOrdered(all[1]); // the right way to add an older entry
    expect([list.head?.order, list.tail?.order]).toEqual([1, 2]);
  });

  it('keyed-heap: removing a node that is in no heap, or pushing a NaN key', () => {
    const heap = new KeyedHeap<string>();
    const a = heapNode('a');
    expect(() => heap.remove(a)).toThrow('keyed-heap: node is not in this heap');
    heap.push(a, 5, 0);
    heap.remove(a);
    expect(() => heap.remove(a)).toThrow('keyed-heap: node is not in this heap');
    expect(() => heap.push(a, Number.NaN, 0)).toThrow('keyed-heap: NaN key');
    expect(heap.size).toBe(0);
  });

  it('retransmit: a match key naming an entry that is not queued', () => {
    const queue = new RetransmitQueue(resolveSwitches('fixed'), DEFAULT_PARAMS, newPeerCounters(), {
      gaveUp: () => {},
    });
    queue.add(newOutgoing(TYPE_GAME, true, false, 7, new Uint8Array(4), 1), ZERO_US);
    queue.add(newOutgoing(TYPE_GAME, true, false, 8, new Uint8Array(4), 2), ZERO_US);
    const queued = internal<{ next: unknown }>(queue, 'head');
    (queue as unknown as Record<string, unknown>).head = queued.next; // corrupt: entry 0 left the queue, the key index still names it
    expect(() => queue.onAck(false, 7, false, 0)).toThrow('retransmit: entry 0 is not queued');
  });

  it('retransmit: an unreliable message cannot be queued', () => {
    const queue = new RetransmitQueue(resolveSwitches('fixed'), DEFAULT_PARAMS, newPeerCounters(), {
      gaveUp: () => {},
    });
    expect(() => queue.add(newOutgoing(TYPE_GAME, false, false, null, new Uint8Array(4), 1), ZERO_US)).toThrow(
      'retransmit: an unreliable message cannot wait for an ACK',
    );
  });

  it('ack-outbox: freeing an entry missing from its key index', () => {
    const outbox = new AckOutbox(resolveSwitches('stock'), DEFAULT_PARAMS, newPeerCounters());
    outbox.onReliableReceived(3, false, false, 0, ZERO_US);
    expect(internal<IntMap<unknown>>(outbox, 'byKey').delete(packKeyOf(false, 3, false, 0))).toBe(true); // corrupt: the index forgets seq 3
    expect(() => outbox.clear()).toThrow('ack-outbox: free of seq 3, which is not in the key index');
  });

  it('receive-channel: evicting a seq that holds nothing, accepting an unreliable message', () => {
    const channel = new ReceiveChannel(false, () => {});
    expect(() => channel.evict(game(4))).toThrow('receive-channel: evict of seq 4, which holds nothing');
    expect(() => channel.accept(game(null), 1)).toThrow('receive-channel: accept of an unreliable message');
    channel.accept(game(4), 1); // held: seq 0 has not come
    channel.evict(game(4));
    expect(channel.bufferedMessages).toBe(0);
  });
});

describe('index structures assert bounds', () => {
  it('position-index: an id outside the capacity would be lost silently', () => {
    const index = new PositionIndex(8);
    expect(() => index.add(8, 1)).toThrow('position-index: id 8 outside 0..7');
    expect(() => index.add(-1, 1)).toThrow('position-index: id -1 outside 0..7');
    expect(() => index.rebuild(4, [1, 4])).toThrow('position-index: id 4 outside 0..3');
    expect(() => new PositionIndex(0)).toThrow('position-index: capacity 0 is not a positive integer');
  });

  it('position-index: kth past the live ids, or of k < 1', () => {
    const index = new PositionIndex(8);
    index.add(2, 1);
    index.add(5, 1);
    expect(index.kth(2)).toBe(5);
    expect(() => index.kth(3)).toThrow('position-index: kth(3) past the live ids');
    expect(() => index.kth(0)).toThrow('position-index: kth(0) needs k >= 1');
  });

  it('entry-list: an order past the capacity', () => {
    const all = nodes(20);
    const list = new EntryList<Node>(16, (order) => all[order]);
    expect(() => list.append(all[16])).toThrow('position-index: id 16 outside 0..15');
  });

  it('slab: a reservation smaller than a datagram header', () => {
    expect(() => new Slab().reserve(1)).toThrow('slab: 1 bytes are less than a datagram header');
    expect(() => new Slab().reserve(513)).toThrow('slab: 513 bytes exceed a datagram');
  });

  it('lifecycle: ending a connection twice; server-host: a timeout of a connection without a slot', () => {
    const lifecycle = new ConnectionLifecycle(resolveSwitches('stock'), DEFAULT_PARAMS, () => {});
    lifecycle.ended('closed');
    expect(() => lifecycle.ended('timed-out')).toThrow(
      'lifecycle: timed-out after the connection already ended (closed)',
    );
    expect(() => lifecycle.startDrain(0 as never)).toThrow('lifecycle: drain started in state closed');
    const host = new ServerHost(new Simulator(), 95, []);
    expect(() => host.connectionChanged(0, 'timed-out')).toThrow('server-host: connection 0 ended without a slot');
  });
});

describe('every limit that is hit is counted', () => {
  it('the limit counters are schema rows outside the summary', () => {
    const names = [
      'firstSendQueueFull',
      'retransmitQueueFull',
      'unsendableRefused',
      'keepaliveSlotBusy',
      'receiveBufferLimitHits',
    ];
    for (const name of names)
      expect(COUNTER_SCHEMA.find((row) => row.name === name)).toMatchObject({ kind: 'count', summary: false });
  });

  it('the first-send queue limit', () => {
    const pair = makePair({ params: { firstSendQueueLimit: 2 } });
    const send = (uid: number) => pair.client.send({ type: TYPE_GAME, payload: payload(20), reliable: true, uid });
    expect([send(1), send(2), send(3)]).toEqual([true, true, false]);
    expect(pair.client.counters.firstSendQueueFull).toBe(1);
    expect(pair.client.counters.sendRejected).toBe(1);
  });

  it('the retransmit queue limit', () => {
    const counters = newPeerCounters();
    const queue = new RetransmitQueue(
      resolveSwitches('fixed'),
      { ...DEFAULT_PARAMS, retransmitQueueLimit: 1 },
      counters,
      { gaveUp: () => {} },
    );
    expect(queue.add(newOutgoing(TYPE_GAME, true, false, 0, new Uint8Array(4), 1), ZERO_US)).toBe(true);
    expect(queue.add(newOutgoing(TYPE_GAME, true, false, 1, new Uint8Array(4), 2), ZERO_US)).toBe(false);
    expect([counters.retransmitQueueFull, counters.sendRejected]).toEqual([1, 1]);
  });

  it('the wire limits: a message too large for a datagram, or more than 255 fragments', () => {
    const pair = makePair({});
    const c = pair.client.counters;
    expect(
      pair.client.send({ type: TYPE_DATA, payload: payload(MAX_UNFRAGMENTED_PAYLOAD_BYTES), reliable: true, uid: 1 }),
    ).toBe(true);
    expect(
      pair.client.send({
        type: TYPE_DATA,
        payload: payload(MAX_UNFRAGMENTED_PAYLOAD_BYTES + 1),
        reliable: true,
        uid: 2,
      }),
    ).toBe(false);
    expect(
      pair.client.send({
        type: TYPE_GAME,
        payload: payload(256 * DEFAULT_PARAMS.fragmentChunkBytes),
        reliable: true,
        uid: 3,
      }),
    ).toBe(false);
    expect([c.unsendableRefused, c.sendRejected]).toEqual([2, 2]);
  });

  it('the receive buffer limit: counted, then the run ends with a limit error', () => {
    let hits = 0;
    const channel = new ReceiveChannel(
      false,
      () => {},
      () => hits++,
    );
    let error: unknown = null;
    try {
      for (let seq = 1; seq < 0x8000 && error === null; seq++) {
        for (let index = 1; index < 8; index++) channel.accept(game(seq, index), seq);
      }
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(LimitError);
    expect(hits).toBe(1);
    expect(MAX_HELD_PIECES).toBe(1 << 17);
  });
});
