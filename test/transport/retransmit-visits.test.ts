// An update visits only due retransmit entries: walking the whole queue on every
// update with anything due cost 81 % of the CPU in overload.
import { describe, expect, it } from 'vitest';
import { TYPE_GAME } from '../../src/core/codec/index.js';
import { micros } from '../../src/core/engine/index.js';
import { newPeerCounters } from '../../src/model/transport/counters.js';
import { DatagramBuilder } from '../../src/model/transport/datagram-builder.js';
import { newOutgoing } from '../../src/model/transport/outgoing.js';
import { RetransmitQueue } from '../../src/model/transport/retransmit-queue.js';
import { DEFAULT_PARAMS, resolveSwitches } from '../../src/model/transport/switches.js';

const N = 50_000;

function filledQueue() {
  const queue = new RetransmitQueue(resolveSwitches('stock'), DEFAULT_PARAMS, newPeerCounters(), { gaveUp: () => {} });
  const payload = new Uint8Array(20);
  // Entry i is first sent at i µs, so it is due at 2 s + i + 1 µs.
  for (let i = 0; i < N; i++) queue.add(newOutgoing(TYPE_GAME, true, false, i & 0xffff, payload, i), micros(i));
  return queue;
}

describe('retransmit queue visits', () => {
  it('costs nothing while no entry is due, however long the queue', () => {
    const queue = filledQueue();
    for (let t = 0; t < 10; t++) queue.sendDue(micros(1_000_000 + t * 95_000), new DatagramBuilder()); // up to 1.855 s
    expect(queue.visits).toBe(0);
  });

  it('visits the due entries that fit, plus the one that did not, in queue order', () => {
    const queue = filledQueue();
    const out = new DatagramBuilder();
    queue.sendDue(micros(2_000_000 + N + 1), out); // everything is due
    const fitting = out.count; // 25-byte messages: 20 fit in 510 bytes
    expect(fitting).toBe(20);
    expect(queue.visits).toBe(fitting + 1);
    expect(out.uids).toEqual(Array.from({ length: fitting }, (_, i) => i));
    // The next update resumes where this one stopped.
    const next = new DatagramBuilder();
    queue.sendDue(micros(2_095_000 + N + 1), next);
    expect(next.uids[0]).toBe(fitting);
    expect(queue.visits).toBe(2 * (fitting + 1));
  });
});
