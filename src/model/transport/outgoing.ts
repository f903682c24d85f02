// A queued outgoing data message: the model of the stock TGMessage object
// (fragmented-reliable-ack-bug-analysis.md, "TGMessage Object Layout"). It is
// also a valid codec DataMessage, so the send cycle encodes it without copying.
import { TYPE_BOOT, TYPE_DISCONNECT, TYPE_GAME, isLowType } from '../../core/codec/index.js';
import type { DataMessage, DataType } from '../../core/codec/index.js';
import { DOUBLE_SEED_US, micros } from '../../core/engine/index.js';
import type { Micros } from '../../core/engine/index.js';

export interface OutgoingMessage extends DataMessage {
  /** Simulation-only identity of the application message, for delivery accounting; never on the wire. */
  readonly uid: number;
  /** Category of the sequence counters: types below 0x32 are "low" (transport-layer.md §4). */
  readonly low: boolean;
  /** Retransmit state (+0x18 … +0x24 in the stock object). */
  retransmitCount: number;
  intervalUs: Micros;
  /** -1 until first sent. */
  firstSendUs: Micros;
  lastSendUs: Micros;
}

/** The send times of a message not sent yet. */
const NOT_SENT_US = micros(-1);
const NO_INTERVAL_US = micros(0);

/** Positional, not an options object: this runs once per message sent. */
export function newOutgoing(
  type: DataType,
  reliable: boolean,
  ordered: boolean,
  seq: number | null,
  payload: Uint8Array,
  uid: number,
  fragIndex: number | null = null,
  fragCount: number | null = null,
): OutgoingMessage {
  return {
    type,
    reliable,
    ordered,
    fragment: fragIndex !== null,
    seq,
    fragIndex,
    fragCount,
    payload,
    uid,
    low: isLowType(type),
    retransmitCount: 0,
    intervalUs: NO_INTERVAL_US,
    firstSendUs: NOT_SENT_US,
    lastSendUs: NOT_SENT_US,
  };
}

// The literal's time fields hold doubles from the first message on (time.ts): a message
// sent after 2^31 µs would otherwise change their representation mid-run and throw away
// the compiled send path.
const seeded: Writable<OutgoingMessage> = newOutgoing(TYPE_GAME, false, false, null, new Uint8Array(0), -1);
seeded.intervalUs = DOUBLE_SEED_US;
seeded.firstSendUs = DOUBLE_SEED_US;
seeded.lastSendUs = DOUBLE_SEED_US;

/** Spare unreliable messages kept for reuse per peer: an explicit bound on the pool. */
export const MAX_SPARE_OUTGOING = 256;

type Writable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * Reuses the objects of unreliable messages once they are on the wire (docs/sources.md
 * 8.3 frees them there): ~100 StateUpdates/s per direction would otherwise each
 * allocate one. Nothing may hold a message after it is given back.
 */
export class OutgoingPool {
  private readonly spare: OutgoingMessage[] = [];
  /** Messages handed out again instead of allocated. */
  reused = 0;

  get size(): number {
    return this.spare.length;
  }

  /** newOutgoing for an unreliable, unfragmented message, from the pool when it can. */
  unreliable(type: DataType, ordered: boolean, payload: Uint8Array, uid: number): OutgoingMessage {
    const message = this.spare.pop() as Writable<OutgoingMessage> | undefined;
    if (message === undefined) return newOutgoing(type, false, ordered, null, payload, uid);
    this.reused++;
    message.type = type;
    message.ordered = ordered;
    message.payload = payload;
    message.uid = uid;
    message.low = isLowType(type);
    return message;
  }

  /** Takes back a sent unreliable message; the other fields are as newOutgoing left them. */
  give(message: OutgoingMessage): void {
    if (message.reliable || message.fragment || message.seq !== null)
      throw new Error('outgoing pool: only unreliable, unfragmented messages are reused');
    if (this.spare.length < MAX_SPARE_OUTGOING) this.spare.push(message);
  }
}

/** A copy for the retransmit-reentry cause: same wire fields, own timers. */
export function cloneOutgoing(message: OutgoingMessage): OutgoingMessage {
  return { ...message };
}

/** Our own Disconnect (or Boot) with this low seq still waits in `queued` for its first send. */
export function goodbyeQueued(queued: Iterable<OutgoingMessage>, seq: number): boolean {
  for (const message of queued)
    if (message.low && message.seq === seq && (message.type === TYPE_DISCONNECT || message.type === TYPE_BOOT))
      return true;
  return false;
}
