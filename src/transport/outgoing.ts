// A queued outgoing data message: the model of the stock TGMessage object
// (fragmented-reliable-ack-bug-analysis.md, "TGMessage Object Layout"). It is
// also a valid codec DataMessage, so the send cycle encodes it without copying.
import { isLowType } from '../codec/index.js';
import type { DataMessage, DataType } from '../codec/index.js';

export interface OutgoingMessage extends DataMessage {
  /** Simulation-only identity of the application message, for delivery accounting; never on the wire. */
  readonly uid: number;
  /** Category of the sequence counters: types below 0x32 are "low" (transport-layer.md §4). */
  readonly low: boolean;
  /** Retransmit state (+0x18 … +0x24 in the stock object). */
  retransmitCount: number;
  intervalUs: number;
  firstSendUs: number;
  lastSendUs: number;
}

/** Positional, not an options object: this runs once per message sent (issue 17). */
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
    intervalUs: 0,
    firstSendUs: -1,
    lastSendUs: -1,
  };
}

/** A copy for the retransmit-reentry cause: same wire fields, own timers. */
export function cloneOutgoing(message: OutgoingMessage): OutgoingMessage {
  return { ...message };
}
