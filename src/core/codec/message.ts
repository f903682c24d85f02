// Single-message encoding and decoding (transport-layer.md §3, docs/sources.md 2–4).
// Pure functions over Uint8Array; decoding never throws and never reads past `end`.
import {
  FLAG_FRAGMENT,
  FLAG_ORDERED,
  FLAG_RELIABLE,
  GAME_LENGTH_MASK,
  GENERIC_LENGTH_MASK,
  MAX_GAME_MESSAGE_BYTES,
  MAX_GENERIC_MESSAGE_BYTES,
  TYPE_ACK,
  TYPE_GAME,
  TYPE_NAMES,
  isKnownType,
} from './constants.js';
import type { AckMessage, DataMessage, DecodeError, EncodeError, Located, Message } from './types.js';
import { ACK_BYTES, DATA_HEADER_BYTES, FRAGMENT_ACK_BYTES, ackBytesOfFlags, ackFlagsFragment } from './wire.js';

/** Header bytes of a data message before its payload. */
export function dataHeaderBytes(reliable: boolean, fragment: boolean, fragIndex: number | null): number {
  return DATA_HEADER_BYTES + (reliable ? 2 : 0) + (fragment ? (fragIndex === 0 ? 2 : 1) : 0);
}

/** Bytes the message occupies on the wire; the send cycle packs datagrams with it. */
export function messageSize(message: Message): number {
  if (message.type === TYPE_ACK) return ackBytesOfFlags(message.flags);
  return dataHeaderBytes(message.reliable, message.fragment, message.fragIndex) + message.payload.length;
}

/** Checks that a message can be represented on the wire. Returns null when it can. */
export function validateMessage(message: Message, messageIndex: number | null = null): EncodeError | null {
  const fail = (code: EncodeError['code'], reason: string): EncodeError => ({ code, messageIndex, reason });
  if (!isKnownType(message.type))
    return fail('unknown-type', `type 0x${hex2(message.type)} is not a transport message type`);
  if (!isU16(message.seq)) return fail('field-range', `seq ${String(message.seq)} is not a u16`);
  if (message.type === TYPE_ACK) {
    if (message.seq === null) return fail('field-presence', 'an ack needs a seq');
    if (!isU8(message.flags)) return fail('field-range', `ack flags ${message.flags} is not a u8`);
    const fragment = ackFlagsFragment(message.flags);
    if (fragment && message.fragIndex === null) return fail('field-presence', 'fragment ack needs a fragIndex');
    if (!fragment && message.fragIndex !== null) return fail('field-presence', 'fragIndex given on a non-fragment ack');
    if (fragment && !isU8(message.fragIndex)) return fail('field-range', `fragIndex ${message.fragIndex} is over 255`);
    return null;
  }
  if (message.reliable !== (message.seq !== null))
    return fail('field-presence', 'seq must be present exactly when reliable');
  if (message.fragment && message.type !== TYPE_GAME) {
    return fail(
      'fragment-not-supported',
      `type ${TYPE_NAMES[message.type]} (0x${hex2(message.type)}) has no fragment support`,
    );
  }
  if (message.fragment) {
    if (message.fragIndex === null || !isU8(message.fragIndex)) {
      return fail('field-range', `fragIndex ${String(message.fragIndex)} is not in 0..255`);
    }
    if (message.fragIndex === 0 && (message.fragCount === null || !isU8(message.fragCount))) {
      return fail('field-range', `fragCount ${String(message.fragCount)} is not in 0..255`);
    }
    if (message.fragIndex !== 0 && message.fragCount !== null)
      return fail('field-presence', 'fragCount is carried only by fragment 0');
  } else if (message.fragIndex !== null || message.fragCount !== null) {
    return fail('field-presence', 'fragIndex/fragCount given on a non-fragment message');
  }
  const size = messageSize(message);
  const limit = message.type === TYPE_GAME ? MAX_GAME_MESSAGE_BYTES : MAX_GENERIC_MESSAGE_BYTES;
  if (size > limit)
    return fail('length-overflow', `total length ${size} exceeds ${limit} for type 0x${hex2(message.type)}`);
  return null;
}

/**
 * Writes a message that validateMessage accepted at `offset`; returns the new offset.
 * The caller guarantees room (messageSize) in `buf`.
 */
export function writeMessage(buf: Uint8Array, offset: number, message: Message): number {
  let pos = offset;
  buf[pos++] = message.type;
  if (message.type === TYPE_ACK) {
    buf[pos++] = message.seq & 0xff;
    buf[pos++] = message.seq >>> 8;
    buf[pos++] = message.flags;
    if (ackFlagsFragment(message.flags)) buf[pos++] = message.fragIndex as number;
    return pos;
  }
  const size = dataHeaderBytes(message.reliable, message.fragment, message.fragIndex) + message.payload.length;
  const flagsLen =
    (message.reliable ? FLAG_RELIABLE : 0) |
    (message.ordered ? FLAG_ORDERED : 0) |
    (message.fragment ? FLAG_FRAGMENT : 0) |
    size;
  buf[pos++] = flagsLen & 0xff;
  buf[pos++] = flagsLen >>> 8;
  if (message.reliable) {
    const seq = message.seq as number;
    buf[pos++] = seq & 0xff;
    buf[pos++] = seq >>> 8;
  }
  if (message.fragment) {
    buf[pos++] = message.fragIndex as number;
    if (message.fragIndex === 0) buf[pos++] = message.fragCount as number;
  }
  const payload = message.payload;
  const n = payload.length;
  // TypedArray.set has a fixed cost that dominates for the usual 10–30 byte payloads.
  if (n <= 64) for (let i = 0; i < n; i++) buf[pos + i] = payload[i];
  else buf.set(payload, pos);
  return pos + n;
}

/** A message, or why none could be read (no wrapper object: this runs per message). */
export type ReadResult = Located | DecodeError;

export function isDecodeError(result: ReadResult): result is DecodeError {
  return (result as DecodeError).reason !== undefined;
}

/**
 * One message's fields as read from the wire, into a caller-owned object that is
 * reused from message to message: the receive path reads unreliable messages and
 * ACKs without allocating. `flags` is the ACK's flags byte (0 for data);
 * the payload is bytes [payloadStart, offset + size).
 */
export interface MessageHeader {
  type: number;
  reliable: boolean;
  ordered: boolean;
  fragment: boolean;
  seq: number | null;
  flags: number;
  fragIndex: number | null;
  fragCount: number | null;
  offset: number;
  size: number;
  payloadStart: number;
}

export function newMessageHeader(): MessageHeader {
  return {
    type: 0,
    reliable: false,
    ordered: false,
    fragment: false,
    seq: null,
    flags: 0,
    fragIndex: null,
    fragCount: null,
    offset: 0,
    size: 0,
    payloadStart: 0,
  };
}

/**
 * Reads one message's header starting at `offset` into `into`, never looking at
 * bytes at or past `end`. Returns null, or why no message could be read (then
 * `into` holds garbage).
 */
export function readHeader(bytes: Uint8Array, offset: number, end: number, into: MessageHeader): DecodeError | null {
  return readFields(bytes, offset, end, into) ? null : headerError(bytes, offset, end);
}

/**
 * readHeader's checks and reads without its reasons: a reason built in several
 * branches from one number was compiled as one conversion hoisted above them all,
 * paid on every message read. The reasons are headerError's, from one call site.
 */
function readFields(bytes: Uint8Array, offset: number, end: number, into: MessageHeader): boolean {
  if (offset >= end) return false;
  const type = bytes[offset];
  if (!isKnownType(type)) return false;
  const remaining = end - offset;
  into.type = type;
  into.offset = offset;

  if (type === TYPE_ACK) {
    if (remaining < ACK_BYTES) return false;
    const flags = bytes[offset + 3];
    const fragment = ackFlagsFragment(flags);
    if (fragment && remaining < FRAGMENT_ACK_BYTES) return false;
    into.seq = bytes[offset + 1] | (bytes[offset + 2] << 8);
    into.flags = flags;
    into.fragIndex = fragment ? bytes[offset + 4] : null;
    into.size = fragment ? FRAGMENT_ACK_BYTES : ACK_BYTES;
    into.payloadStart = offset + into.size;
    return true;
  }

  if (remaining < 3) return false;
  const flagsLen = bytes[offset + 1] | (bytes[offset + 2] << 8);
  const isGame = type === TYPE_GAME;
  const reliable = (flagsLen & FLAG_RELIABLE) !== 0;
  const fragment = isGame && (flagsLen & FLAG_FRAGMENT) !== 0;
  const size = flagsLen & (isGame ? GAME_LENGTH_MASK : GENERIC_LENGTH_MASK);
  if (size > remaining) return false;

  let pos = offset + 3;
  // Fixed header part, before we may read frag_idx.
  const fixedHeader = dataHeaderBytes(reliable, fragment, fragment ? 1 : null);
  if (size < fixedHeader) return false;
  let seq: number | null = null;
  if (reliable) {
    seq = bytes[pos] | (bytes[pos + 1] << 8);
    pos += 2;
  }
  let fragIndex: number | null = null;
  let fragCount: number | null = null;
  if (fragment) {
    fragIndex = bytes[pos++];
    if (fragIndex === 0) {
      if (size < fixedHeader + 1) return false;
      fragCount = bytes[pos++];
    }
  }
  into.reliable = reliable;
  into.ordered = (flagsLen & FLAG_ORDERED) !== 0;
  into.fragment = fragment;
  into.seq = seq;
  into.flags = 0;
  into.fragIndex = fragIndex;
  into.fragCount = fragCount;
  into.size = size;
  into.payloadStart = pos;
  return true;
}

/** Why readFields refused the message at `offset`: its checks again, in its order, with their reasons. */
function headerError(bytes: Uint8Array, offset: number, end: number): DecodeError {
  if (offset >= end) return fail('missing-messages', offset, 'no bytes left for this message');
  const type = bytes[offset];
  if (!isKnownType(type)) return fail('unknown-type', offset, `unknown message type 0x${hex2(type)}`);
  const remaining = end - offset;
  if (type === TYPE_ACK) {
    if (remaining < ACK_BYTES) return fail('truncated-message', offset, `ack needs 4 bytes, ${remaining} remain`);
    return fail('truncated-message', offset, `fragment ack needs 5 bytes, ${remaining} remain`);
  }
  if (remaining < 3) return fail('truncated-message', offset, `message header needs 3 bytes, ${remaining} remain`);
  const flagsLen = bytes[offset + 1] | (bytes[offset + 2] << 8);
  const isGame = type === TYPE_GAME;
  const fragment = isGame && (flagsLen & FLAG_FRAGMENT) !== 0;
  const size = flagsLen & (isGame ? GAME_LENGTH_MASK : GENERIC_LENGTH_MASK);
  if (size > remaining)
    return fail('length-past-end', offset, `length ${size} runs past the end (${remaining} bytes remain)`);
  const fixedHeader = dataHeaderBytes((flagsLen & FLAG_RELIABLE) !== 0, fragment, fragment ? 1 : null);
  if (size < fixedHeader)
    return fail('length-below-header', offset, `length ${size} is smaller than its ${fixedHeader}-byte header`);
  return fail('length-below-header', offset, `length ${size} is smaller than its ${fixedHeader + 1}-byte header`);
}

/** The message `header` describes, as its own object; a data payload is a view into `bytes`. */
export function messageOf(bytes: Uint8Array, header: MessageHeader): Located {
  if (header.type === TYPE_ACK) {
    const ack: Located<AckMessage> = {
      type: TYPE_ACK,
      seq: header.seq as number,
      flags: header.flags,
      fragIndex: header.fragIndex,
      offset: header.offset,
      size: header.size,
    };
    return ack;
  }
  const message: Located<DataMessage> = {
    type: header.type as DataMessage['type'],
    reliable: header.reliable,
    ordered: header.ordered,
    fragment: header.fragment,
    seq: header.seq,
    fragIndex: header.fragIndex,
    fragCount: header.fragCount,
    payload: bytes.subarray(header.payloadStart, header.offset + header.size),
    offset: header.offset,
    size: header.size,
  };
  return message;
}

const scratch = newMessageHeader();

/**
 * Reads one message starting at `offset`, never looking at bytes at or past `end`.
 * The payload is a view into `bytes`, not a copy.
 */
export function readMessage(bytes: Uint8Array, offset: number, end: number): ReadResult {
  const error = readHeader(bytes, offset, end, scratch);
  return error !== null ? error : messageOf(bytes, scratch);
}

function fail(code: DecodeError['code'], at: number, reason: string): DecodeError {
  return { code, offset: at, reason };
}

function isU8(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 0xff;
}

function isU16(value: unknown): boolean {
  return value === null || (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 0xffff);
}

export function hex2(value: number): string {
  return (value & 0xff).toString(16).padStart(2, '0').toUpperCase();
}
