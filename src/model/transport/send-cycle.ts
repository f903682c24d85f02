// One datagram of the send cycle (docs/sources.md 8): ACK pass 1, due retransmits,
// first sends, then ACK pass 2 behind its gate. Each step stops at the first
// message that does not fit; that message waits for a later update.
import type { AckOutbox } from './ack-outbox.js';
import { SendNote } from './datagram-builder.js';
import type { DatagramBuilder } from './datagram-builder.js';
import type { Fifo } from '../../core/containers/index.js';
import type { OutgoingMessage } from './outgoing.js';
import type { RetransmitQueue } from './retransmit-queue.js';
import type { GateOpener, GateScope } from './switches.js';
import { messageSize } from '../../core/codec/index.js';
import type { Micros } from '../../core/engine/index.js';

export interface SendCycleParts {
  readonly ackOutbox: AckOutbox;
  readonly retransmitQueue: RetransmitQueue;
  readonly firstSendQueue: Fifo<OutgoingMessage>;
  readonly twoPassGated: boolean;
  /** Which steps' writes open the pass-2 gate, and over what span. */
  readonly gate: GateRule;
  /** Send window: false holds the queue head back; null = no window. */
  readonly inWindow: ((message: OutgoingMessage) => boolean) | null;
  /** The first-send queue's head waited for the send window in this update. */
  readonly onWindowStall: () => void;
  /** A message left the first-send queue; a reliable one now awaits its ACK. */
  readonly onFirstSent: (message: OutgoingMessage, nowUs: Micros) => void;
  /** A keepalive sent outside the queues (switch keepalive.path): after pass 2, never opening the gate. */
  readonly outOfBand: { message: OutgoingMessage | null };
  /** ackCarriage every-datagram: a datagram that goes out anyway carries every pass-1 entry; -all: every entry. */
  readonly ridingAcks: boolean;
  readonly ridingStaleAcks: boolean;
}

export interface GateRule {
  readonly passOne: boolean;
  readonly retransmits: boolean;
  readonly firstSends: boolean;
  readonly scope: GateScope;
}

export function gateRule(openers: readonly GateOpener[], scope: GateScope): GateRule {
  return {
    passOne: openers.includes('pass-one'),
    retransmits: openers.includes('retransmits'),
    firstSends: openers.includes('first-sends'),
    scope,
  };
}

/** State of one update across its datagrams: gateScope "update" remembers an opening. */
export interface UpdateState {
  gateOpened: boolean;
}

/** Did steps 1–3 of this datagram write something that counts for the gate? */
function opensGate(rule: GateRule, out: DatagramBuilder): boolean {
  return (
    (rule.passOne && out.passOneAcks > 0) ||
    (rule.retransmits && out.retransmits > 0) ||
    (rule.firstSends && out.firstSends > 0)
  );
}

/** Builds one datagram into `out` (reset first); false when there was nothing to send. */
export function buildDatagram(
  parts: SendCycleParts,
  out: DatagramBuilder,
  nowUs: Micros,
  disconnecting: boolean,
  update: UpdateState,
): boolean {
  out.reset();
  // 1. Pass 1: entries below the pass-one limit whose ACK timer expired.
  parts.ackOutbox.passOne(nowUs, out);
  // 2. Retransmits whose timer expired.
  parts.retransmitQueue.sendDue(nowUs, out);
  // 3. First sends.
  const queue = parts.firstSendQueue;
  for (let message = queue.peek(); message !== undefined; message = queue.peek()) {
    // The queue is FIFO, so a head outside the window holds back everything behind it.
    if (parts.inWindow !== null && message.reliable && !parts.inWindow(message)) {
      parts.onWindowStall();
      break;
    }
    if (!out.tryAdd(message, messageSize(message), message.uid, SendNote.FirstSend)) break;
    queue.shift();
    parts.onFirstSent(message, nowUs);
  }
  // 4. Pass 2, only if steps 1–3 wrote something or the peer is disconnecting
  //    (ack-outbox-deadlock.md §2: the gate; which steps count is a switch).
  const opened = opensGate(parts.gate, out);
  if (opened) update.gateOpened = true;
  const open = parts.gate.scope === 'update' ? update.gateOpened : opened;
  const passTwo = parts.twoPassGated && (open || disconnecting);
  if (passTwo) parts.ackOutbox.passTwo(nowUs, out);
  else if (parts.twoPassGated && parts.ackOutbox.deadZone > 0) out.gateShut = true;
  // 5. A keepalive outside the queues goes last and never counts for the gate.
  const keepalive = parts.outOfBand.message;
  const windowed = keepalive !== null && keepalive.reliable && parts.inWindow !== null && !parts.inWindow(keepalive);
  if (windowed) parts.onWindowStall();
  if (
    keepalive !== null &&
    !windowed &&
    out.tryAdd(keepalive, messageSize(keepalive), keepalive.uid, SendNote.FirstSend)
  ) {
    parts.outOfBand.message = null;
    parts.onFirstSent(keepalive, nowUs);
  }
  // 6. ACKs that ride along (docs/sources.md 25): never a datagram of their own, never counted for the gate.
  if (parts.ridingAcks && out.count > 0) parts.ackOutbox.rideAlong(nowUs, out, passTwo && parts.ridingStaleAcks);
  return out.count > 0;
}
