// The capture's hot path reads datagrams without building message objects: a
// large capture holds millions of messages, and the codec's decodeDatagram
// allocates a Located object and a payload view for each. `datagramMessages`
// accepts exactly the datagrams decodeDatagram accepts (codec/datagram.ts and
// codec/message.ts `readMessage`: the same checks in the same order; the tests
// hold the two together on random and real bytes) and allocates nothing.
// Whoever needs the messages themselves (decode --pcap) asks the codec.
import {
  ACK_BYTES,
  DATAGRAM_HEADER_BYTES,
  DATA_HEADER_BYTES,
  FRAGMENT_ACK_BYTES,
  PEER_ID_FIRST_CLIENT,
  PEER_ID_UNASSIGNED,
  TYPE_ACK,
  TYPE_CONNECT_ACK,
  ackFlagsAt,
  ackFlagsFragment,
  afterSeqOffset,
  dataHeaderBytes,
  flagsLenAt,
  flagsLenFragment,
  flagsLenReliable,
  flagsLenSize,
  isKnownType,
  messageCountOf,
} from '../../core/codec/index.js';

/**
 * The number of messages of the plaintext datagram in bytes[0, end), or -1
 * when the codec would reject it (truncated header or message, unknown type,
 * a length below its header or past the end, fewer messages than msg_count,
 * trailing bytes).
 */
export function datagramMessages(bytes: Uint8Array, end: number = bytes.length): number {
  if (end < DATAGRAM_HEADER_BYTES) return -1;
  const count = messageCountOf(bytes);
  let pos = DATAGRAM_HEADER_BYTES;
  for (let i = 0; i < count; i++) {
    if (pos >= end) return -1;
    const size = messageSizeAt(bytes, pos, end);
    if (size < 0) return -1;
    pos += size;
  }
  return pos === end ? count : -1;
}

/** The size of the message at `offset` (reading nothing at or past `end`), or -1 if it is malformed. */
export function messageSizeAt(bytes: Uint8Array, offset: number, end: number): number {
  const type = bytes[offset];
  const remaining = end - offset;
  if (type === TYPE_ACK) {
    if (remaining < ACK_BYTES) return -1;
    if (!ackFlagsFragment(ackFlagsAt(bytes, offset))) return ACK_BYTES;
    return remaining < FRAGMENT_ACK_BYTES ? -1 : FRAGMENT_ACK_BYTES;
  }
  if (!isKnownType(type)) return -1; // known types: 0x00..0x05 and 0x32
  if (remaining < DATA_HEADER_BYTES) return -1;
  const flagsLen = flagsLenAt(bytes, offset);
  const reliable = flagsLenReliable(flagsLen);
  const fragment = flagsLenFragment(type, flagsLen);
  const size = flagsLenSize(type, flagsLen);
  if (size > remaining) return -1;
  // The fixed header, before frag_idx says whether total_frags follows.
  if (size < dataHeaderBytes(reliable, fragment, 1)) return -1;
  if (fragment && bytes[offset + afterSeqOffset(reliable)] === 0 && size < dataHeaderBytes(reliable, fragment, 0))
    return -1;
  return size;
}

/**
 * The slot a server datagram gives its client: the first payload byte of a
 * type-0x03 message (ConnectAck, docs/sources.md R2: `03 06 C0 00 00 02`
 * gives slot 2), or -1. For a datagram `datagramMessages` accepted.
 */
export function connectAckSlot(bytes: Uint8Array, end: number = bytes.length): number {
  const count = messageCountOf(bytes);
  let pos = DATAGRAM_HEADER_BYTES;
  for (let i = 0; i < count && pos < end; i++) {
    const size = messageSizeAt(bytes, pos, end);
    if (size < 0) return -1;
    if (bytes[pos] === TYPE_CONNECT_ACK) {
      const payloadAt = pos + afterSeqOffset(flagsLenReliable(flagsLenAt(bytes, pos)));
      if (payloadAt < pos + size) {
        const slot = bytes[payloadAt];
        return slot >= PEER_ID_FIRST_CLIENT && slot !== PEER_ID_UNASSIGNED ? slot : -1;
      }
    }
    pos += size;
  }
  return -1;
}
