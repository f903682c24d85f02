// The capture's hot path reads datagrams without building message objects: a
// large capture holds millions of messages, and the codec's decodeDatagram
// allocates a Located object and a payload view for each. `datagramMessages`
// accepts exactly the datagrams decodeDatagram accepts (codec/datagram.ts and
// codec/message.ts `readMessage`: the same checks in the same order; the tests
// hold the two together on random and real bytes) and allocates nothing.
// Whoever needs the messages themselves (decode --pcap) asks the codec.

/**
 * The number of messages of the plaintext datagram in bytes[0, end), or -1
 * when the codec would reject it (truncated header or message, unknown type,
 * a length below its header or past the end, fewer messages than msg_count,
 * trailing bytes).
 */
export function datagramMessages(bytes: Uint8Array, end: number = bytes.length): number {
  if (end < 2) return -1;
  const count = bytes[1];
  let pos = 2;
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
  if (type === 0x01) {
    if (remaining < 4) return -1;
    const fragment = (bytes[offset + 3] & 0x01) !== 0;
    if (!fragment) return 4;
    return remaining < 5 ? -1 : 5;
  }
  const game = type === 0x32;
  if (!game && type > 0x05) return -1; // known types: 0x00..0x05 and 0x32
  if (remaining < 3) return -1;
  const flagsLen = bytes[offset + 1] | (bytes[offset + 2] << 8);
  const reliable = (flagsLen & 0x8000) !== 0;
  const fragment = game && (flagsLen & 0x2000) !== 0;
  const size = flagsLen & (game ? 0x1fff : 0x3fff);
  if (size > remaining) return -1;
  const fixed = 3 + (reliable ? 2 : 0) + (fragment ? 1 : 0);
  if (size < fixed) return -1;
  if (fragment && bytes[offset + 3 + (reliable ? 2 : 0)] === 0 && size < fixed + 1) return -1;
  return size;
}

/**
 * The slot a server datagram gives its client: the first payload byte of a
 * type-0x03 message (ConnectAck, DECISIONS.md "Real packets": `03 06 C0 00 00 02`
 * gives slot 2), or -1. For a datagram `datagramMessages` accepted.
 */
export function connectAckSlot(bytes: Uint8Array, end: number = bytes.length): number {
  const count = bytes[1];
  let pos = 2;
  for (let i = 0; i < count && pos < end; i++) {
    const size = messageSizeAt(bytes, pos, end);
    if (size < 0) return -1;
    if (bytes[pos] === 0x03) {
      const flagsLen = bytes[pos + 1] | (bytes[pos + 2] << 8);
      const payloadAt = pos + 3 + ((flagsLen & 0x8000) !== 0 ? 2 : 0);
      if (payloadAt < pos + size) {
        const slot = bytes[payloadAt];
        return slot >= 2 && slot !== 0xff ? slot : -1;
      }
    }
    pos += size;
  }
  return -1;
}
