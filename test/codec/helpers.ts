// Small helpers shared by the codec tests (not a test file itself).
import { parseHex } from '../../src/core/codec/index.js';
import type {
  AckMessage,
  DataMessage,
  DataType,
  DecodeResult,
  DecodedDatagram,
  EncodeResult,
  Located,
  Message,
} from '../../src/core/codec/index.js';

/** Hex text to bytes; throws on bad input so a typo in a test fails loudly. */
export function hex(text: string): Uint8Array {
  const parsed = parseHex(text);
  if (!parsed.ok) throw new Error(`bad hex in test: ${parsed.reason} at ${parsed.offset}`);
  return parsed.bytes;
}

/** Deterministic filler bytes, different for different seeds. */
export function filler(length: number, seed = 0): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = (i * 7 + seed * 31 + 3) & 0xff;
  return out;
}

export function concat(...parts: ArrayLike<number>[]): Uint8Array {
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(total);
  let pos = 0;
  for (const p of parts) {
    out.set(p, pos);
    pos += p.length;
  }
  return out;
}

export const arr = (bytes: Uint8Array): number[] => Array.from(bytes);

export function okDecode(result: DecodeResult): DecodedDatagram {
  if (!result.ok)
    throw new Error(`expected ok decode, got ${result.error.code} at ${result.error.offset}: ${result.error.reason}`);
  return result.datagram;
}

export function okBytes(result: EncodeResult): Uint8Array {
  if (!result.ok)
    throw new Error(
      `expected ok encode, got ${result.error.code} (message ${result.error.messageIndex}): ${result.error.reason}`,
    );
  return result.bytes;
}

export function asData<M extends Message>(m: M): Exclude<M, AckMessage> & DataMessage {
  if (m.type === 0x01) throw new Error('expected a data message, got an ACK');
  return m as Exclude<M, AckMessage> & DataMessage;
}

export function asAck(m: Message | Located): AckMessage & Partial<{ offset: number; size: number }> {
  if (m.type !== 0x01) throw new Error(`expected an ACK, got type 0x${m.type.toString(16)}`);
  return m as AckMessage;
}

/** A data message with defaults: unreliable, unordered, unfragmented, empty payload. */
export function dataMsg(fields: Partial<DataMessage> & { type?: DataType } = {}): DataMessage {
  return {
    type: 0x32,
    reliable: false,
    ordered: false,
    fragment: false,
    seq: null,
    fragIndex: null,
    fragCount: null,
    payload: new Uint8Array(0),
    ...fields,
  };
}

export function ackMsg(seq: number, flags: number, fragIndex: number | null = null): AckMessage {
  return { type: 0x01, seq, flags, fragIndex };
}
