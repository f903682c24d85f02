// Malformed input: typed errors with exact offsets, never an exception; and the
// encoder's refusals of anything the stock engine could not put on the wire.
import { describe, expect, it } from 'vitest';
import {
  MAX_DATAGRAM_BYTES,
  MAX_GAME_MESSAGE_BYTES,
  MAX_GENERIC_MESSAGE_BYTES,
  MAX_MESSAGES_PER_DATAGRAM,
  decodeDatagram,
  decodeMessage,
  encodeDatagram,
  encodeMessage,
  toHex,
} from '../../src/core/codec/index.js';
import type {
  AckMessage,
  DecodeErrorCode,
  DecodeResult,
  EncodeErrorCode,
  EncodeResult,
  Message,
} from '../../src/core/codec/index.js';
import { ackMsg, arr, asData, concat, dataMsg, filler, hex, okBytes, okDecode } from './helpers.js';

type Failure = Extract<DecodeResult, { ok: false }>;

function decodeFails(bytes: Uint8Array, code: DecodeErrorCode, offset: number): Failure {
  let result: DecodeResult | undefined;
  expect(() => {
    result = decodeDatagram(bytes);
  }).not.toThrow();
  const r = result as DecodeResult;
  if (r.ok) throw new Error(`expected ${code} at ${offset}, but ${toHex(bytes)} decoded ok`);
  expect({ code: r.error.code, offset: r.error.offset }).toEqual({ code, offset });
  expect(r.error.reason.length).toBeGreaterThan(0);
  return r;
}

/** [offset, size, type] of each message decoded before the error. */
const located = (f: Failure) => f.partial.messages.map((m) => [m.offset, m.size, m.type]);

describe('decode: truncated datagram header', () => {
  it('0 bytes: truncated-header at 0, nothing readable', () => {
    const f = decodeFails(new Uint8Array(0), 'truncated-header', 0);
    expect(f.partial).toEqual({ peerId: null, messageCount: null, messages: [] });
  });

  it('1 byte: truncated-header at 1, peer id readable', () => {
    const f = decodeFails(hex('02'), 'truncated-header', 1);
    expect(f.partial).toEqual({ peerId: 2, messageCount: null, messages: [] });
  });

  it('2 bytes with msg_count 0 is a valid empty datagram', () => {
    const d = okDecode(decodeDatagram(hex('01 00')));
    expect([d.peerId, d.messageCount, d.messages.length]).toEqual([1, 0, 0]);
  });
});

describe('decode: length smaller than its own header', () => {
  it('0x32 reliable with length 4 (header is 5): length-below-header at the message', () => {
    const f = decodeFails(hex('01 01 32 04 80 00 00'), 'length-below-header', 2);
    expect(f.partial.peerId).toBe(1);
    expect(f.partial.messageCount).toBe(1);
    expect(f.partial.messages).toEqual([]);
  });

  it('after a good ACK, the error points at the second message and the ACK is in partial', () => {
    const f = decodeFails(hex('01 02 01 05 00 00 32 04 80 00 00'), 'length-below-header', 6);
    expect(located(f)).toEqual([[2, 4, 0x01]]);
  });

  it('fragment 0 with length 6 (reliable fragment 0 needs 7)', () => {
    decodeFails(hex('02 01 32 06 A0 02 00 00'), 'length-below-header', 2);
  });

  it('fragment K with length 5 (reliable fragment K needs 6)', () => {
    decodeFails(hex('02 01 32 05 A0 02 00 01'), 'length-below-header', 2);
  });

  it('unreliable fragment 0 with length 4 (needs 5)', () => {
    decodeFails(hex('02 01 32 04 20 00 03'), 'length-below-header', 2);
  });

  it('length 0 and length 2 (below the 3-byte type+flags_len)', () => {
    decodeFails(hex('01 01 32 00 00'), 'length-below-header', 2);
    decodeFails(hex('01 01 00 02 00'), 'length-below-header', 2);
  });

  it('generic type reliable with length 4 (header 5)', () => {
    decodeFails(hex('01 01 05 04 C0 00 00'), 'length-below-header', 2);
  });

  it('the smallest legal sizes decode: fragment 0 of length 7, fragment K of 6, reliable of 5, unreliable of 3', () => {
    const d = okDecode(decodeDatagram(hex('02 04 32 07 A0 02 00 00 03 32 06 A0 02 00 01 32 05 80 09 00 32 03 00')));
    expect(d.messages.map((m) => [m.offset, m.size, asData(m).payload.length])).toEqual([
      [2, 7, 0],
      [9, 6, 0],
      [15, 5, 0],
      [20, 3, 0],
    ]);
  });
});

describe('decode: length past the end', () => {
  it('27-byte message with only 6 bytes left', () => {
    const f = decodeFails(hex('01 01 32 1B 80 00 00 01'), 'length-past-end', 2);
    expect(f.partial.messages).toEqual([]);
  });

  it('one byte short, after a good message', () => {
    const good = hex('03 06 C0 00 00 02');
    const bad = concat(hex('32 1B 80 00 00'), filler(21));
    const f = decodeFails(concat([1, 2], good, bad), 'length-past-end', 8);
    expect(located(f)).toEqual([[2, 6, 0x03]]);
    // Exactly the right length decodes.
    okDecode(decodeDatagram(concat([1, 2], good, bad, [0])));
  });

  it('truncated data header (2 of 3 bytes): truncated-message', () => {
    decodeFails(hex('01 01 32 1B'), 'truncated-message', 2);
    decodeFails(hex('01 01 00'), 'truncated-message', 2);
  });
});

describe('decode: msg_count promises more than the bytes hold', () => {
  it('3 promised, 2 present: missing-messages at the end, the 2 in partial', () => {
    const bytes = hex('01 03 01 05 00 00 01 06 00 00');
    const f = decodeFails(bytes, 'missing-messages', bytes.length);
    expect(located(f)).toEqual([
      [2, 4, 1],
      [6, 4, 1],
    ]);
    expect(f.partial.messageCount).toBe(3);
  });

  it('1 promised, none present', () => {
    decodeFails(hex('01 01'), 'missing-messages', 2);
  });

  it('255 promised, 1 present', () => {
    const f = decodeFails(hex('01 FF 32 03 00'), 'missing-messages', 5);
    expect(located(f)).toEqual([[2, 3, 0x32]]);
  });
});

describe('decode: trailing bytes', () => {
  it('one stray byte after the last message', () => {
    const f = decodeFails(hex('01 01 01 05 00 00 FF'), 'trailing-bytes', 6);
    expect(located(f)).toEqual([[2, 4, 1]]);
  });

  it('msg_count 0 with a message after it', () => {
    const f = decodeFails(hex('01 00 01 05 00 00'), 'trailing-bytes', 2);
    expect(f.partial.messages).toEqual([]);
    expect(f.partial.messageCount).toBe(0);
  });

  it('decodeMessage: trailing bytes after a single message, at its size', () => {
    const r = decodeMessage(hex('01 05 00 00 00'));
    expect(r.ok).toBe(false);
    if (!r.ok) expect([r.error.code, r.error.offset]).toEqual(['trailing-bytes', 4]);
  });
});

describe('decode: unknown type byte', () => {
  for (const type of [0x06, 0x31, 0x33, 0xff, 0x10, 0x80]) {
    it(`0x${type.toString(16).padStart(2, '0')} as the first message`, () => {
      const f = decodeFails(concat([1, 1, type], hex('1B 80 00 00')), 'unknown-type', 2);
      expect(f.partial.messages).toEqual([]);
    });
  }

  it('0x33 after two good messages: offset of the bad type byte, the good ones in partial', () => {
    const f = decodeFails(hex('02 03 32 03 00 01 01 00 00 33 03 00'), 'unknown-type', 9);
    expect(located(f)).toEqual([
      [2, 3, 0x32],
      [5, 4, 0x01],
    ]);
  });
});

describe('decode: truncated ACK', () => {
  it('ACK with 3 bytes', () => {
    decodeFails(hex('01 01 01 05 00'), 'truncated-message', 2);
  });

  it('fragment ACK (flags bit 0) with only 4 bytes', () => {
    const f = decodeFails(hex('01 02 01 07 00 00 01 02 00 01'), 'truncated-message', 6);
    expect(located(f)).toEqual([[2, 4, 1]]);
  });

  it('the same 4 bytes are a complete ACK when flags bit 0 is clear', () => {
    okDecode(decodeDatagram(hex('01 01 01 02 00 02')));
  });
});

describe('decode: payload is a view inside the input, never past the message', () => {
  it('payload ends exactly at offset + size', () => {
    const bytes = hex('01 02 32 06 00 AA BB CC 01 05 00 00');
    const m = asData(okDecode(decodeDatagram(bytes)).messages[0]);
    expect(arr(m.payload)).toEqual([0xaa, 0xbb, 0xcc]);
    expect(m.payload.byteOffset - bytes.byteOffset + m.payload.length).toBe(m.offset + m.size);
  });
});

// ---------------------------------------------------------------------------

function encodeFails(result: EncodeResult, code: EncodeErrorCode, messageIndex: number | null): void {
  if (result.ok) throw new Error(`expected ${code}, but encoded to ${toHex(result.bytes)}`);
  expect({ code: result.error.code, messageIndex: result.error.messageIndex }).toEqual({ code, messageIndex });
  expect(result.error.reason.length).toBeGreaterThan(0);
}

const reliableGame = (totalLength: number) =>
  dataMsg({ reliable: true, seq: 1, payload: new Uint8Array(totalLength - 5) });
const reliableGeneric = (totalLength: number) =>
  dataMsg({ type: 0x00, reliable: true, seq: 1, payload: new Uint8Array(totalLength - 5) });

describe('encode refusals: lengths', () => {
  it('0x32 total length 8192 is refused; 8191 is accepted as flags_len 0x9FFF and decodes back, unfragmented', () => {
    expect(MAX_GAME_MESSAGE_BYTES).toBe(8191);
    encodeFails(encodeMessage(reliableGame(8192)), 'length-overflow', null);
    const bytes = okBytes(encodeMessage(reliableGame(8191)));
    expect(bytes.length).toBe(8191);
    expect(toHex(bytes.subarray(0, 3))).toBe('32 FF 9F');
    const r = decodeMessage(bytes);
    expect(r.ok).toBe(true);
    if (r.ok)
      expect([r.message.size, asData(r.message).fragment, asData(r.message).payload.length]).toEqual([
        8191,
        false,
        8186,
      ]);
  });

  it('0x32 fragment: 8192 refused, 8191 accepted (flags_len 0xBFFF)', () => {
    const frag = (total: number) =>
      dataMsg({
        reliable: true,
        fragment: true,
        seq: 1,
        fragIndex: 0,
        fragCount: 2,
        payload: new Uint8Array(total - 7),
      });
    encodeFails(encodeMessage(frag(8192)), 'length-overflow', null);
    expect(toHex(okBytes(encodeMessage(frag(8191))).subarray(0, 3))).toBe('32 FF BF');
  });

  it('generic total length 16384 is refused; 16383 is accepted as flags_len 0xBFFF, no fragment', () => {
    expect(MAX_GENERIC_MESSAGE_BYTES).toBe(16383);
    encodeFails(encodeMessage(reliableGeneric(16384)), 'length-overflow', null);
    const bytes = okBytes(encodeMessage(reliableGeneric(16383)));
    expect(bytes.length).toBe(16383);
    expect(toHex(bytes.subarray(0, 3))).toBe('00 FF BF');
    const r = decodeMessage(bytes);
    expect(r.ok).toBe(true);
    if (r.ok)
      expect([r.message.size, asData(r.message).fragment, asData(r.message).reliable]).toEqual([16383, false, true]);
  });

  it('in a datagram the length overflow is reported for the offending message index', () => {
    encodeFails(encodeDatagram({ peerId: 1, messages: [ackMsg(1, 0), reliableGame(8192)] }), 'length-overflow', 1);
  });
});

describe('encode refusals: field ranges and presence', () => {
  it('fragIndex 256 on a fragment', () => {
    encodeFails(
      encodeMessage(dataMsg({ reliable: true, fragment: true, seq: 1, fragIndex: 256, payload: hex('00') })),
      'field-range',
      null,
    );
    okBytes(encodeMessage(dataMsg({ reliable: true, fragment: true, seq: 1, fragIndex: 255, payload: hex('00') })));
  });

  it('fragIndex 256 on a fragment ACK', () => {
    encodeFails(encodeMessage(ackMsg(1, 0x01, 256)), 'field-range', null);
    expect(toHex(okBytes(encodeMessage(ackMsg(1, 0x01, 255))))).toBe('01 01 00 01 FF');
  });

  it('fragCount 256 on fragment 0', () => {
    encodeFails(
      encodeMessage(dataMsg({ reliable: true, fragment: true, seq: 1, fragIndex: 0, fragCount: 256 })),
      'field-range',
      null,
    );
  });

  it('seq 65536 (and -1, 1.5) on a data message and on an ACK; 65535 accepted', () => {
    for (const seq of [65536, -1, 1.5]) {
      encodeFails(encodeMessage(dataMsg({ reliable: true, seq })), 'field-range', null);
      encodeFails(encodeMessage(ackMsg(seq, 0)), 'field-range', null);
    }
    expect(toHex(okBytes(encodeMessage(dataMsg({ reliable: true, seq: 65535 }))))).toBe('32 05 80 FF FF');
  });

  it('fragment on type 0x00 (and 0x02–0x05)', () => {
    for (const type of [0x00, 0x02, 0x03, 0x04, 0x05] as const) {
      encodeFails(
        encodeMessage(dataMsg({ type, reliable: true, fragment: true, seq: 1, fragIndex: 0, fragCount: 1 })),
        'fragment-not-supported',
        null,
      );
    }
  });

  it('seq given on an unreliable message; seq missing on a reliable one', () => {
    encodeFails(encodeMessage(dataMsg({ reliable: false, seq: 3 })), 'field-presence', null);
    encodeFails(encodeMessage(dataMsg({ reliable: true, seq: null })), 'field-presence', null);
  });

  it('ACK without a seq (a caller bypassing the types) is refused, not written as seq 0', () => {
    encodeFails(
      encodeMessage({ type: 1, seq: null, flags: 0, fragIndex: null } as unknown as AckMessage),
      'field-presence',
      null,
    );
  });

  it('ACK with flags bit 0 but fragIndex null; ACK with fragIndex but bit 0 clear', () => {
    encodeFails(encodeMessage(ackMsg(2, 0x01, null)), 'field-presence', null);
    encodeFails(encodeMessage(ackMsg(2, 0x02, 1)), 'field-presence', null);
  });

  it('ACK flags must be a u8', () => {
    encodeFails(encodeMessage(ackMsg(2, 0x100)), 'field-range', null);
  });

  it('fragIndex/fragCount on a non-fragment, fragCount on fragment K', () => {
    encodeFails(encodeMessage(dataMsg({ fragIndex: 0 })), 'field-presence', null);
    encodeFails(encodeMessage(dataMsg({ fragCount: 3 })), 'field-presence', null);
    encodeFails(
      encodeMessage(dataMsg({ reliable: true, seq: 1, fragment: true, fragIndex: 2, fragCount: 3 })),
      'field-presence',
      null,
    );
  });

  it('unknown type byte', () => {
    encodeFails(encodeMessage({ ...dataMsg(), type: 0x06 } as unknown as Message), 'unknown-type', null);
    encodeFails(encodeMessage({ ...dataMsg(), type: 0x33 } as unknown as Message), 'unknown-type', null);
  });

  it('peer id outside u8', () => {
    encodeFails(encodeDatagram({ peerId: 256, messages: [] }), 'field-range', null);
    encodeFails(encodeDatagram({ peerId: -1, messages: [] }), 'field-range', null);
  });
});

describe('encode refusals: datagram limits', () => {
  /** One unreliable 0x32 message of `total` bytes (3-byte header). */
  const game = (total: number) => dataMsg({ payload: filler(total - 3) });

  it('513 bytes refused; exactly 512 accepted', () => {
    expect(MAX_DATAGRAM_BYTES).toBe(512);
    encodeFails(encodeDatagram({ peerId: 1, messages: [game(511)] }), 'datagram-too-large', null);
    const bytes = okBytes(encodeDatagram({ peerId: 1, messages: [game(510)] }));
    expect(bytes.length).toBe(512);
    expect(toHex(bytes.subarray(0, 5))).toBe('01 01 32 FE 01');
    // Mixed: 2 + 5 + 505 = 512.
    expect(okBytes(encodeDatagram({ peerId: 1, messages: [ackMsg(1, 1, 0), game(505)] })).length).toBe(512);
    encodeFails(encodeDatagram({ peerId: 1, messages: [ackMsg(1, 1, 0), game(506)] }), 'datagram-too-large', null);
  });

  it('256 messages refused as too-many-messages', () => {
    expect(MAX_MESSAGES_PER_DATAGRAM).toBe(255);
    const acks: AckMessage[] = Array.from({ length: 256 }, (_, i) => ackMsg(i, 0));
    encodeFails(encodeDatagram({ peerId: 1, messages: acks }), 'too-many-messages', null);
  });

  it('255 messages pass the count limit (they fail only on size: 255 × ≥3 bytes > 512)', () => {
    const tiny = Array.from({ length: 255 }, () => game(3));
    encodeFails(encodeDatagram({ peerId: 1, messages: tiny }), 'datagram-too-large', null);
    // The decoder has no size limit and takes a 255-message datagram (767 bytes).
    const bytes = concat([1, 255], ...tiny.map(() => [0x32, 0x03, 0x00]));
    const d = okDecode(decodeDatagram(bytes));
    expect(d.messageCount).toBe(255);
    expect(d.messages).toHaveLength(255);
    expect(d.messages[254].offset).toBe(2 + 254 * 3);
  });

  it('the real ceiling under 512 bytes is 170 three-byte messages, and that is accepted', () => {
    const tiny = Array.from({ length: 170 }, () => game(3));
    const bytes = okBytes(encodeDatagram({ peerId: 1, messages: tiny }));
    expect(bytes.length).toBe(512);
    expect(bytes[1]).toBe(170);
    encodeFails(encodeDatagram({ peerId: 1, messages: [...tiny, game(3)] }), 'datagram-too-large', null);
  });

  it('a message error is reported before the datagram size, with its index', () => {
    encodeFails(
      encodeDatagram({ peerId: 1, messages: [game(300), game(300), ackMsg(1, 0x01, null)] }),
      'field-presence',
      2,
    );
  });
});
