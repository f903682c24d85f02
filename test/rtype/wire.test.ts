// The R-Type wire against hand-built bytes (docs/sources.md 24: little-endian header,
// big-endian payload), and fuzzed decoders that never throw.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEATH_DATAGRAM_BYTES,
  HEADER_BYTES,
  decodeDatagram,
  decodeHeader,
  decodeTcpAck,
  encodeDeath,
  encodePacket,
  encodeRegistration,
  encodeTcpAck,
} from '../../src/rtype/transport/index.js';
import type { RtypeMessage } from '../../src/rtype/transport/index.js';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const bytesOf = (text: string): Uint8Array => Uint8Array.from(Buffer.from(text.replace(/\s+/g, ''), 'hex'));

describe('rtype wire: hand-built bytes', () => {
  // id 0x11223344, ack 0x01020304, packet 0 of 1, dataSize 5; opcode 0x0B, entity 0x0A0B0C0D.
  const DEATH = '44332211 04030201 00 01 0500 0b 0a0b0c0d';

  it('a death notification is 17 bytes: the header little-endian, the entity id big-endian', () => {
    const bytes = encodeDeath({ id: 0x11223344, ack: 0x01020304 }, 0x0a0b0c0d);
    expect(bytes.length).toBe(17);
    expect(DEATH_DATAGRAM_BYTES).toBe(17);
    expect(hex(bytes)).toBe(DEATH.replace(/\s+/g, ''));
  });

  it('decodes the hand-built death packet field by field', () => {
    const decoded = decodeDatagram(bytesOf(DEATH));
    expect(decoded).toEqual({
      ok: true,
      datagram: {
        kind: 'packet',
        header: { id: 0x11223344, ack: 0x01020304, packetNbr: 0, totalPacketNbr: 1, dataSize: 5 },
        message: { kind: 'death', entityId: 0x0a0b0c0d },
      },
    });
  });

  it('a position update carries u32 id and float32 x, y, all big-endian (25 bytes)', () => {
    // 1.5 = 0x3FC00000, -2 = 0xC0000000 as IEEE-754 single.
    const expected = '07000000 00000000 00 01 0d00 07 00000102 3fc00000 c0000000';
    const bytes = encodePacket({ id: 7, ack: 0 }, { kind: 'position', entityId: 0x102, x: 1.5, y: -2 });
    expect(hex(bytes)).toBe(expected.replace(/\s+/g, ''));
    const decoded = decodeDatagram(bytes);
    expect(decoded.ok && decoded.datagram.kind === 'packet' && decoded.datagram.message).toEqual({
      kind: 'position',
      entityId: 0x102,
      x: 1.5,
      y: -2,
    });
  });

  it('the registration is a zero-length datagram, and decodes as one', () => {
    expect(encodeRegistration().length).toBe(0);
    expect(decodeDatagram(new Uint8Array(0))).toEqual({ ok: true, datagram: { kind: 'registration' } });
  });

  it('the TCP confirmation is the marker and a big-endian id', () => {
    expect(hex(encodeTcpAck(0x01020304))).toBe('4101020304');
    expect(decodeTcpAck(bytesOf('4100000100'))).toEqual({ ok: true, ackId: 256 });
  });

  it('reports typed errors with offsets', () => {
    const cases: Array<[string, string, number]> = [
      ['4433221104', 'truncated-header', 5],
      ['44332211 04030201 00 01 0600 0b 0a0b0c0d', 'data-size-mismatch', 10],
      ['44332211 04030201 00 01 0000', 'empty-payload', HEADER_BYTES],
      ['44332211 04030201 00 01 0500 ee 0a0b0c0d', 'unknown-opcode', HEADER_BYTES],
      ['44332211 04030201 00 01 0300 0b 0a0b', 'truncated-payload', 15],
      ['44332211 04030201 00 01 0600 0b 0a0b0c0d ff', 'trailing-bytes', 17],
    ];
    for (const [text, code, offset] of cases) {
      const decoded = decodeDatagram(bytesOf(text));
      expect(decoded.ok, text).toBe(false);
      if (!decoded.ok) expect([decoded.code, decoded.offset], text).toEqual([code, offset]);
    }
    const tcp = decodeTcpAck(bytesOf('4200000001'));
    expect(!tcp.ok && tcp.code).toBe('bad-marker');
  });

  it('the header alone decodes from a datagram whose payload is bad', () => {
    const head = decodeHeader(bytesOf('44332211 04030201 00 01 0500 ee 0a0b0c0d'));
    expect(head.ok && head.header.ack).toBe(0x01020304);
  });

  it('encoders refuse out-of-range fields', () => {
    expect(() => encodeDeath({ id: -1, ack: 0 }, 1)).toThrow(/id/);
    expect(() => encodeDeath({ id: 0, ack: 2 ** 32 }, 1)).toThrow(/ack/);
    expect(() => encodeDeath({ id: 0, ack: 0 }, 1.5)).toThrow(/entityId/);
    expect(() => encodeTcpAck(2 ** 32)).toThrow(/ackId/);
  });
});

describe('rtype wire: fuzzed', () => {
  const u32 = fc.integer({ min: 0, max: 0xffff_ffff });
  const messageArb: fc.Arbitrary<RtypeMessage> = fc.oneof(
    fc.record({ kind: fc.constant('death' as const), entityId: u32 }),
    fc.record({
      kind: fc.constant('position' as const),
      entityId: u32,
      x: fc.float({ noNaN: true }),
      y: fc.float({ noNaN: true }),
    }),
  );

  it('decodeDatagram, decodeHeader and decodeTcpAck never throw; error offsets lie in the input', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        for (const result of [decodeDatagram(bytes), decodeHeader(bytes), decodeTcpAck(bytes)]) {
          if (!result.ok) {
            expect(result.offset).toBeGreaterThanOrEqual(0);
            expect(result.offset).toBeLessThanOrEqual(bytes.length);
          }
        }
      }),
      { numRuns: 5_000, seed: 0x27e1 },
    );
  });

  it('mutated valid packets (flipped, cut, extended) never throw', () => {
    fc.assert(
      fc.property(
        u32,
        u32,
        messageArb,
        fc.nat(),
        fc.integer({ min: 0, max: 255 }),
        fc.integer({ min: -3, max: 3 }),
        (id, ack, message, at, value, resize) => {
          const bytes = encodePacket({ id, ack }, message);
          const mutated = new Uint8Array(Math.max(0, bytes.length + resize));
          mutated.set(bytes.subarray(0, mutated.length));
          if (mutated.length > 0) mutated[at % mutated.length] = value;
          expect(() => decodeDatagram(mutated)).not.toThrow();
        },
      ),
      { numRuns: 5_000, seed: 0x27e2 },
    );
  });

  it('decode(encode(x)) gives x back', () => {
    fc.assert(
      fc.property(
        u32,
        u32,
        fc.integer({ min: 0, max: 255 }),
        fc.integer({ min: 0, max: 255 }),
        messageArb,
        (id, ack, packetNbr, totalPacketNbr, message) => {
          const decoded = decodeDatagram(encodePacket({ id, ack, packetNbr, totalPacketNbr }, message));
          expect(decoded.ok).toBe(true);
          if (!decoded.ok || decoded.datagram.kind !== 'packet') return;
          expect(decoded.datagram.header).toMatchObject({ id, ack, packetNbr, totalPacketNbr });
          expect(decoded.datagram.message).toEqual(
            message.kind === 'position'
              ? { ...message, x: Math.fround(message.x), y: Math.fround(message.y) }
              : message,
          );
        },
      ),
      { numRuns: 2_000, seed: 0x27e3 },
    );
  });
});
