// A receive buffer holds at most MAX_HELD_PIECES messages and fragments,
// and never pins the sender's datagram storage (payloads are copied when held).
import { describe, expect, it } from 'vitest';
import { TYPE_GAME } from '../../src/core/codec/index.js';
import type { DataMessage } from '../../src/core/codec/index.js';
import { LimitError } from '../../src/core/engine/index.js';
import { MAX_HELD_PIECES, ReceiveChannel } from '../../src/model/transport/receive-channel.js';

const message = (seq: number, payload: Uint8Array): DataMessage => ({
  type: TYPE_GAME,
  reliable: true,
  ordered: false,
  fragment: false,
  seq,
  fragIndex: null,
  fragCount: null,
  payload,
});

describe('receive buffer bound', () => {
  it('holds a copy of an out-of-order payload, not a view of the datagram', () => {
    const datagram = new Uint8Array(65536);
    const delivered: Uint8Array[] = [];
    const channel = new ReceiveChannel(false, (d) => delivered.push(d.payload));
    channel.accept(message(1, datagram.subarray(0, 10)), 1); // waits for seq 0
    channel.accept(message(0, new Uint8Array(10)), 2);
    expect(delivered[1].buffer.byteLength).toBe(10); // its own small buffer, not the 64 KiB one
  });

  it('ends the run with a limit error past MAX_HELD_PIECES, never silently', () => {
    const channel = new ReceiveChannel(false, () => {});
    const payload = new Uint8Array(4);
    // seq 0 never comes: every later one waits. The u16 half-window allows 32,767 of them,
    // so the limit is reached through fragments of messages that never complete.
    let held = 0;
    let error: unknown = null;
    try {
      for (let seq = 1; seq < 0x8000 && error === null; seq++) {
        for (let index = 1; index < 8; index++) {
          channel.accept({ ...message(seq, payload), fragment: true, fragIndex: index }, seq);
          held++;
        }
      }
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(LimitError);
    expect(held).toBe(MAX_HELD_PIECES);
  });
});
