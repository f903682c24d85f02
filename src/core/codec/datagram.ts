// Whole-datagram encoding and decoding: [peer_id][msg_count][messages…]
// (transport-layer.md §1, docs/sources.md 5).
import { DATAGRAM_HEADER_BYTES, MAX_DATAGRAM_BYTES, MAX_MESSAGES_PER_DATAGRAM } from './constants.js';
import {
  isDecodeError,
  messageOf,
  messageSize,
  newMessageHeader,
  readHeader,
  readMessage,
  validateMessage,
  writeMessage,
} from './message.js';
import type { MessageHeader } from './message.js';
import type { Datagram, DecodeError, DecodeResult, EncodeResult, Located, Message } from './types.js';

/** Encodes a datagram, refusing anything the stock engine could not put on the wire. */
export function encodeDatagram(datagram: Datagram): EncodeResult {
  const { peerId, messages } = datagram;
  if (!Number.isInteger(peerId) || peerId < 0 || peerId > 0xff) {
    return { ok: false, error: { code: 'field-range', messageIndex: null, reason: `peer id ${peerId} is not a u8` } };
  }
  if (messages.length > MAX_MESSAGES_PER_DATAGRAM) {
    return {
      ok: false,
      error: {
        code: 'too-many-messages',
        messageIndex: null,
        reason: `${messages.length} messages exceed ${MAX_MESSAGES_PER_DATAGRAM}`,
      },
    };
  }
  let total = DATAGRAM_HEADER_BYTES;
  for (let i = 0; i < messages.length; i++) {
    const error = validateMessage(messages[i], i);
    if (error !== null) return { ok: false, error };
    total += messageSize(messages[i]);
  }
  if (total > MAX_DATAGRAM_BYTES) {
    return {
      ok: false,
      error: { code: 'datagram-too-large', messageIndex: null, reason: `${total} bytes exceed ${MAX_DATAGRAM_BYTES}` },
    };
  }
  const bytes = new Uint8Array(total);
  bytes[0] = peerId;
  bytes[1] = messages.length;
  let pos = DATAGRAM_HEADER_BYTES;
  for (const message of messages) pos = writeMessage(bytes, pos, message);
  return { ok: true, bytes };
}

/**
 * Writes a datagram of messages already checked by validateMessage into `buf` at
 * `offset`; returns the end offset. The caller sized it with messageSize and
 * keeps the 512-byte and 255-message limits (the check below guards its sums).
 * The transport's hot path uses it to pack many datagrams into one slab, from
 * the first `count` items of a reused list.
 */
export function writeDatagram(
  buf: Uint8Array,
  offset: number,
  peerId: number,
  messages: readonly Message[],
  totalBytes: number,
  count = messages.length,
): number {
  const listed = count >= 0 && count <= messages.length;
  let pos = offset + DATAGRAM_HEADER_BYTES;
  if (listed) {
    buf[offset] = peerId;
    buf[offset + 1] = count;
    for (let i = 0; i < count; i++) pos = writeMessage(buf, pos, messages[i]);
  }
  // One throw for every check: reasons built in two branches from one number were
  // compiled as a conversion above both, paid on every datagram.
  if (!listed || pos - offset !== totalBytes || totalBytes > MAX_DATAGRAM_BYTES || count > MAX_MESSAGES_PER_DATAGRAM)
    throw new Error(writeErrorReason(listed, count, messages.length, pos - offset, totalBytes));
  return pos;
}

function writeErrorReason(
  listed: boolean,
  count: number,
  listLength: number,
  written: number,
  totalBytes: number,
): string {
  return listed
    ? `codec: datagram of ${count} messages is ${written} bytes, expected ${totalBytes}`
    : `codec: ${count} messages asked of a list of ${listLength}`;
}

/** Encodes a single message on its own (no datagram header). */
export function encodeMessage(message: Message): EncodeResult {
  const error = validateMessage(message);
  if (error !== null) return { ok: false, error };
  const bytes = new Uint8Array(messageSize(message));
  writeMessage(bytes, 0, message);
  return { ok: true, bytes };
}

/** Decodes a single message that fills `bytes` exactly. */
export function decodeMessage(bytes: Uint8Array): { ok: true; message: Located } | { ok: false; error: DecodeError } {
  const read = readMessage(bytes, 0, bytes.length);
  if (isDecodeError(read)) return { ok: false, error: read };
  if (read.size !== bytes.length) {
    return {
      ok: false,
      error: {
        code: 'trailing-bytes',
        offset: read.size,
        reason: `${bytes.length - read.size} bytes after the message`,
      },
    };
  }
  return { ok: true, message: read };
}

/**
 * Reads a datagram's messages in order into `header`, calling `each` after each
 * one (null: only check). Returns the first problem, or null when every message
 * reads and the bytes end with the last. Allocates nothing on a good datagram.
 */
export function walkDatagram(
  bytes: Uint8Array,
  header: MessageHeader,
  each: ((header: MessageHeader) => void) | null,
): DecodeError | null {
  if (bytes.length < DATAGRAM_HEADER_BYTES) return truncatedHeader(bytes);
  const messageCount = bytes[1];
  let pos = DATAGRAM_HEADER_BYTES;
  for (let i = 0; i < messageCount; i++) {
    if (pos >= bytes.length) return missingMessages(pos, messageCount, i);
    const error = readHeader(bytes, pos, bytes.length, header);
    if (error !== null) return error;
    if (each !== null) each(header);
    pos += header.size;
  }
  return pos === bytes.length ? null : trailingBytes(bytes, pos, messageCount);
}

/**
 * Like walkDatagram, but message i's header goes into `headers[i]` (grown as
 * needed, at most 255): one read of a datagram serves both its check and its
 * messages. On null, the first messageCountOf(bytes) headers are the datagram's.
 */
export function readHeaders(bytes: Uint8Array, headers: MessageHeader[]): DecodeError | null {
  if (bytes.length < DATAGRAM_HEADER_BYTES) return truncatedHeader(bytes);
  const messageCount = bytes[1];
  while (headers.length < messageCount) headers.push(newMessageHeader());
  let pos = DATAGRAM_HEADER_BYTES;
  for (let i = 0; i < messageCount; i++) {
    if (pos >= bytes.length) return missingMessages(pos, messageCount, i);
    const header = headers[i];
    const error = readHeader(bytes, pos, bytes.length, header);
    if (error !== null) return error;
    pos += header.size;
  }
  return pos === bytes.length ? null : trailingBytes(bytes, pos, messageCount);
}

function truncatedHeader(bytes: Uint8Array): DecodeError {
  return {
    code: 'truncated-header',
    offset: bytes.length,
    reason: `datagram header needs 2 bytes, got ${bytes.length}`,
  };
}

function missingMessages(pos: number, messageCount: number, read: number): DecodeError {
  return {
    code: 'missing-messages',
    offset: pos,
    reason: `msg_count is ${messageCount} but the bytes hold only ${read} messages`,
  };
}

function trailingBytes(bytes: Uint8Array, pos: number, messageCount: number): DecodeError {
  return {
    code: 'trailing-bytes',
    offset: pos,
    reason: `${bytes.length - pos} trailing bytes after ${messageCount} messages`,
  };
}

/**
 * Decodes a datagram. Never throws; a malformed datagram yields a typed error with
 * the byte offset, plus whatever decoded before it. Datagrams larger than 512 bytes
 * are decoded all the same: the size limit is the sender's to keep.
 */
export function decodeDatagram(bytes: Uint8Array): DecodeResult {
  const messages: Located[] = [];
  const error = walkDatagram(bytes, newMessageHeader(), (header) => messages.push(messageOf(bytes, header)));
  if (error !== null) {
    const partial = {
      peerId: bytes.length > 0 ? bytes[0] : null,
      messageCount: bytes.length >= DATAGRAM_HEADER_BYTES ? bytes[1] : null,
      messages,
    };
    return { ok: false, error, partial };
  }
  return { ok: true, datagram: { peerId: bytes[0], messageCount: bytes[1], messages } };
}
