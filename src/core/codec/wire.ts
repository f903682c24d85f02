// Wire facts in one place: the bits of an ACK's flags byte and
// of a data message's flags_len word, header and message sizes, the room a
// datagram leaves for messages, and u16 fields read in place. Code outside the
// codec asks these helpers and never does bit arithmetic on wire fields itself
// (test/layering/wire-facts.test.ts holds it to that). All are tiny pure
// functions over numbers: V8 inlines them, so the hot paths pay nothing.
import {
  ACK_FLAG_FRAGMENT,
  ACK_FLAG_LOW_TYPE,
  DATAGRAM_HEADER_BYTES,
  FLAG_FRAGMENT,
  FLAG_ORDERED,
  FLAG_RELIABLE,
  GAME_LENGTH_MASK,
  GENERIC_LENGTH_MASK,
  MAX_DATAGRAM_BYTES,
  TYPE_GAME,
} from './constants.js';

/** Bytes a datagram has for messages after its 2-byte header: 510 (docs/sources.md 5). */
export const DATAGRAM_ROOM_BYTES = MAX_DATAGRAM_BYTES - DATAGRAM_HEADER_BYTES;

/** An ACK: [01][seq u16][flags]. */
export const ACK_BYTES = 4;
/** A fragment ACK adds the fragment index: [01][seq u16][flags][frag_idx]. */
export const FRAGMENT_ACK_BYTES = 5;

/** [type][flags_len u16]: every data message. */
export const DATA_HEADER_BYTES = 3;
/** An unfragmented reliable message's header: type, flags_len, seq. */
export const RELIABLE_HEADER_BYTES = DATA_HEADER_BYTES + 2;
/** A reliable fragment other than fragment 0: adds frag_idx. */
export const FRAGMENT_HEADER_BYTES = RELIABLE_HEADER_BYTES + 1;
/** Fragment 0 adds frag_idx and total_frags: 7 bytes. */
export const FIRST_FRAGMENT_HEADER_BYTES = RELIABLE_HEADER_BYTES + 2;

/** total_frags is a u8: a message splits into at most 255 fragments. */
export const MAX_FRAGMENTS_PER_MESSAGE = 0xff;

/** The largest fragment chunk: fragment 0 and its 7-byte header fill the 510 bytes of room (503). */
export const MAX_FRAGMENT_CHUNK_BYTES = DATAGRAM_ROOM_BYTES - FIRST_FRAGMENT_HEADER_BYTES;
/**
 * The largest payload the transport sends unfragmented: with a reliable header it
 * fills the room (505). Unreliable messages are held to it too (stock refuses them alike).
 */
export const MAX_UNFRAGMENTED_PAYLOAD_BYTES = DATAGRAM_ROOM_BYTES - RELIABLE_HEADER_BYTES;

// --- The ACK's flags byte (docs/sources.md 2) ---

/** Bit 0: the ACK answers a fragment and carries its index. */
export function ackFlagsFragment(flags: number): boolean {
  return (flags & ACK_FLAG_FRAGMENT) !== 0;
}

/** Bit 1: the ACK answers a low-type (< 0x32) message. */
export function ackFlagsLowType(flags: number): boolean {
  return (flags & ACK_FLAG_LOW_TYPE) !== 0;
}

/** Bits other than 0 and 1: kept as received, meaningless to the transport. */
export function ackFlagsOther(flags: number): number {
  return flags & ~(ACK_FLAG_FRAGMENT | ACK_FLAG_LOW_TYPE);
}

/** The flags byte of an ACK of a low-type or high message, fragment or not. */
export function ackFlagsOf(lowType: boolean, fragment: boolean): number {
  return (fragment ? ACK_FLAG_FRAGMENT : 0) | (lowType ? ACK_FLAG_LOW_TYPE : 0);
}

/** Wire size of an ACK: 5 bytes with a fragment index, 4 without. */
export function ackBytes(fragment: boolean): number {
  return fragment ? FRAGMENT_ACK_BYTES : ACK_BYTES;
}

/** Wire size of an ACK with this flags byte. */
export function ackBytesOfFlags(flags: number): number {
  return ackBytes(ackFlagsFragment(flags));
}

// --- A data message's flags_len word (transport-layer.md §3) ---

export function flagsLenReliable(flagsLen: number): boolean {
  return (flagsLen & FLAG_RELIABLE) !== 0;
}

export function flagsLenOrdered(flagsLen: number): boolean {
  return (flagsLen & FLAG_ORDERED) !== 0;
}

/** Only type 0x32 has a fragment bit; for the generic types bit 13 is length. */
export function flagsLenFragment(type: number, flagsLen: number): boolean {
  return type === TYPE_GAME && (flagsLen & FLAG_FRAGMENT) !== 0;
}

/** The message's total length on the wire (13 bits for 0x32, 14 for the generic types). */
export function flagsLenSize(type: number, flagsLen: number): number {
  return flagsLen & (type === TYPE_GAME ? GAME_LENGTH_MASK : GENERIC_LENGTH_MASK);
}

// --- Fields read in place (the allocation-free walkers of capture and live) ---

/** The u16 at bytes[at], little-endian as every BC field. */
export function u16At(bytes: Uint8Array, at: number): number {
  return bytes[at] | (bytes[at + 1] << 8);
}

/** A datagram's msg_count, the byte after its peer id (the caller checked the 2-byte header is there). */
export function messageCountOf(datagram: Uint8Array): number {
  return datagram[1];
}

/** The flags_len word of the data message at bytes[pos]. */
export function flagsLenAt(bytes: Uint8Array, pos: number): number {
  return u16At(bytes, pos + 1);
}

/** The seq of the ACK at bytes[pos]. */
export function ackSeqAt(bytes: Uint8Array, pos: number): number {
  return u16At(bytes, pos + 1);
}

/** The flags byte of the ACK at bytes[pos]. */
export function ackFlagsAt(bytes: Uint8Array, pos: number): number {
  return bytes[pos + 3];
}

/** The fragment index of the fragment ACK at bytes[pos]. */
export function ackFragIndexAt(bytes: Uint8Array, pos: number): number {
  return bytes[pos + 4];
}

/** The seq of the reliable data message at bytes[pos]. */
export function dataSeqAt(bytes: Uint8Array, pos: number): number {
  return u16At(bytes, pos + DATA_HEADER_BYTES);
}

/** Offset from a data message's start past its seq (if reliable): where frag_idx, or an unfragmented payload, begins. */
export function afterSeqOffset(reliable: boolean): number {
  return reliable ? RELIABLE_HEADER_BYTES : DATA_HEADER_BYTES;
}

/** The fragment index of the reliable fragment at bytes[pos]. */
export function dataFragIndexAt(bytes: Uint8Array, pos: number): number {
  return bytes[pos + RELIABLE_HEADER_BYTES];
}

/** The total_frags of reliable fragment 0 at bytes[pos]. */
export function dataFragCountAt(bytes: Uint8Array, pos: number): number {
  return bytes[pos + RELIABLE_HEADER_BYTES + 1];
}
