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

export function newOutgoing(fields: {
  type: DataType;
  reliable: boolean;
  ordered: boolean;
  seq: number | null;
  payload: Uint8Array;
  uid: number;
  fragIndex?: number | null;
  fragCount?: number | null;
}): OutgoingMessage {
  const fragIndex = fields.fragIndex ?? null;
  return {
    type: fields.type,
    reliable: fields.reliable,
    ordered: fields.ordered,
    fragment: fragIndex !== null,
    seq: fields.seq,
    fragIndex,
    fragCount: fields.fragCount ?? null,
    payload: fields.payload,
    uid: fields.uid,
    low: isLowType(fields.type),
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
