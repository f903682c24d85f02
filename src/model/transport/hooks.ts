// How the transport reaches the rest of the simulation, and what it is asked to send.
import type { AckMessage, DataMessage, DataType, Located } from '../../core/codec/index.js';
import type { SendNote } from './datagram-builder.js';
import type { ConnectionState } from './lifecycle.js';
import type { OutgoingMessage } from './outgoing.js';
import type { Delivery } from './receive-channel.js';
import type { AckOutcome } from './retransmit-queue.js';

export interface SendRequest {
  readonly type: DataType;
  readonly payload: Uint8Array;
  readonly reliable: boolean;
  readonly ordered?: boolean;
  /** Accounting identity from the caller's ledger. */
  readonly uid: number;
}

export interface TransportHooks {
  /**
   * Puts an encoded datagram of `messageCount` messages on the link. `uids` aligns with its
   * first messages and may stop short: a message past its end has none (-1). The first
   * `messageCount` entries of `notes` are the sender's own list, valid only during the call.
   * The session copies both only when an observer listens to datagramSent.
   */
  emit(bytes: Uint8Array, uids: readonly number[], notes: readonly SendNote[], messageCount: number): void;
  /** Hands a received reliable message to the application, in order. */
  deliver(delivery: Delivery): void;
  /**
   * A received unreliable message reached the application: its type, and its payload
   * as `datagram[payloadStart, payloadEnd)` (no object per message: hot path).
   */
  deliverUnreliable(type: number, datagram: Uint8Array, payloadStart: number, payloadEnd: number): void;
  /** The sender stopped trying to deliver this reliable message. */
  gaveUp(uid: number): void;
  /** An ACK cleared a retransmit entry of this message. */
  acknowledged(uid: number): void;
  /** The transport refused one of its own messages (keepalive, disconnect) before sending. */
  refused(uid: number): void;
  /** An accounting uid for a message the transport originates (keepalive, echo, disconnect). */
  newUid(reliable: boolean, low: boolean): number;
  /** The transport queued an unreliable message of its own (an unreliable keepalive or echo). */
  sentUnreliable?(): void;
  stateChanged?(state: ConnectionState): void;
  /** Every ACK received, with the retransmit entry it cleared (null: no match) and why. */
  ackProcessed?(ack: AckMessage, cleared: OutgoingMessage | null, outcome: AckOutcome): void;
  /** A reliable message (or fragment) arrived again after it was already taken. */
  duplicateReceived?(message: Located<DataMessage>): void;
}
