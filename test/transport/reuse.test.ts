// The send path reuses its objects (unreliable messages, the datagram
// builder's lists, payload views) without changing what goes on the wire.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TYPE_GAME, messageSize, writeDatagram } from '../../src/core/codec/index.js';
import { DatagramBuilder, SendNote } from '../../src/model/transport/datagram-builder.js';
import { Fifo } from '../../src/core/containers/fifo.js';
import { INBOX_LIMIT, Inbox } from '../../src/model/transport/inbox.js';
import { MAX_SPARE_OUTGOING, OutgoingPool, newOutgoing } from '../../src/model/transport/outgoing.js';
import { filledPayload, templatePayload } from '../../src/model/traffic/payloads.js';

describe('OutgoingPool', () => {
  it('hands a sent unreliable message out again, with the new fields and a fresh shape', () => {
    const pool = new OutgoingPool();
    const first = pool.unreliable(TYPE_GAME, false, Uint8Array.of(1, 2, 3), 7);
    expect(pool.reused).toBe(0);
    pool.give(first);
    const again = pool.unreliable(0x00 as never, true, Uint8Array.of(9), -1);
    expect(again).toBe(first);
    expect(pool.reused).toBe(1);
    expect(again).toEqual(newOutgoing(0x00 as never, false, true, null, Uint8Array.of(9), -1));
  });

  it('refuses reliable and fragment messages, which the retransmit queue may still hold', () => {
    const pool = new OutgoingPool();
    expect(() => pool.give(newOutgoing(TYPE_GAME, true, false, 5, Uint8Array.of(1), 1))).toThrow(/only unreliable/);
    expect(() => pool.give(newOutgoing(TYPE_GAME, false, false, null, Uint8Array.of(1), 1, 0, 2))).toThrow(
      /only unreliable/,
    );
  });

  it(`keeps at most ${MAX_SPARE_OUTGOING} spares`, () => {
    const pool = new OutgoingPool();
    for (let i = 0; i < MAX_SPARE_OUTGOING + 10; i++)
      pool.give(newOutgoing(TYPE_GAME, false, false, null, Uint8Array.of(1), -1));
    expect(pool.size).toBe(MAX_SPARE_OUTGOING);
  });
});

describe('DatagramBuilder reuse', () => {
  it('after a reset, its first count items are the new datagram, and writeDatagram writes only those', () => {
    const out = new DatagramBuilder();
    const message = (n: number) => newOutgoing(TYPE_GAME, false, false, null, new Uint8Array(n), n);
    for (let n = 1; n <= 5; n++) out.tryAdd(message(n), messageSize(message(n)), n, SendNote.FirstSend);
    expect(out.uids).toEqual([1, 2, 3, 4, 5]);
    out.reset();
    expect(out.count).toBe(0);
    out.tryAdd(message(9), messageSize(message(9)), 9, SendNote.Retransmit);
    expect(out.count).toBe(1);
    expect(out.uids.slice(0, out.count)).toEqual([9]);
    expect(out.notes.slice(0, out.count)).toEqual([SendNote.Retransmit]);
    const buf = new Uint8Array(64);
    const end = writeDatagram(buf, 0, 1, out.messages, out.bytes, out.count);
    expect(end).toBe(out.bytes);
    expect(buf[1]).toBe(1); // msg_count: one message, not the five the lists still hold
    expect(() => writeDatagram(buf, 0, 1, out.messages, out.bytes, 6)).toThrow(/6 messages asked of a list of 5/);
  });
});

describe('templatePayload views', () => {
  it('returns one shared view per (opcode, template, length), with the bytes of filledPayload', () => {
    const a = templatePayload(0x1c, 100, 3);
    expect(templatePayload(0x1c, 100, 3 + 16)).toBe(a); // same template (salt mod 16), same length
    expect(templatePayload(0x1c, 100, 4)).not.toBe(a);
    expect(templatePayload(0x1c, 99, 3)).not.toBe(a);
    expect(Array.from(a)).toEqual(Array.from(filledPayload(0x1c, 4096, 0x1c * 1000 + 3).subarray(0, 100)));
    expect(templatePayload(0x1c, 99, 3)).toHaveLength(99);
  });
});

describe('Inbox reuse', () => {
  it('drains in arrival order, then holds only what came after', () => {
    const inbox = new Inbox();
    const seen: number[] = [];
    const each = (bytes: Uint8Array, uids: readonly number[]) => seen.push(bytes[0], uids[0]);
    for (let i = 1; i <= 3; i++) inbox.push(Uint8Array.of(i), [i * 10]);
    inbox.drain(each);
    expect(seen).toEqual([1, 10, 2, 20, 3, 30]);
    expect(inbox.length).toBe(0);
    inbox.push(Uint8Array.of(4), [40]);
    seen.length = 0;
    inbox.drain(each);
    expect(seen).toEqual([4, 40]);
  });

  it(`keeps its bound of ${INBOX_LIMIT} datagrams, and refuses an arrival during a read`, () => {
    const inbox = new Inbox();
    for (let i = 0; i < INBOX_LIMIT; i++) expect(inbox.push(Uint8Array.of(0), [])).toBe(true);
    expect(inbox.push(Uint8Array.of(0), [])).toBe(false);
    inbox.clear();
    inbox.push(Uint8Array.of(1), []);
    expect(() => inbox.drain(() => inbox.push(Uint8Array.of(2), []))).toThrow(
      /1 datagrams arrived while the inbox was read/,
    );
  });
});

describe('Fifo ring', () => {
  it('behaves as a list under any mix of push, shift, deferral marks and clear', () => {
    type Op = 'push' | 'shift' | 'mark' | 'clear';
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom<Op>('push', 'push', 'push', 'shift', 'mark', 'clear'), {
          minLength: 20,
          maxLength: 300,
          size: 'max',
        }),
        (ops) => {
          const fifo = new Fifo<number>();
          let model: number[] = [];
          let shifted = 0;
          let deferredUpTo = 0;
          ops.forEach((op, i) => {
            if (op === 'push') {
              fifo.push(i);
              model.push(i);
            } else if (op === 'shift' && model.length > 0) {
              expect(fifo.shift()).toBe(model.shift());
              shifted++;
            } else if (op === 'mark') {
              const end = shifted + model.length;
              const newly = Math.max(0, end - Math.max(shifted, deferredUpTo));
              if (newly > 0) deferredUpTo = end;
              expect(fifo.markRemainingDeferred()).toBe(newly);
            } else if (op === 'clear') {
              expect(fifo.clear()).toEqual(model);
              shifted += model.length;
              model = [];
            }
            expect(fifo.length).toBe(model.length);
            expect(fifo.peek()).toBe(model[0]);
          });
          expect([...fifo.values()]).toEqual(model);
        },
      ),
      { numRuns: 300 },
    );
  });
});
