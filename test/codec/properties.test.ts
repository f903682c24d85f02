// Property tests: encode/decode are inverse on every valid datagram, the encoder
// agrees with an independent spec-derived reference, and messageSize is exact.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeDatagram,
  decodeMessage,
  encodeDatagram,
  encodeMessage,
  messageSize,
} from '../../src/core/codec/index.js';
import type { AckMessage, DataMessage, DataType, Datagram, Message } from '../../src/core/codec/index.js';
import { arr, okBytes, okDecode } from './helpers.js';

const NUM_RUNS = 3000;

const u8 = fc.integer({ min: 0, max: 0xff });
const u16 = fc.integer({ min: 0, max: 0xffff });

/** Mostly small payloads (like real traffic), sometimes near the 512-byte ceiling. */
const payloadArb = fc.oneof(
  { weight: 8, arbitrary: fc.uint8Array({ maxLength: 30 }) },
  { weight: 2, arbitrary: fc.uint8Array({ minLength: 200, maxLength: 505 }) },
);
const tinyPayloadArb = fc.uint8Array({ maxLength: 4 });

const ackArb: fc.Arbitrary<AckMessage> = fc
  .record({
    seq: u16,
    // Any flags byte: bit 0 decides the layout, bits 1..7 are carried verbatim.
    flags: fc.oneof(fc.constantFrom(0x00, 0x01, 0x02, 0x03), u8),
    fragIndex: u8,
  })
  .map(({ seq, flags, fragIndex }) => ({ type: 0x01, seq, flags, fragIndex: (flags & 1) !== 0 ? fragIndex : null }));

const dataArbWith = (payloadArb: fc.Arbitrary<Uint8Array>): fc.Arbitrary<DataMessage> =>
  fc
    .record({
      type: fc.constantFrom<DataType>(0x00, 0x02, 0x03, 0x04, 0x05, 0x32, 0x32, 0x32),
      reliable: fc.boolean(),
      ordered: fc.boolean(),
      wantFragment: fc.boolean(),
      seq: fc.oneof(u16, fc.constantFrom(0, 1, 2, 0xff, 0x100, 0xfffe, 0xffff)),
      fragIndex: fc.oneof(fc.constant(0), u8),
      fragCount: u8,
      payload: payloadArb,
    })
    .map(({ type, reliable, ordered, wantFragment, seq, fragIndex, fragCount, payload }) => {
      // Fragments exist only on 0x32; the optional fields are present exactly when the layout has them.
      const fragment = wantFragment && type === 0x32;
      return {
        type,
        reliable,
        ordered,
        fragment,
        seq: reliable ? seq : null,
        fragIndex: fragment ? fragIndex : null,
        fragCount: fragment && fragIndex === 0 ? fragCount : null,
        payload,
      };
    });

const messageArb: fc.Arbitrary<Message> = fc.oneof(
  { weight: 1, arbitrary: ackArb },
  { weight: 2, arbitrary: dataArbWith(payloadArb) },
);
/** Small messages, so that some datagrams carry many of them (up to the 512-byte ceiling). */
const smallMessageArb: fc.Arbitrary<Message> = fc.oneof(ackArb, dataArbWith(tinyPayloadArb));

/** Keeps messages in order while they fit 512 bytes and 255 messages: always a valid datagram. */
function trimToFit(messages: readonly Message[]): Message[] {
  const kept: Message[] = [];
  let total = 2;
  for (const m of messages) {
    const size = refSize(m);
    if (total + size > 512 || kept.length === 255) continue;
    kept.push(m);
    total += size;
  }
  return kept;
}

const datagramArb: fc.Arbitrary<Datagram> = fc
  .record({
    peerId: u8,
    messages: fc.oneof(
      { weight: 3, arbitrary: fc.array(messageArb, { maxLength: 10 }) },
      { weight: 1, arbitrary: fc.array(smallMessageArb, { minLength: 20, maxLength: 130 }) },
    ),
  })
  .map(({ peerId, messages }) => ({ peerId, messages: trimToFit(messages) }));

// --- An independent reference encoder, written from transport-layer.md §3 and docs/sources.md 1–4. ---

function refSize(m: Message): number {
  if (m.type === 0x01) return m.flags & 1 ? 5 : 4;
  let header = 3;
  if (m.reliable) header += 2;
  if (m.fragment) header += m.fragIndex === 0 ? 2 : 1;
  return header + m.payload.length;
}

function refEncodeMessage(m: Message): number[] {
  if (m.type === 0x01) {
    const out = [0x01, m.seq % 256, Math.floor(m.seq / 256), m.flags];
    if (m.flags & 1) out.push(m.fragIndex as number);
    return out;
  }
  const total = refSize(m);
  let word = total;
  if (m.reliable) word += 0x8000;
  if (m.ordered) word += 0x4000;
  if (m.fragment) word += 0x2000;
  const out = [m.type, word % 256, Math.floor(word / 256)];
  if (m.reliable) out.push((m.seq as number) % 256, Math.floor((m.seq as number) / 256));
  if (m.fragment) {
    out.push(m.fragIndex as number);
    if (m.fragIndex === 0) out.push(m.fragCount as number);
  }
  out.push(...m.payload);
  return out;
}

function refEncodeDatagram(d: Datagram): number[] {
  return [d.peerId, d.messages.length, ...d.messages.flatMap(refEncodeMessage)];
}

// ---------------------------------------------------------------------------------------------------

/** Every field of a message as plain data, payload as a number array; ignores offset/size. */
function fields(m: Message): unknown[] {
  if (m.type === 0x01) return [m.type, m.seq, m.flags, m.fragIndex];
  return [m.type, m.reliable, m.ordered, m.fragment, m.seq, m.fragIndex, m.fragCount, Array.from(m.payload)];
}

describe('codec properties (fast-check)', () => {
  it('the generator really produces variety (guards against a vacuous arbitrary)', () => {
    const sample = fc.sample(datagramArb, { numRuns: 500, seed: 1 });
    const all = sample.flatMap((d) => d.messages);
    const types = new Set(all.map((m) => m.type));
    expect([...types].sort((a, b) => a - b)).toEqual([0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x32]);
    expect(all.some((m) => m.type === 0x32 && m.fragment && m.fragIndex === 0)).toBe(true);
    expect(all.some((m) => m.type === 0x32 && m.fragment && m.fragIndex !== 0)).toBe(true);
    expect(all.some((m) => m.type === 0x01 && (m.flags & 1) === 1)).toBe(true);
    expect(all.some((m) => m.type !== 0x01 && refSize(m) >= 256)).toBe(true);
    expect(sample.some((d) => d.messages.length === 0)).toBe(true);
    expect(sample.some((d) => d.messages.length >= 20)).toBe(true);
    expect(sample.some((d) => refEncodeDatagram(d).length > 480)).toBe(true);
  });

  it('decodeDatagram(encodeDatagram(x)) gives x back, field by field', () => {
    fc.assert(
      fc.property(datagramArb, (x) => {
        const bytes = okBytes(encodeDatagram(x));
        expect(bytes.length).toBeLessThanOrEqual(512);
        const d = okDecode(decodeDatagram(bytes));
        // Expected offsets and sizes follow from messageSize; compared in one go for speed.
        let offset = 2;
        const expected = x.messages.map((m) => {
          const at = [offset, messageSize(m), ...fields(m)];
          offset += messageSize(m);
          return at;
        });
        expect(offset).toBe(bytes.length);
        expect([d.peerId, d.messageCount, d.messages.map((m) => [m.offset, m.size, ...fields(m)])]).toEqual([
          x.peerId,
          x.messages.length,
          expected,
        ]);
      }),
      { numRuns: NUM_RUNS, seed: 0x5eed },
    );
  });

  it('encodeDatagram agrees byte for byte with the spec reference encoder', () => {
    fc.assert(
      fc.property(datagramArb, (x) => {
        expect(arr(okBytes(encodeDatagram(x)))).toEqual(refEncodeDatagram(x));
      }),
      { numRuns: NUM_RUNS, seed: 0xbc11 },
    );
  });

  it('encodeDatagram(decodeDatagram(bytes)) equals bytes for valid bytes', () => {
    // Valid bytes built by the reference encoder, so this does not lean on encodeDatagram to make its input.
    fc.assert(
      fc.property(datagramArb, (x) => {
        const bytes = Uint8Array.from(refEncodeDatagram(x));
        const d = okDecode(decodeDatagram(bytes));
        expect(arr(okBytes(encodeDatagram({ peerId: d.peerId, messages: d.messages })))).toEqual(arr(bytes));
      }),
      { numRuns: NUM_RUNS, seed: 0xdec0 },
    );
  });

  it('on arbitrary bytes: whenever decode succeeds within 512 bytes, re-encoding reproduces the bytes', () => {
    // Bias toward plausible datagrams: a valid prefix of known type bytes, then noise.
    const bytesArb = fc.oneof(
      fc.uint8Array({ maxLength: 64 }),
      fc
        .tuple(
          u8,
          fc.integer({ min: 0, max: 4 }),
          fc.array(fc.tuple(fc.constantFrom(0x00, 0x01, 0x05, 0x32), fc.uint8Array({ maxLength: 12 }))),
        )
        .map(([peer, count, parts]) => Uint8Array.from([peer, count, ...parts.flatMap(([t, rest]) => [t, ...rest])])),
    );
    let decodedOk = 0;
    fc.assert(
      fc.property(bytesArb, (bytes) => {
        const r = decodeDatagram(bytes);
        if (!r.ok) return;
        decodedOk++;
        expect(arr(okBytes(encodeDatagram({ peerId: r.datagram.peerId, messages: r.datagram.messages })))).toEqual(
          arr(bytes),
        );
      }),
      { numRuns: NUM_RUNS, seed: 0xf00d },
    );
    expect(decodedOk).toBeGreaterThan(20);
  });

  it('messageSize(m) equals the encoded length of m, alone and inside a datagram', () => {
    fc.assert(
      fc.property(messageArb, (m) => {
        const alone = okBytes(encodeMessage(m));
        expect(messageSize(m)).toBe(alone.length);
        expect(messageSize(m)).toBe(refSize(m));
        const r = decodeMessage(alone);
        expect(r.ok).toBe(true);
        if (r.ok) expect(r.message.size).toBe(alone.length);
      }),
      { numRuns: NUM_RUNS, seed: 0x517e },
    );
  });
});
