// The wire forms real reimplementations send (docs/sources.md 30): each one reads,
// names its deviation at the byte that deviates, and normalizes to a stock
// datagram the strict decoder and the model read; truly malformed bytes keep
// the strict decoder's offset and reason.
import { describe, expect, it } from 'vitest';
import {
  MAX_DIALECT_STEPS,
  decodeDatagram,
  decodeDialect,
  describeMessage,
  dialectResultToJson,
  formOf,
  normalizeToStock,
  toHex,
} from '../../src/core/codec/index.js';
import type { DialectResult } from '../../src/core/codec/index.js';
import { asAck, asData, hex, okDecode } from './helpers.js';

function okDialect(bytes: Uint8Array): DialectResult & { ok: true } {
  const r = decodeDialect(bytes);
  if (!r.ok) throw new Error(`expected a dialect reading, got ${r.error.code} at ${r.error.offset}: ${r.error.reason}`);
  return r;
}

const codes = (r: DialectResult) => r.deviations.map((d) => [d.offset, d.code]);

describe('decodeDialect: the forms of docs/sources.md 30', () => {
  it('the two-byte keepalive 00 02: an unreliable empty type-0x00 message, normalized to 00 03 00', () => {
    const bytes = hex('01 01 00 02');
    expect(decodeDatagram(bytes).ok).toBe(false);
    const r = okDialect(bytes);
    const m = asData(r.datagram.messages[0]);
    expect([m.type, m.reliable, m.seq, m.payload.length, m.offset, m.size]).toEqual([0x00, false, null, 0, 2, 2]);
    expect(formOf(r, 0)).toEqual({ typeByte: 0x00, lengthByte: 2, flagsByte: null });
    expect(codes(r)).toEqual([[3, 'two-byte-message']]);
    expect(r.deviations[0].note).toBe(
      "deviation: two-byte message (one-byte length 2, no flags byte); stock's smallest message is 3 bytes, [type][flags_len u16]",
    );
    expect(toHex(r.stock)).toBe('01 01 00 03 00');
    okDecode(decodeDatagram(r.stock));
  });

  it('the two-byte keepalive among other messages (OpenBC batches it with ACKs)', () => {
    const r = okDialect(hex('01 03 01 05 00 00 00 02 01 06 00 02'));
    expect(r.datagram.messages.map((m) => [m.type, m.offset, m.size])).toEqual([
      [0x01, 2, 4],
      [0x00, 6, 2],
      [0x01, 8, 4],
    ]);
    expect(codes(r)).toEqual([[7, 'two-byte-message']]);
    expect(toHex(r.stock)).toBe('01 03 01 05 00 00 00 03 00 01 06 00 02');
  });

  it("the test client's Connect FF 01 03 08 01 …: length 8, flags byte 0x01, normalized to the stock reliable Connect seq 0", () => {
    const bytes = hex('FF 01 03 08 01 00 00 00 7F 00');
    const strict = decodeDatagram(bytes);
    expect(strict.ok ? null : [strict.error.offset, strict.error.reason]).toEqual([
      2,
      'length 264 runs past the end (8 bytes remain)',
    ]);
    const r = okDialect(bytes);
    const m = asData(r.datagram.messages[0]);
    expect([m.type, m.reliable, m.size, toHex(m.payload)]).toEqual([0x03, false, 8, '00 00 00 7F 00']);
    expect(codes(r)).toEqual([
      [4, 'one-byte-length'],
      [4, 'connect-without-seq'],
    ]);
    expect(r.deviations[0].note).toBe(
      'deviation: one-byte length 8 and flags byte 0x01; stock reads flags_len 0x0108 as length 264',
    );
    const stock = asData(okDecode(decodeDatagram(r.stock)).messages[0]);
    expect([stock.type, stock.reliable, stock.ordered, stock.seq, toHex(stock.payload)]).toEqual([
      0x03,
      true,
      true,
      0,
      '00 00 00 7F 00',
    ]);
  });

  it('a type-0x03 message from a client with a slot is not a Connect: no seq is made up', () => {
    const r = okDialect(hex('02 01 03 08 01 00 00 00 7F 00'));
    expect(codes(r)).toEqual([[4, 'one-byte-length']]);
    expect(asData(okDecode(decodeDatagram(r.stock)).messages[0]).reliable).toBe(false);
  });

  it('a client Disconnect of type 0x06 (06 02): read and normalized as the stock Disconnect 0x05', () => {
    const r = okDialect(hex('02 01 06 02'));
    expect(asData(r.datagram.messages[0]).type).toBe(0x05);
    expect(formOf(r, 0)?.typeByte).toBe(0x06);
    expect(codes(r)).toEqual([
      [2, 'disconnect-type-06'],
      [3, 'two-byte-message'],
    ]);
    expect(toHex(r.stock)).toBe('02 01 05 03 00');
  });

  it('type 0x06 with a stock-shaped header keeps its reliable seq and payload', () => {
    const r = okDialect(hex('02 01 06 07 C0 04 00 02 0A'));
    const m = asData(okDecode(decodeDatagram(r.stock)).messages[0]);
    expect([m.type, m.reliable, m.ordered, m.seq, toHex(m.payload)]).toEqual([0x05, true, true, 4, '02 0A']);
    expect(codes(r)).toEqual([[2, 'disconnect-type-06']]);
  });

  it('ACK flags with bit 7 set (0x80): strict reads it, the deviation is still named; the bytes stay as sent', () => {
    const bytes = hex('02 02 01 05 00 80 01 06 00 00');
    const r = okDialect(bytes);
    expect(asAck(r.datagram.messages[0]).flags).toBe(0x80);
    expect(codes(r)).toEqual([[5, 'ack-flag-bits']]);
    expect(r.deviations[0].note).toBe(
      'deviation: ACK flags 0x80 set bits outside 0-1; stock uses bit 0 (fragment) and bit 1 (low type) only',
    );
    expect(r.stock).toBe(bytes);
  });

  it('the big-endian "seqHi" reading changes nothing: 02 00 is seq 2 (docs/sources.md 1)', () => {
    const r = okDialect(hex('01 01 32 07 80 02 00 20 00'));
    expect(asData(r.datagram.messages[0]).seq).toBe(2);
    expect(r.deviations).toEqual([]);
  });

  it('describes a tolerant message by its wire bytes, not a flags_len it never had', () => {
    const r = okDialect(hex('FF 01 03 08 01 00 00 00 7F 00'));
    const m = r.datagram.messages[0];
    expect(describeMessage(m, m.size, { peerId: 0xff, form: formOf(r, 0) })).toBe(
      'connect (type 0x03 as captured) unreliable len=8 length_u8=8 flags=0x01 payload=5B',
    );
    const json = dialectResultToJson(hex('FF 01 03 08 01 00 00 00 7F 00'), r);
    expect(json.messages[0]).toMatchObject({ wireForm: { typeByte: 3, lengthByte: 8, flagsByte: 1 } });
    expect(json.stockHex).toBe('FF01030AC000000000007F00');
  });
});

describe('decodeDialect: truly malformed bytes keep the strict offset and reason', () => {
  const cases = [
    '',
    '01',
    '01 01 00 02 00', // a two-byte message, then a stray byte
    '01 01 00', // a one-byte length needs its byte
    '01 01 00 01', // length 1 is below the type byte and itself
    '01 01 00 09 01 00', // one-byte length 9 runs past the end too
    '01 01 07 02', // type 0x07 is no form at all
    '01 02 00 02', // msg_count 2, one message
    '01 01 00 05 80 00', // reliable flags byte: the seq does not fit length 5
    '01 01 32 1B 80 00 00 01',
  ];
  for (const text of cases) {
    it(`"${text}"`, () => {
      const bytes = hex(text || '00').subarray(0, text === '' ? 0 : undefined);
      const strict = decodeDatagram(bytes);
      const dialect = decodeDialect(bytes);
      expect(strict.ok).toBe(false);
      expect(dialect.ok).toBe(false);
      if (!strict.ok && !dialect.ok) {
        expect(dialect.error).toEqual(strict.error);
        expect(dialect.partial).toEqual(strict.partial);
      }
      expect(normalizeToStock(bytes)).toBeNull();
    });
  }
});

describe('decodeDialect: reading order and bounds', () => {
  it('backtracks when the strict reading of a one-byte-length message swallows the rest', () => {
    // 00 04 01 AA reads strictly as length 0x0104 = 260 and fits, but then msg_count 2 is not met;
    // the one-byte reading (length 4, flags byte 0x01) leaves the room for the 256-byte second message.
    const second = new Uint8Array(256);
    second.set([0x32, 0x00, 0x01]);
    const bytes = Uint8Array.from([0x01, 0x02, 0x00, 0x04, 0x01, 0xaa, ...second]);
    expect(decodeDatagram(bytes).ok).toBe(false);
    const r = okDialect(bytes);
    expect(r.datagram.messages.map((m) => [m.type, m.offset, m.size])).toEqual([
      [0x00, 2, 4],
      [0x32, 6, 256],
    ]);
    expect(codes(r)).toEqual([[4, 'one-byte-length']]);
  });

  it('gives up within MAX_DIALECT_STEPS on bytes that branch at every message and never fit', () => {
    // Every 4-byte step holds 00 04 01 00: 4 bytes in the one-byte form, 260 (0x0104, a multiple
    // of 4) strictly. With room for 255 strict readings, every message branches; a stray last byte
    // makes every branch fail. Unbounded, the search visits about 2^255 readings.
    const body = new Uint8Array(255 * 260 + 1);
    for (let at = 0; at + 4 <= body.length; at += 4) body.set([0x00, 0x04, 0x01, 0x00], at);
    body[body.length - 1] = 0x99;
    const bytes = Uint8Array.from([0x01, 0xff, ...body]);
    const r = decodeDialect(bytes);
    const strict = decodeDatagram(bytes);
    expect(r.ok).toBe(false);
    if (!r.ok && !strict.ok) expect(r.error).toEqual(strict.error);
    // The bound still lets every datagram of 255 messages read without branching.
    expect(MAX_DIALECT_STEPS).toBeGreaterThan(256);
    const keepalives = Uint8Array.from([0x01, 0xff, ...new Array<number>(255).fill(0).flatMap(() => [0x00, 0x02])]);
    expect(decodeDialect(keepalives).ok).toBe(true);
  }, 20_000);
});
