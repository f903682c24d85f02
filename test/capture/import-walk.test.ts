// The capture's allocation-free datagram check (src/analysis/capture/wire-walk.ts) must
// accept exactly what the codec's decodeDatagram accepts, with the same
// message count: on random bytes, on valid datagrams and their corruptions,
// and on every datagram of a simulated run.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { datagramMessages } from '../../src/analysis/capture/wire-walk.js';
import { decodeDatagram, encodeDatagram } from '../../src/core/codec/index.js';
import type { DataType, Message } from '../../src/core/codec/index.js';
import { loadScenario } from '../../src/model/scenario/load.js';
import { runScenario } from '../../src/model/session/run.js';

function agree(bytes: Uint8Array): void {
  const decoded = decodeDatagram(bytes);
  const count = datagramMessages(bytes);
  expect(count, `bytes ${Array.from(bytes).join(',')}`).toBe(decoded.ok ? decoded.datagram.messageCount : -1);
}

const u16 = fc.integer({ min: 0, max: 0xffff });
const messageArb: fc.Arbitrary<Message> = fc.oneof(
  fc
    .record({ seq: u16, flags: fc.integer({ min: 0, max: 255 }), fragIndex: fc.integer({ min: 0, max: 255 }) })
    .map(({ seq, flags, fragIndex }) => ({
      type: 0x01 as const,
      seq,
      flags,
      fragIndex: (flags & 1) !== 0 ? fragIndex : null,
    })),
  fc
    .record({
      type: fc.constantFrom<DataType>(0x00, 0x02, 0x03, 0x04, 0x05, 0x32, 0x32),
      reliable: fc.boolean(),
      ordered: fc.boolean(),
      fragment: fc.boolean(),
      seq: u16,
      fragIndex: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 255 })),
      fragCount: fc.integer({ min: 0, max: 255 }),
      payload: fc.uint8Array({ maxLength: 12 }),
    })
    .map((m) => {
      const fragment = m.fragment && m.type === 0x32;
      return {
        type: m.type,
        reliable: m.reliable,
        ordered: m.ordered,
        fragment,
        seq: m.reliable ? m.seq : null,
        fragIndex: fragment ? m.fragIndex : null,
        fragCount: fragment && m.fragIndex === 0 ? m.fragCount : null,
        payload: m.payload,
      };
    }),
);

const validArb = fc
  .record({ peerId: fc.integer({ min: 0, max: 255 }), messages: fc.array(messageArb, { maxLength: 12 }) })
  .map((d) => {
    const r = encodeDatagram(d);
    return r.ok ? r.bytes : Uint8Array.of(d.peerId, 0);
  });

describe('datagramMessages agrees with decodeDatagram', () => {
  it('on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => agree(bytes)),
      { numRuns: 5000 },
    );
    // Biased towards known types and small lengths, so that some parse.
    const byte = fc.oneof(
      fc.constantFrom(0x00, 0x01, 0x02, 0x03, 0x05, 0x32, 0x80, 0xa0, 0x06, 0x07, 0x08),
      fc.integer({ min: 0, max: 255 }),
    );
    fc.assert(
      fc.property(fc.array(byte, { maxLength: 40 }), (values) => agree(Uint8Array.from(values))),
      { numRuns: 5000 },
    );
  });

  it('on message-shaped bytes with lengths around their headers', () => {
    // [type][flags_len: reliable, fragment bits and a small length][bytes], so the length checks are exercised at their edges.
    const chunk = fc
      .record({
        type: fc.constantFrom(0x00, 0x01, 0x03, 0x05, 0x32, 0x32, 0x32, 0x09),
        reliable: fc.boolean(),
        fragment: fc.boolean(),
        size: fc.integer({ min: 0, max: 9 }),
        body: fc.array(fc.constantFrom(0, 0, 1, 3, 0xff), { minLength: 0, maxLength: 9 }),
      })
      .map(({ type, reliable, fragment, size, body }) => {
        if (type === 0x01) return [0x01, ...body.slice(0, 4)];
        const word = (reliable ? 0x8000 : 0) | (fragment ? 0x2000 : 0) | size;
        return [type, word & 0xff, word >> 8, ...body];
      });
    fc.assert(
      fc.property(fc.array(chunk, { maxLength: 4 }), fc.integer({ min: -1, max: 1 }), (chunks, skew) => {
        const bytes = Uint8Array.from([0x01, Math.max(0, chunks.length + skew), ...chunks.flat()]);
        agree(bytes);
      }),
      { numRuns: 20000 },
    );
    // The edges by hand: fragment 0 needs a byte for its count; other fragments do not.
    agree(Uint8Array.of(0x01, 0x01, 0x32, 0x06, 0xa0, 0x02, 0x00, 0x00)); // reliable fragment 0, length 6: no room for the count
    agree(Uint8Array.of(0x01, 0x01, 0x32, 0x07, 0xa0, 0x02, 0x00, 0x00, 0x03)); // with the count
    agree(Uint8Array.of(0x01, 0x01, 0x32, 0x06, 0xa0, 0x02, 0x00, 0x01)); // fragment 1, length 6
    agree(Uint8Array.of(0x01, 0x01, 0x32, 0x04, 0x20, 0x00, 0x00)); // unreliable fragment 0, length 4
  });

  it('on valid datagrams and their corruptions', () => {
    fc.assert(
      fc.property(
        validArb,
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 3 }),
        fc.integer({ min: -3, max: 3 }),
        (bytes, flips, resize) => {
          agree(bytes);
          const corrupt = bytes.slice();
          for (const [pos, value] of flips) if (corrupt.length > 0) corrupt[pos % corrupt.length] = value;
          agree(corrupt);
          const resized =
            resize <= 0
              ? corrupt.subarray(0, Math.max(0, corrupt.length + resize))
              : Uint8Array.from([...corrupt, ...Array(resize).fill(0)]);
          agree(resized);
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('reads only within `end` (a datagram at the front of a larger buffer)', () => {
    fc.assert(
      fc.property(validArb, fc.uint8Array({ minLength: 1, maxLength: 16 }), (bytes, tail) => {
        const buffer = Uint8Array.from([...bytes, ...tail]);
        expect(datagramMessages(buffer, bytes.length)).toBe(datagramMessages(bytes));
      }),
      { numRuns: 2000 },
    );
  });

  it('on every datagram of a simulated run', () => {
    const scenario = loadScenario('fragment-ack-bug', { sets: [] });
    let datagrams = 0;
    runScenario(scenario, {
      durationUs: 30_000_000,
      observer: {
        datagramSent: (_t, _from, bytes) => {
          datagrams++;
          agree(bytes);
          expect(datagramMessages(bytes)).toBeGreaterThan(0);
        },
      },
    });
    expect(datagrams).toBeGreaterThan(50);
  });
});
