// Packs one datagram within the 512-byte and 255-message limits
// (docs/sources.md 5, 8). The send-cycle steps ask it for room message by message;
// a message that does not fit waits for a later update.
import {
  DATAGRAM_HEADER_BYTES,
  MAX_DATAGRAM_BYTES,
  MAX_MESSAGES_PER_DATAGRAM,
  TYPE_ACK,
} from '../../core/codec/index.js';
import type { Message } from '../../core/codec/index.js';

/** Why a message is in the datagram; traces mark retransmissions and dead-zone ACKs with it. */
export const SendNote = {
  FirstSend: 0,
  Retransmit: 1,
  Ack: 2,
  /** An ACK sent by pass 2: it had left pass 1's reach (ack-outbox-deadlock.md §1). */
  StaleAck: 3,
} as const;
export type SendNote = (typeof SendNote)[keyof typeof SendNote];

/**
 * One per peer, reset for each datagram. The three lists keep their
 * storage across resets (setting an array's length frees or trims it, a slow
 * runtime call), so only their first `count` items are this datagram's; on a
 * builder never reset, that is all of them.
 */
export class DatagramBuilder {
  readonly messages: Message[] = [];
  /** Per message: the sender's uid for delivery accounting, or -1 (ACKs). */
  readonly uids: number[] = [];
  readonly notes: SendNote[] = [];
  private added = 0;
  bytes = DATAGRAM_HEADER_BYTES;
  ackBytes = 0;
  /** Messages per send-cycle step, for the pass-2 gate and idle accounting. */
  passOneAcks = 0;
  retransmits = 0;
  firstSends = 0;
  /** Reliable messages (first sends and retransmits). */
  reliables = 0;
  /** Pass 2 was skipped by the gate while the dead zone held entries. */
  gateShut = false;

  get count(): number {
    return this.added;
  }

  /** Empties the builder for the next datagram. */
  reset(): void {
    this.added = 0;
    this.bytes = DATAGRAM_HEADER_BYTES;
    this.ackBytes = 0;
    this.passOneAcks = 0;
    this.retransmits = 0;
    this.firstSends = 0;
    this.reliables = 0;
    this.gateShut = false;
  }

  /** Adds the message if it fits; false means the datagram is full for it. */
  tryAdd(message: Message, size: number, uid: number, note: SendNote): boolean {
    if (this.added >= MAX_MESSAGES_PER_DATAGRAM || this.bytes + size > MAX_DATAGRAM_BYTES) return false;
    const at = this.added++;
    this.messages[at] = message;
    this.uids[at] = uid;
    this.notes[at] = note;
    this.bytes += size;
    if (message.type === TYPE_ACK) this.ackBytes += size;
    if (message.type !== TYPE_ACK && message.reliable) this.reliables++;
    if (note === SendNote.Ack) this.passOneAcks++;
    else if (note === SendNote.Retransmit) this.retransmits++;
    else if (note === SendNote.FirstSend) this.firstSends++;
    return true;
  }
}
