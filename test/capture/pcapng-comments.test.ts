// The capture's packet comments: the trace's words for each message, its marks, ranges of
// ACKs, malformed datagrams and the messages a rule removed.
import { describe, expect, it } from 'vitest';
import { encodeDatagram } from '../../src/core/codec/index.js';
import type { Message } from '../../src/core/codec/index.js';
import { CommentWriter, TransmissionCounter, commentText } from '../../src/analysis/capture/comments.js';
import { SendNote } from '../../src/model/transport/datagram-builder.js';
import { hex } from './pcapng-reader.js';

describe('packet comments', () => {
  const datagram = (peerId: number, messages: Message[]) => {
    const r = encodeDatagram({ peerId, messages });
    if (!r.ok) throw new Error(r.error.reason);
    return r.bytes;
  };
  const ack = (seq: number, flags = 0, fragIndex: number | null = null): Message => ({
    type: 1,
    seq,
    flags,
    fragIndex,
  });
  const game = (seq: number | null, fragIndex: number | null = null, fragCount: number | null = null): Message => ({
    type: 0x32,
    reliable: seq !== null,
    ordered: false,
    fragment: fragIndex !== null,
    seq,
    fragIndex,
    fragCount,
    payload: new Uint8Array(4),
  });
  const comment = (
    bytes: Uint8Array,
    notes: SendNote[],
    counter = new TransmissionCounter(),
    from: 'server' | 'client' = 'client',
  ) => commentText((w) => w.datagram(bytes, notes, from, 1, counter));

  it('names each message in the trace words, with its marks, and counts re-sends as the trace does', () => {
    const counter = new TransmissionCounter();
    const fragments = datagram(2, [game(2, 0, 3), game(2, 1), game(2, 2)]);
    expect(comment(fragments, [0, 0, 0], counter)).toBe(
      'game reliable+fragment seq=2 frag=0/3 ; game reliable+fragment seq=2 frag=1 ; game reliable+fragment seq=2 frag=2',
    );
    expect(comment(fragments, [1, 1, 1], counter)).toBe(
      'game reliable+fragment seq=2 frag=0/3 [RETRANSMIT #1] ; game reliable+fragment seq=2 frag=1 [RETRANSMIT #1] ; game reliable+fragment seq=2 frag=2 [RETRANSMIT #1]',
    );
    expect(comment(fragments, [1, 1, 1], counter)).toContain('frag=2 [RETRANSMIT #2]');
    // The other peer, and another connection, count their own.
    expect(comment(fragments, [0, 0, 0], counter, 'server')).not.toContain('RETRANSMIT');
    expect(comment(fragments, [1, 1, 1], counter, 'server')).toContain('frag=0/3 [RETRANSMIT #1]');
    expect(commentText((w) => w.datagram(fragments, [1, 1, 1], 'client', 2, counter))).toContain(
      'frag=0/3 [RETRANSMIT #0]',
    );
    // A first send starts the count again (after a u16 wrap the seq is a new message).
    expect(comment(fragments, [0, 0, 0], counter)).not.toContain('RETRANSMIT');
    expect(comment(fragments, [1, 1, 1], counter)).toContain('frag=1 [RETRANSMIT #1]');
    expect(comment(datagram(2, [ack(5, 0x02), ack(2, 0x01, 1), ack(9, 0x80)]), [2, 3, 2])).toBe(
      'ack seq=5 (low-type) ; ack seq=2 frag=1 (fragment) [DEAD-ZONE ACK, pass 2] ; ack seq=9 flags=0x80',
    );
  });

  it("names the client's type-0x03 connect request as the trace does, and other control types by byte", () => {
    const connect: Message = {
      type: 3,
      reliable: true,
      ordered: true,
      fragment: false,
      seq: 0,
      fragIndex: null,
      fragCount: null,
      payload: Uint8Array.of(1),
    };
    const bytes = datagram(0xff, [connect]);
    expect(comment(bytes, [0], undefined, 'client')).toBe('connect (type 0x03 as captured) reliable+ordered seq=0');
    expect(comment(bytes, [0], undefined, 'server')).toBe('connectAck (0x03) reliable+ordered seq=0');
  });

  it('writes three or more consecutive ACKs alike as a range, and unreliable runs once with a count', () => {
    const acks = datagram(2, [
      game(null),
      game(null),
      game(null),
      ack(10, 0, null),
      ack(11),
      ack(12),
      ack(13),
      ack(20),
      ack(21),
      game(7),
    ]);
    expect(comment(acks, [0, 0, 0, 3, 3, 3, 3, 3, 3, 0])).toBe(
      'game unreliable (x3) ; ack seq=10..13 [DEAD-ZONE ACK, pass 2] ; ack seq=20 [DEAD-ZONE ACK, pass 2] ; ack seq=21 [DEAD-ZONE ACK, pass 2] ; game reliable seq=7',
    );
    // Notes or flags that differ break a run; so does a gap in the seqs.
    expect(comment(datagram(2, [ack(1), ack(2), ack(3, 2), ack(4)]), [2, 2, 2, 2])).toBe(
      'ack seq=1 ; ack seq=2 ; ack seq=3 (low-type) ; ack seq=4',
    );
    expect(comment(datagram(2, [ack(1), ack(2), ack(3), ack(4)]), [2, 2, 3, 3])).toBe(
      'ack seq=1 ; ack seq=2 ; ack seq=3 [DEAD-ZONE ACK, pass 2] ; ack seq=4 [DEAD-ZONE ACK, pass 2]',
    );
    expect(comment(datagram(2, [ack(65534), ack(65535), ack(0)]), [2, 2, 2])).toBe('ack seq=65534..0');
  });

  it('quotes the codec for a malformed datagram', () => {
    expect(comment(hex('02 02 01 05 00 00 32 FF 0F'), [2, 0])).toBe(
      'ack seq=5 ; malformed at offset 6: length 4095 runs past the end (3 bytes remain)',
    );
    expect(comment(hex('02'), [])).toBe('malformed: datagram header needs 2 bytes, got 1');
  });

  it('names the messages a rule removed, by position', () => {
    const before = datagram(1, [ack(1, 2), game(4), ack(2)]);
    const after = datagram(1, [game(4)]);
    expect(commentText((w: CommentWriter) => w.rewritten(before, after, 'server'))).toBe(
      'REWRITTEN by link rule: removed #1 ack seq=1 (low-type), #3 ack seq=2',
    );
  });

  it('never writes past the room it was given', () => {
    const w = new CommentWriter();
    const buffer = new Uint8Array(20).fill(0xee);
    w.reset(buffer, 2, 12);
    w.text('0123456789abcdef');
    w.uint(12345);
    expect(w.pos).toBe(12);
    expect(buffer[1]).toBe(0xee);
    expect(buffer[12]).toBe(0xee);
  });
});
