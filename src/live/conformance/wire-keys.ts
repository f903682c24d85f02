// How the rules name what is on the wire: the ACK key of a reliable message,
// the same key read from an ACK, and a fingerprint that tells a retransmission
// from a new message reusing its key.
import { usToMs } from '../../core/engine/index.js';
import {
  PEER_ID_SERVER,
  PEER_ID_UNASSIGNED,
  TYPE_ACK,
  TYPE_CONNECT,
  TYPE_CONNECT_ACK,
  TYPE_GAME,
  packAckKey,
  packDataKey,
  packedKeyFragIndex,
  packedKeyFragment,
  packedKeyLowType,
  packedKeySeq,
} from '../../core/codec/index.js';
import type { AckMessage, DataMessage, Located } from '../../core/codec/index.js';
import type { WireSide } from '../wire-log.js';

/**
 * One decoded message of the log, with where it came from. `recordIndex` is
 * its record's index in the log as given, so evidence can quote the datagram.
 */
export interface WireMessageEvent {
  /** When we read (or sent) it. */
  readonly timeUs: number;
  /** The earliest it may have arrived: timeUs, or earlier when read just after our process stalled. */
  readonly arrivedFromUs: number;
  readonly from: WireSide;
  readonly recordIndex: number;
  /** The peer id byte of its datagram (0x01 server, 0xFF unassigned client). */
  readonly peerId: number;
  readonly message: Located;
  /** The decrypted datagram that carried it. */
  readonly datagram: Uint8Array;
}

// An ACK key is the four fields an ACK entry is matched on (docs/sources.md 10):
// seq, low/high category, fragment flag and fragment index, packed in 26 bits
// (the codec's packed message key).

export type ReliableMessage = Located<DataMessage> & { readonly seq: number };

export function isReliableData(message: Located): message is ReliableMessage {
  return message.type !== TYPE_ACK && message.reliable && message.seq !== null;
}

/** The key an ACK of this reliable message carries (docs/sources.md 2: bit 1 for types < 0x32). */
export function messageKey(message: ReliableMessage): number {
  return packDataKey(message);
}

/** The key an ACK answers; flag bits other than 0 and 1 are not part of it. */
export function ackKey(ack: AckMessage): number {
  return packAckKey(ack);
}

export function keySeq(key: number): number {
  return packedKeySeq(key);
}

/** The fragment index of a fragment key, or null. */
export function keyFragIndex(key: number): number | null {
  return packedKeyFragment(key) ? packedKeyFragIndex(key) : null;
}

/** "seq 5 (high)", "seq 2 (low)", "seq 7 fragment 1". */
export function describeKey(key: number): string {
  const frag = keyFragIndex(key);
  if (frag !== null) return `seq ${keySeq(key)} fragment ${frag}`;
  return `seq ${keySeq(key)} (${packedKeyLowType(key) ? 'low' : 'high'})`;
}

/**
 * FNV-1a over the message's type and payload: a retransmission repeats them
 * (its header flags may differ, its key is already the same), a new message
 * that reuses the key after the u16 wrap almost never does.
 */
export function messageFingerprint(event: WireMessageEvent): number {
  const { type, payload } = event.message as ReliableMessage;
  let hash = Math.imul(0x811c9dc5 ^ type, 0x01000193);
  for (let i = 0; i < payload.length; i++) hash = Math.imul(hash ^ payload[i], 0x01000193);
  return hash >>> 0;
}

/** The game opcode of a 0x32 message: the first payload byte of an unfragmented message or of fragment 0. */
export function gameOpcode(message: Located): number {
  if (message.type !== TYPE_GAME || (message.fragment && message.fragIndex !== 0) || message.payload.length === 0)
    return -1;
  return message.payload[0];
}

/** A client's Connect: sent before it has a slot; captures show it with type 0x03 (docs/sources.md 3). */
export function isConnectRequest(message: Located, peerId: number): boolean {
  return peerId === PEER_ID_UNASSIGNED && (message.type === TYPE_CONNECT || message.type === TYPE_CONNECT_ACK);
}

/** The server's connect reply (ConnectAck, type 0x03), which answers the Connect. */
export function isConnectReply(message: Located, peerId: number): boolean {
  return peerId === PEER_ID_SERVER && message.type === TYPE_CONNECT_ACK;
}

export function ms(us: number): string {
  return `${Math.round(usToMs(us))} ms`;
}
