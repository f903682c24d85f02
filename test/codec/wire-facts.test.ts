// The codec's message key and its flag and size helpers. A
// reliable message and the ACK that answers it have one key; the packing (seq in
// bits 0-15, low type 16, fragment 17, fragment index from 18) is checked against
// two independent formulas, and each helper against the bit it names.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ACK_BYTES,
  DATAGRAM_ROOM_BYTES,
  FIRST_FRAGMENT_HEADER_BYTES,
  FRAGMENT_ACK_BYTES,
  FRAGMENT_HEADER_BYTES,
  MAX_FRAGMENT_CHUNK_BYTES,
  MAX_UNFRAGMENTED_PAYLOAD_BYTES,
  RELIABLE_HEADER_BYTES,
  TYPE_ACK,
  TYPE_DATA,
  TYPE_GAME,
  ackBytes,
  ackBytesOfFlags,
  ackFlagsFragment,
  ackFlagsLowType,
  ackFlagsOf,
  ackFlagsOther,
  dataHeaderBytes,
  encodeDatagram,
  flagsLenFragment,
  flagsLenOrdered,
  flagsLenReliable,
  flagsLenSize,
  keyOfAck,
  keyOfData,
  messageKeyOf,
  messageSize,
  packAckKey,
  packDataKey,
  packKey,
  packKeyOf,
  packedAckKeyAt,
  packedDataKeyAt,
  packedKeyFragIndex,
  packedKeyFragment,
  packedKeyLowType,
  packedKeySeq,
  sameKey,
  seqBefore,
  seqDistance,
  seqNext,
  u16At,
  unpackKey,
} from '../../src/core/codec/index.js';
import type { AckMessage, DataMessage, DataType } from '../../src/core/codec/index.js';

const u16 = fc.integer({ min: 0, max: 0xffff });
const u8 = fc.integer({ min: 0, max: 0xff });

/** A reliable message and the ACK the stock receiver sends for it. */
function pair(type: DataType, seq: number, fragIndex: number | null): { message: DataMessage; ack: AckMessage } {
  const fragment = fragIndex !== null;
  const message: DataMessage = {
    type,
    reliable: true,
    ordered: false,
    fragment,
    seq,
    fragIndex,
    fragCount: fragIndex === 0 ? 3 : null,
    payload: new Uint8Array(4),
  };
  const ack: AckMessage = { type: TYPE_ACK, seq, flags: ackFlagsOf(type < 0x32, fragment), fragIndex };
  return { message, ack };
}

describe('the message key', () => {
  it('a reliable message and its ACK have the same key, packed or not', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<DataType>(0x00, 0x02, 0x03, 0x04, 0x05, 0x32),
        u16,
        fc.option(u8, { nil: null }),
        (type, seq, index) => {
          const fragIndex = type === TYPE_GAME ? index : null;
          const { message, ack } = pair(type, seq, fragIndex);
          expect(sameKey(keyOfData(message), keyOfAck(ack))).toBe(true);
          expect(keyOfData(message)).toEqual({
            lowType: type < 0x32,
            seq,
            fragment: fragIndex !== null,
            fragIndex: fragIndex ?? 0,
          });
          expect(packDataKey(message)).toBe(packKey(keyOfData(message)));
          expect(packAckKey(ack)).toBe(packKey(keyOfAck(ack)));
          expect(packAckKey(ack)).toBe(packDataKey(message));
        },
      ),
      { numRuns: 500, seed: 17 },
    );
  });

  it('packs as two independent formulas say: bit operations and arithmetic', () => {
    fc.assert(
      fc.property(fc.boolean(), u16, fc.boolean(), u8, (low, seq, fragment, fragIndex) => {
        const packed = packKeyOf(low, seq, fragment, fragIndex);
        expect(packed).toBe(seq | (low ? 1 << 16 : 0) | (fragment ? (1 << 17) | (fragIndex << 18) : 0));
        expect(packed).toBe(seq + (low ? 1 << 16 : 0) + (fragment ? (1 << 17) + fragIndex * (1 << 18) : 0));
        expect(packed).toBeLessThan(2 ** 26);
        expect(unpackKey(packed)).toEqual(messageKeyOf(low, seq, fragment, fragIndex));
        expect([
          packedKeyLowType(packed),
          packedKeySeq(packed),
          packedKeyFragment(packed),
          packedKeyFragIndex(packed),
        ]).toEqual([low, seq, fragment, fragment ? fragIndex : 0]);
      }),
      { numRuns: 500, seed: 17 },
    );
  });

  it('is one-to-one over the four fields (a non-fragment has index 0)', () => {
    const seen = new Set<number>();
    for (const low of [false, true]) {
      for (const seq of [0, 1, 0x7fff, 0xffff]) {
        seen.add(packKeyOf(low, seq, false, 0));
        for (let index = 0; index < 256; index++) seen.add(packKeyOf(low, seq, true, index));
      }
    }
    expect(seen.size).toBe(2 * 4 * 257);
    expect(packKeyOf(true, 5, false, 9)).toBe(packKeyOf(true, 5, false, 0));
  });

  it('an unreliable message has no key, and a field out of range is refused', () => {
    const { message } = pair(TYPE_DATA, 1, null);
    expect(() => keyOfData({ ...message, reliable: false, seq: null })).toThrow(
      'codec: an unreliable message has no key',
    );
    expect(() => packDataKey({ ...message, reliable: false, seq: null })).toThrow(
      'codec: an unreliable message has no key',
    );
    expect(() => packKeyOf(false, 0x10000, false, 0)).toThrow(/not a u16/);
    expect(() => packKeyOf(false, 1, true, 256)).toThrow(/not a u16 and a u8/);
  });

  it('reads the key of an ACK or a reliable message in place, as the decoder does', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<DataType>(0x00, 0x03, 0x05, 0x32),
        u16,
        fc.option(u8, { nil: null }),
        (type, seq, index) => {
          const fragIndex = type === TYPE_GAME ? index : null;
          const { message, ack } = pair(type, seq, fragIndex);
          const encoded = encodeDatagram({ peerId: 1, messages: [ack, message] });
          if (!encoded.ok) throw new Error(encoded.error.reason);
          expect(packedAckKeyAt(encoded.bytes, 2)).toBe(packAckKey(ack));
          expect(packedDataKeyAt(encoded.bytes, 2 + messageSize(ack))).toBe(packDataKey(message));
        },
      ),
      { numRuns: 300, seed: 17 },
    );
  });
});

describe('flag and size helpers', () => {
  it('ACK flags: bit 0 fragment, bit 1 low type, the rest kept apart', () => {
    for (let flags = 0; flags < 256; flags++) {
      expect(ackFlagsFragment(flags)).toBe((flags & 1) !== 0);
      expect(ackFlagsLowType(flags)).toBe((flags & 2) !== 0);
      expect(ackFlagsOther(flags)).toBe(flags & ~3);
      expect(ackBytesOfFlags(flags)).toBe((flags & 1) !== 0 ? 5 : 4);
    }
    expect([
      ackFlagsOf(false, false),
      ackFlagsOf(false, true),
      ackFlagsOf(true, false),
      ackFlagsOf(true, true),
    ]).toEqual([0, 1, 2, 3]);
    expect([ackBytes(false), ackBytes(true), ACK_BYTES, FRAGMENT_ACK_BYTES]).toEqual([4, 5, 4, 5]);
  });

  it('flags_len: reliable, ordered, fragment (0x32 only) and the length per type', () => {
    fc.assert(
      fc.property(u16, fc.constantFrom(0x00, 0x02, 0x05, 0x32), (word, type) => {
        const game = type === 0x32;
        expect(flagsLenReliable(word)).toBe((word & 0x8000) !== 0);
        expect(flagsLenOrdered(word)).toBe((word & 0x4000) !== 0);
        expect(flagsLenFragment(type, word)).toBe(game && (word & 0x2000) !== 0);
        expect(flagsLenSize(type, word)).toBe(word & (game ? 0x1fff : 0x3fff));
      }),
      { numRuns: 300, seed: 17 },
    );
  });

  it('the sizes the transport and the scenario checks use', () => {
    expect(DATAGRAM_ROOM_BYTES).toBe(510);
    expect([RELIABLE_HEADER_BYTES, FRAGMENT_HEADER_BYTES, FIRST_FRAGMENT_HEADER_BYTES]).toEqual([5, 6, 7]);
    expect([
      dataHeaderBytes(true, false, null),
      dataHeaderBytes(true, true, 1),
      dataHeaderBytes(true, true, 0),
    ]).toEqual([5, 6, 7]);
    expect(MAX_FRAGMENT_CHUNK_BYTES).toBe(503); // fragment 0: 503 + 7 = 510
    expect(MAX_UNFRAGMENTED_PAYLOAD_BYTES).toBe(505); // the transport refused payload + 5 > 510
    expect(u16At(Uint8Array.of(0, 0x34, 0x12), 1)).toBe(0x1234);
  });

  it('serial arithmetic on u16 seqs', () => {
    expect([
      seqNext(0xffff),
      seqDistance(0xfffe, 1),
      seqBefore(0xfffe, 1),
      seqBefore(1, 0xfffe),
      seqBefore(5, 5),
    ]).toEqual([0, 3, true, false, false]);
  });
});
