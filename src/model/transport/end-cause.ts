// Why a connection ended, as the peer that ended it knew it (docs/stock-and-fixed.md#the-fixed-mode-promise).
// A diagnostic readout beside the state: never on the wire and not in the run summary. The swarm
// reads it to judge whether an end the link forced is the link's doing (src/tools/swarm/end-evidence.ts).
import { usToSeconds } from '../../core/engine/index.js';
import type { Micros } from '../../core/engine/index.js';
import type { OutgoingMessage } from './outgoing.js';
import type { UpdateVerdict } from './lifecycle.js';

/** A message as its sender knew it when it stopped waiting for its ACK. */
export interface MessageRef {
  readonly type: number;
  readonly low: boolean;
  readonly seq: number;
  readonly fragment: boolean;
  /** 0 unless `fragment`. */
  readonly fragIndex: number;
  /** When it first went out (-1: never sent). */
  readonly firstSendUs: Micros;
  /** How often it went out. */
  readonly sends: number;
}

/** Which limit gave a message up (transport-layer.md §4): a retry count, an age (maxMessageAgeMs or the peer timeout), or a full queue. */
export type GiveUpLimit = 'retry-limit' | 'message-age' | 'retransmit-queue-full';

export type EndCause =
  /** Graceful: the drain or the Disconnect exchange completed (or a Booted remote was removed). */
  | { readonly kind: 'closed' }
  /** Nothing was received for the peer timeout (docs/sources.md 19). */
  | { readonly kind: 'peer-timeout'; readonly lastHeardUs: Micros }
  /** onGiveUp: disconnect; the first message given up in the ending update. */
  | { readonly kind: 'message-given-up'; readonly limit: GiveUpLimit; readonly message: MessageRef }
  /** A drain that had not finished one peer timeout after it began. */
  | {
      readonly kind: 'drain-deadline';
      readonly drainStartUs: Micros;
      readonly oldestUnacked: MessageRef | null;
      readonly remoteDisconnected: boolean;
    }
  /** The host itself went away. */
  | { readonly kind: 'halted' };

/** The first message given up in an update, and at which limit. */
export interface GivenUp {
  readonly limit: GiveUpLimit;
  readonly message: OutgoingMessage;
}

/** What the drain deadline reads of the lifecycle. */
interface DrainView {
  readonly drainStartUs: Micros | null;
  readonly remoteHasLeft: boolean;
}

/** The cause of an ending verdict: `given` is the update's first give-up, `oldest` the oldest unACKed message. */
export function verdictCause(
  verdict: Exclude<UpdateVerdict, 'continue'>,
  given: GivenUp | null,
  oldest: OutgoingMessage | null,
  drain: DrainView,
): EndCause {
  if (verdict === 'closed') return { kind: 'closed' };
  if (verdict === 'gave-up') {
    if (given === null) throw new Error('transport: gave up with no message given up');
    return { kind: 'message-given-up', limit: given.limit, message: messageRef(given.message) };
  }
  if (drain.drainStartUs === null) throw new Error('transport: a drain deadline without a drain');
  return {
    kind: 'drain-deadline',
    drainStartUs: drain.drainStartUs,
    oldestUnacked: oldest === null ? null : messageRef(oldest),
    remoteDisconnected: drain.remoteHasLeft,
  };
}

function messageRef(message: OutgoingMessage): MessageRef {
  return {
    type: message.type,
    low: message.low,
    seq: message.seq as number,
    fragment: message.fragment,
    fragIndex: message.fragIndex ?? 0,
    firstSendUs: message.firstSendUs,
    sends: message.firstSendUs < 0 ? 0 : message.retransmitCount + 1,
  };
}

/** "high seq 12 (fragment 2)", "low seq 3 (type 0x05)". */
export function messageRefText(m: MessageRef): string {
  const what = m.fragment
    ? ` (fragment ${m.fragIndex})`
    : m.type === 0x32
      ? ''
      : ` (type 0x${m.type.toString(16).padStart(2, '0')})`;
  return `${m.low ? 'low' : 'high'} seq ${m.seq}${what}`;
}

/** One line: why the connection ended. */
export function endCauseText(cause: EndCause): string {
  switch (cause.kind) {
    case 'closed':
      return 'closed';
    case 'peer-timeout':
      return `peer timeout (last heard at ${usToSeconds(cause.lastHeardUs).toFixed(3)} s)`;
    case 'message-given-up':
      return `gave up ${messageRefText(cause.message)} at its ${cause.limit} after ${cause.message.sends} sends`;
    case 'drain-deadline': {
      const waiting =
        cause.oldestUnacked !== null
          ? `${messageRefText(cause.oldestUnacked)} unACKed`
          : cause.remoteDisconnected
            ? 'the linger'
            : "the remote's Disconnect";
      return `drain deadline (drain began at ${usToSeconds(cause.drainStartUs).toFixed(3)} s; waiting for ${waiting})`;
    }
    case 'halted':
      return 'halted';
  }
}
