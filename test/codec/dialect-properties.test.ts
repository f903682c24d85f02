// Properties of the dialect reader (docs/sources.md 30): it never throws; what it
// refuses, it refuses with the strict decoder's exact error; everything it
// accepts normalizes to bytes the strict decoder accepts, with the same
// messages; stock datagrams give no deviations and stay the same bytes; and
// datagrams built in the reimplementations' forms read back as built.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeDatagram, decodeDialect, encodeDatagram, formOf } from '../../src/core/codec/index.js';
import type { AckMessage, DataMessage, DataType, DeviationCode, Message } from '../../src/core/codec/index.js';
import { okBytes, okDecode } from './helpers.js';

const NUM_RUNS = 3000;
const u8 = fc.integer({ min: 0, max: 0xff });
const u16 = fc.integer({ min: 0, max: 0xffff });

/** Stock ACKs: flags bits 0-1 only (bcsim's own). */
const stockAckArb: fc.Arbitrary<AckMessage> = fc
  .record({ seq: u16, flags: fc.integer({ min: 0, max: 3 }), fragIndex: u8 })
  .map(({ seq, flags, fragIndex }) => ({ type: 0x01, seq, flags, fragIndex: (flags & 1) !== 0 ? fragIndex : null }));

const stockDataArb: fc.Arbitrary<DataMessage> = fc
  .record({
    type: fc.constantFrom<DataType>(0x00, 0x02, 0x03, 0x04, 0x05, 0x32),
    reliable: fc.boolean(),
    ordered: fc.boolean(),
    seq: u16,
    payload: fc.uint8Array({ maxLength: 24 }),
  })
  .map(({ type, reliable, ordered, seq, payload }) => ({
    type,
    reliable,
    ordered,
    fragment: false,
    seq: reliable ? seq : null,
    fragIndex: null,
    fragCount: null,
    payload,
  }));

describe('decodeDialect on any bytes', () => {
  it('never throws; a refusal is exactly the strict error; an acceptance normalizes to strict-readable bytes', () => {
    const bytesArb = fc.oneof(
      fc.uint8Array({ maxLength: 64 }),
      // Bytes that start like a datagram of the small generic types, where the forms live.
      fc
        .tuple(
          fc.constantFrom(0x01, 0x02, 0xff),
          fc.integer({ min: 1, max: 4 }),
          fc.array(fc.oneof(fc.constantFrom(0x00, 0x01, 0x02, 0x03, 0x05, 0x06, 0x80, 0xc0), u8), { maxLength: 40 }),
        )
        .map(([peer, count, rest]) => Uint8Array.from([peer, count, ...rest])),
    );
    fc.assert(
      fc.property(bytesArb, (bytes) => {
        const strict = decodeDatagram(bytes);
        const r = decodeDialect(bytes);
        if (!r.ok) {
          expect(strict.ok).toBe(false);
          if (!strict.ok) expect(r.error).toEqual(strict.error);
          return;
        }
        const stock = okDecode(decodeDatagram(r.stock));
        expect(stock.messageCount).toBe(r.datagram.messageCount);
        expect(stock.peerId).toBe(r.datagram.peerId);
        r.datagram.messages.forEach((m, i) => {
          const s = stock.messages[i];
          expect(s.type).toBe(m.type);
          if (m.type === 0x01 || s.type === 0x01)
            return expect(s).toMatchObject({ seq: m.seq, flags: (m as AckMessage).flags });
          expect((s as DataMessage).payload).toEqual((m as DataMessage).payload);
          if (m.reliable) expect([s.reliable, s.seq]).toEqual([true, m.seq]);
        });
        if (strict.ok) expect(r.stock).toBe(bytes);
      }),
      { numRuns: NUM_RUNS },
    );
  });
});

describe('decodeDialect on stock datagrams', () => {
  it('names no deviation and keeps the very bytes', () => {
    const datagramArb = fc.record({
      peerId: fc.constantFrom(0x01, 0x02, 0x05, 0xff),
      messages: fc.array(fc.oneof(stockAckArb, stockDataArb), { minLength: 0, maxLength: 12 }),
    });
    fc.assert(
      fc.property(datagramArb, (d) => {
        const bytes = okBytes(encodeDatagram(d));
        const r = decodeDialect(bytes);
        expect(r.ok).toBe(true);
        if (!r.ok) return;
        expect(r.deviations).toEqual([]);
        expect(r.stock).toBe(bytes);
        expect(r.datagram).toEqual(okDecode(decodeDatagram(bytes)));
      }),
      { numRuns: NUM_RUNS },
    );
  });
});

/** One message as a reimplementation might write it, with what a reader must find. */
interface Written {
  readonly bytes: number[];
  readonly type: number;
  readonly reliable: boolean;
  readonly seq: number | null;
  readonly payload: number[];
  readonly codes: DeviationCode[];
  readonly typeByte: number;
}

const formArb: fc.Arbitrary<Written> = fc.oneof(
  // [type][02]: the two-byte form.
  fc.constantFrom(0x00, 0x02, 0x03, 0x04, 0x05, 0x06).map(
    (t): Written => ({
      bytes: [t, 2],
      type: t === 6 ? 5 : t,
      reliable: false,
      seq: null,
      payload: [],
      codes: t === 6 ? ['disconnect-type-06', 'two-byte-message'] : ['two-byte-message'],
      typeByte: t,
    }),
  ),
  // [type][len u8][flags u8][seq if bit 7][payload], with flags bits the stock form reads as length (or type 0x06).
  fc
    .record({
      t: fc.constantFrom(0x00, 0x02, 0x04, 0x05, 0x06),
      high: fc.constantFrom(0x00, 0x40, 0x80, 0xc0),
      low: fc.integer({ min: 0, max: 0x3f }),
      seq: u16,
      payload: fc.array(u8, { maxLength: 20 }),
    })
    .filter(({ t, low }) => low !== 0 || t === 6)
    .map(({ t, high, low, seq, payload }): Written => {
      const flags = high | low;
      const reliable = (flags & 0x80) !== 0;
      const header = reliable ? [flags, seq & 0xff, seq >> 8] : [flags];
      const size = 2 + header.length + payload.length;
      const codes: DeviationCode[] = [];
      if (t === 6) codes.push('disconnect-type-06');
      if (low !== 0) codes.push('one-byte-length');
      return {
        bytes: [t, size, ...header, ...payload],
        type: t === 6 ? 5 : t,
        reliable,
        seq: reliable ? seq : null,
        payload,
        codes,
        typeByte: t,
      };
    }),
  // Stock messages between them.
  stockDataArb.map((m): Written => {
    const bytes = Array.from(okBytes(encodeDatagram({ peerId: 1, messages: [m] })).subarray(2));
    return {
      bytes,
      type: m.type,
      reliable: m.reliable,
      seq: m.seq,
      payload: Array.from(m.payload),
      codes: [],
      typeByte: m.type,
    };
  }),
  stockAckArb.map(
    (m: Message): Written => ({
      bytes: Array.from(okBytes(encodeDatagram({ peerId: 1, messages: [m] })).subarray(2)),
      type: 1,
      reliable: false,
      seq: m.seq,
      payload: [],
      codes: [],
      typeByte: 1,
    }),
  ),
);

describe('decodeDialect on datagrams written in the forms of docs/sources.md 30', () => {
  it('reads every message back as written, with its deviations in order (datagrams under 256 bytes)', () => {
    // Under 256 bytes, a flags byte's length bits always push the strict reading past the end,
    // so the reading is unique (longer datagrams may have two; then strict comes first).
    const datagramArb = fc
      .record({
        peerId: fc.constantFrom(0x01, 0x02, 0x07),
        messages: fc.array(formArb, { minLength: 1, maxLength: 8 }),
      })
      .filter((d) => d.messages.reduce((n, m) => n + m.bytes.length, 2) < 256);
    fc.assert(
      fc.property(datagramArb, ({ peerId, messages }) => {
        const bytes = Uint8Array.from([peerId, messages.length, ...messages.flatMap((m) => m.bytes)]);
        const r = decodeDialect(bytes);
        expect(r.ok).toBe(true);
        if (!r.ok) return;
        expect(r.datagram.messages.map((m) => m.type)).toEqual(messages.map((m) => m.type));
        r.datagram.messages.forEach((m, i) => {
          const w = messages[i];
          expect(m.size).toBe(w.bytes.length);
          if (m.type === 0x01) return;
          expect([m.reliable, m.seq, Array.from(m.payload)]).toEqual([w.reliable, w.seq, w.payload]);
          expect(formOf(r, i)?.typeByte ?? m.type).toBe(w.typeByte);
        });
        expect(r.deviations.map((d) => d.code)).toEqual(messages.flatMap((m) => m.codes));
        const offsets = r.deviations.map((d) => d.offset);
        expect([...offsets].sort((a, b) => a - b)).toEqual(offsets);
        okDecode(decodeDatagram(r.stock));
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
