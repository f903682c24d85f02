// The message key: the four fields an ACK is matched on
// (docs/sources.md 10, transport-layer.md §2) — the sequence category, the seq, the
// fragment flag and the fragment index. A reliable message and the ACK that
// answers it have the same key: keyOfData(message) equals keyOfAck(ack).
//
// `packKey` packs a key into one small integer for Maps and Sets: seq in bits
// 0–15, the low-type category in bit 16, the fragment flag in bit 17, the
// fragment index in bits 18–25 (below 2^26: a V8 small integer). `packKeyOf`
// packs the four fields without making a key object, for the per-message paths
// (the retransmit queue, the ACK-outbox, the capture and proxy walkers).
import { TYPE_ACK, isLowType } from './constants.js';
import type { AckMessage, DataMessage } from './types.js';
import {
  ackFlagsAt,
  ackFlagsFragment,
  ackFlagsLowType,
  ackFlagsOf,
  ackFragIndexAt,
  ackSeqAt,
  dataFragIndexAt,
  dataSeqAt,
  flagsLenAt,
  flagsLenFragment,
} from './wire.js';

export interface MessageKey {
  /** The message's type is below 0x32 (the "low" sequence counters); an ACK's flags bit 1. */
  readonly lowType: boolean;
  readonly seq: number;
  /** A fragment of a 0x32 message; an ACK's flags bit 0. */
  readonly fragment: boolean;
  /** The fragment's index; 0 when the key is not a fragment's. */
  readonly fragIndex: number;
}

const LOW_BIT = 1 << 16;
const FRAGMENT_BIT = 1 << 17;
const INDEX_SHIFT = 18;

/** A key from its four fields; a non-fragment's index is 0 whatever is given. */
export function messageKeyOf(lowType: boolean, seq: number, fragment: boolean, fragIndex: number): MessageKey {
  return { lowType, seq, fragment, fragIndex: fragment ? fragIndex : 0 };
}

/** The ACK that answers the message with these four fields: its key is the message's. */
export function ackOfKey(lowType: boolean, seq: number, fragment: boolean, fragIndex: number): AckMessage {
  return { type: TYPE_ACK, seq, flags: ackFlagsOf(lowType, fragment), fragIndex: fragment ? fragIndex : null };
}

/** The key an ACK answers. Flag bits other than 0 and 1 are not part of it. */
export function keyOfAck(ack: AckMessage): MessageKey {
  const fragment = ackFlagsFragment(ack.flags);
  return messageKeyOf(ackFlagsLowType(ack.flags), ack.seq, fragment, fragment ? (ack.fragIndex ?? 0) : 0);
}

/** The key of a reliable data message: the one its ACK carries. */
export function keyOfData(message: DataMessage): MessageKey {
  if (message.seq === null) throw new Error('codec: an unreliable message has no key');
  return messageKeyOf(isLowType(message.type), message.seq, message.fragment, message.fragIndex ?? 0);
}

export function sameKey(a: MessageKey, b: MessageKey): boolean {
  return a.lowType === b.lowType && a.seq === b.seq && a.fragment === b.fragment && a.fragIndex === b.fragIndex;
}

/** The four fields packed into one integer below 2^26 (see the top of this file). */
export function packKeyOf(lowType: boolean, seq: number, fragment: boolean, fragIndex: number): number {
  if (seq >>> 16 !== 0 || (fragment && fragIndex >>> 8 !== 0))
    throw new Error(`codec: key seq ${seq} fragment ${fragIndex} is not a u16 and a u8`);
  return seq | (lowType ? LOW_BIT : 0) | (fragment ? FRAGMENT_BIT | (fragIndex << INDEX_SHIFT) : 0);
}

export function packKey(key: MessageKey): number {
  return packKeyOf(key.lowType, key.seq, key.fragment, key.fragIndex);
}

/** packKey(keyOfAck(ack)) without the key object. */
export function packAckKey(ack: AckMessage): number {
  const fragment = ackFlagsFragment(ack.flags);
  return packKeyOf(ackFlagsLowType(ack.flags), ack.seq, fragment, fragment ? (ack.fragIndex ?? 0) : 0);
}

/** packKey(keyOfData(message)) without the key object. */
export function packDataKey(message: DataMessage): number {
  if (message.seq === null) throw new Error('codec: an unreliable message has no key');
  return packKeyOf(isLowType(message.type), message.seq, message.fragment, message.fragIndex ?? 0);
}

export function unpackKey(packed: number): MessageKey {
  return messageKeyOf(
    packedKeyLowType(packed),
    packedKeySeq(packed),
    packedKeyFragment(packed),
    packedKeyFragIndex(packed),
  );
}

export function packedKeySeq(packed: number): number {
  return packed & 0xffff;
}

export function packedKeyLowType(packed: number): boolean {
  return (packed & LOW_BIT) !== 0;
}

export function packedKeyFragment(packed: number): boolean {
  return (packed & FRAGMENT_BIT) !== 0;
}

/** The fragment index (0 for a non-fragment key). */
export function packedKeyFragIndex(packed: number): number {
  return packed >>> INDEX_SHIFT;
}

/** The packed key of the (whole) ACK at bytes[pos], read in place. */
export function packedAckKeyAt(bytes: Uint8Array, pos: number): number {
  const flags = ackFlagsAt(bytes, pos);
  const fragment = ackFlagsFragment(flags);
  return packKeyOf(ackFlagsLowType(flags), ackSeqAt(bytes, pos), fragment, fragment ? ackFragIndexAt(bytes, pos) : 0);
}

/** The packed key of the (whole, reliable) data message at bytes[pos], read in place: the key its ACK carries. */
export function packedDataKeyAt(bytes: Uint8Array, pos: number): number {
  const type = bytes[pos];
  const fragment = flagsLenFragment(type, flagsLenAt(bytes, pos));
  return packKeyOf(isLowType(type), dataSeqAt(bytes, pos), fragment, fragment ? dataFragIndexAt(bytes, pos) : 0);
}
