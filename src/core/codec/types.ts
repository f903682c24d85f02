// Message and datagram shapes shared by the encoder and the decoder.
import { ackFlagsFragment, ackFlagsLowType } from './wire.js';

/** Type 0x01 (docs/sources.md 2): [01][seq u16 LE][flags][frag_idx if flags bit 0]. */
export interface AckMessage {
  readonly type: 0x01;
  readonly seq: number;
  /** Raw flags byte: bit 0 fragment ACK, bit 1 low-type ACK. Other bits are kept as received. */
  readonly flags: number;
  /** Present exactly when flags bit 0 is set. */
  readonly fragIndex: number | null;
}

/** Message-carrying types: 0x00, 0x02–0x05 (generic) and 0x32 (game). */
export type DataType = 0x00 | 0x02 | 0x03 | 0x04 | 0x05 | 0x32;

/** [type][flags_len u16 LE][seq u16 LE if reliable][frag_idx][total_frags if idx 0][payload]. */
export interface DataMessage {
  readonly type: DataType;
  readonly reliable: boolean;
  readonly ordered: boolean;
  /** Only type 0x32 can be a fragment (transport-layer.md §5). */
  readonly fragment: boolean;
  /** Present exactly when reliable. */
  readonly seq: number | null;
  /** Present exactly when fragment. */
  readonly fragIndex: number | null;
  /** Present exactly on fragment 0. */
  readonly fragCount: number | null;
  readonly payload: Uint8Array;
}

export type Message = AckMessage | DataMessage;

/** A decoded message with where it sat in the datagram. */
export type Located<M extends Message = Message> = M & { readonly offset: number; readonly size: number };

export interface Datagram {
  readonly peerId: number;
  readonly messages: readonly Message[];
}

export interface DecodedDatagram {
  readonly peerId: number;
  readonly messageCount: number;
  readonly messages: readonly Located[];
}

export type DecodeErrorCode =
  | 'truncated-header'
  | 'truncated-message'
  | 'length-below-header'
  | 'length-past-end'
  | 'missing-messages'
  | 'trailing-bytes'
  | 'unknown-type';

export interface DecodeError {
  readonly code: DecodeErrorCode;
  /** Byte offset in the datagram where the problem was found. */
  readonly offset: number;
  readonly reason: string;
}

export type DecodeResult =
  | { readonly ok: true; readonly datagram: DecodedDatagram }
  | {
      readonly ok: false;
      readonly error: DecodeError;
      /** What was readable before the error; null fields were never reached. */
      readonly partial: {
        readonly peerId: number | null;
        readonly messageCount: number | null;
        readonly messages: readonly Located[];
      };
    };

export type EncodeErrorCode =
  | 'unknown-type'
  | 'length-overflow'
  | 'field-range'
  | 'field-presence'
  | 'fragment-not-supported'
  | 'datagram-too-large'
  | 'too-many-messages';

export interface EncodeError {
  readonly code: EncodeErrorCode;
  /** Index of the offending message, or null for a datagram-level problem. */
  readonly messageIndex: number | null;
  readonly reason: string;
}

export type EncodeResult =
  | { readonly ok: true; readonly bytes: Uint8Array }
  | { readonly ok: false; readonly error: EncodeError };

export function isAck(message: Message): message is AckMessage {
  return message.type === 0x01;
}

export function ackIsFragment(ack: AckMessage): boolean {
  return ackFlagsFragment(ack.flags);
}

export function ackIsLowType(ack: AckMessage): boolean {
  return ackFlagsLowType(ack.flags);
}
