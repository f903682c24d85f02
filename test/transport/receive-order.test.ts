// A receive channel hands reliable messages on in seq order, each once, whatever
// order they arrive in; the planted delivers-on-arrival hands them on as they come,
// still once each, with nothing left held and the byte count back to zero.
import { describe, expect, it } from 'vitest';
import { NO_PLANTED_FAULTS, plantedFaults } from '../../src/model/transport/planted-bugs.js';
import type { PlantedFaults } from '../../src/model/transport/planted-bugs.js';
import { ReceiveChannel } from '../../src/model/transport/receive-channel.js';
import { dataMsg } from '../codec/helpers.js';

const message = (seq: number) => dataMsg({ reliable: true, ordered: true, seq, payload: Uint8Array.of(seq) });

/** The seqs handed on when seqs arrive in `arrival` order, each arriving twice; and what is left held. */
function run(planted: PlantedFaults, arrival: readonly number[]) {
  const delivered: number[] = [];
  const channel = new ReceiveChannel(
    false,
    (d) => delivered.push(d.payload[0]),
    () => {},
    planted,
  );
  const outcomes = [...arrival, ...arrival].map((seq) => channel.accept(message(seq), seq + 100));
  return {
    delivered,
    outcomes,
    held: channel.bufferedMessages,
    bytes: channel.modelledBytes,
    uids: channel.heldUids(),
  };
}

describe('receive order', () => {
  it('hands messages on in seq order, each once', () => {
    const r = run(NO_PLANTED_FAULTS, [2, 1, 0, 3]);
    expect(r.delivered).toEqual([0, 1, 2, 3]);
    expect(r.outcomes).toEqual([...Array(4).fill('accepted'), ...Array(4).fill('duplicate')]);
    expect([r.held, r.bytes]).toEqual([0, 0]);
  });

  it('planted delivers-on-arrival: as they come, still once each, nothing left held', () => {
    const planted = plantedFaults({ plantedBug: 'delivers-on-arrival' });
    expect(planted.deliverOnArrival).toBe(true);
    const r = run(planted, [2, 1, 0, 3]);
    expect(r.delivered).toEqual([2, 1, 0, 3]);
    expect(r.outcomes).toEqual([...Array(4).fill('accepted'), ...Array(4).fill('duplicate')]);
    expect([r.held, r.bytes]).toEqual([0, 0]);
    // While seq 0 is missing, the places held for 2 and 1 name no message as still waiting.
    const waiting = run(planted, [2, 1]);
    expect([waiting.delivered, waiting.held, waiting.uids]).toEqual([[2, 1], 2, []]);
  });
});
