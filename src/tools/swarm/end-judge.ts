// Was an end the link's doing? The fixed-mode promise (docs/stock-and-fixed.md#the-fixed-mode-promise) lets a connection end only
// gracefully, by a configured give-up policy, or at a deadline the link forced: nothing arrived
// for the peer timeout, or a message (or a drain) got nowhere for its whole life. This judges each
// end that was not graceful from the wire record (end-evidence.ts), not from the transport's word.
import { msToUs, usToSeconds } from '../../core/engine/index.js';
import type { Micros } from '../../core/engine/index.js';
import { packKeyOf } from '../../core/codec/index.js';
import { endCauseText, messageRefText, retransmitIntervalUs } from '../../model/transport/index.js';
import type { EndCause, MessageRef, PeerTransport, Role } from '../../model/transport/index.js';
import type { EndEvidence, KeyRecord } from './end-evidence.js';

export interface EndVerdict {
  /** The link forced it (or a configured policy did): the promise allows it. */
  readonly forced: boolean;
  /** What the wire shows, one line. */
  readonly evidence: string;
}

/** The timing the judgement allows for: updates read arrivals late, and ACKs leave on the ACK-outbox's timer. */
export interface Slack {
  /** The longest update period of either role in any phase. */
  readonly updateUs: Micros;
}

const s = (us: number) => `${usToSeconds(us).toFixed(3)} s`;
const other = (role: Role): Role => (role === 'server' ? 'client' : 'server');

/**
 * Judges `role`'s end on client `client`'s connection. `peers` are that connection's two
 * transports; `cause` is the ended peer's own account, checked against the wire.
 */
export function judgeEnd(
  evidence: EndEvidence,
  client: number,
  role: Role,
  peers: Readonly<Record<Role, PeerTransport>>,
  slack: Slack,
): EndVerdict {
  const peer = peers[role];
  const cause = peer.endCause as EndCause;
  const endUs = evidence.endOf(client, role);
  const remoteEndUs = evidence.endOf(client, other(role));
  const sides = evidence.sides(client);
  const remote = other(role);
  switch (cause.kind) {
    case 'closed':
    case 'halted':
      return { forced: true, evidence: endCauseText(cause) };
    case 'peer-timeout': {
      const timeoutUs = msToUs(peer.params.peerTimeoutMs);
      if (endUs - cause.lastHeardUs <= timeoutUs)
        return {
          forced: false,
          evidence: `${role} timed out at ${s(endUs)}, having heard from ${remote} at ${s(cause.lastHeardUs)}, within the peer timeout`,
        };
      const sent = sides[remote];
      if (remoteEndUs <= endUs) return { forced: true, evidence: `${remote} had ended at ${s(remoteEndUs)}` };
      // A live remote sends at least a keepalive every few seconds: the link must have lost them.
      if (sent.lastSentUs > cause.lastHeardUs)
        return {
          forced: true,
          evidence: `the link delivered nothing ${remote} sent after ${s(cause.lastHeardUs)} (its last datagram left at ${s(sent.lastSentUs)})`,
        };
      return {
        forced: false,
        evidence: `${remote} was live and sent nothing from ${s(cause.lastHeardUs)} until ${role} timed out at ${s(endUs)}`,
      };
    }
    case 'message-given-up':
      if (cause.limit !== 'message-age' && cause.limit !== 'retry-limit')
        return { forced: false, evidence: endCauseText(cause) };
      return judgeMessage(
        cause.message,
        sides[role].byKey.get(keyOf(cause.message)),
        sides[role].connectKey,
        role,
        endUs,
        remoteEndUs,
        peer,
        slack,
      );
    case 'drain-deadline': {
      if (cause.oldestUnacked !== null) {
        const m = cause.oldestUnacked;
        return judgeMessage(
          m,
          sides[role].byKey.get(keyOf(m)),
          sides[role].connectKey,
          role,
          endUs,
          remoteEndUs,
          peer,
          slack,
        );
      }
      // Waiting for the remote's Disconnect (or lingering to ACK it again): the remote's drain is the one the link starved, or it had gone.
      if (remoteEndUs <= endUs && peers[remote].state !== 'closed')
        return { forced: true, evidence: `${remote} had ended (${peers[remote].state}) at ${s(remoteEndUs)}` };
      if (remoteEndUs > endUs) return { forced: true, evidence: `${remote} was still draining at ${s(endUs)}` };
      return {
        forced: false,
        evidence: `${remote} closed at ${s(remoteEndUs)}, yet ${role} never had its Disconnect (${endCauseText(cause)})`,
      };
    }
  }
}

/** Copies the sender's retransmit policy sends in `lifeUs`, each timer running out an update late. */
function sendsDue(peer: PeerTransport, lifeUs: number, slack: Slack): number {
  let sends = 1;
  for (let atUs = 0; sends < 10_000; sends++) {
    atUs += retransmitIntervalUs(peer.switches.retransmit, sends - 1) + slack.updateUs;
    if (atUs >= lifeUs) break;
  }
  return sends;
}

function keyOf(m: MessageRef): number {
  return packKeyOf(m.low, m.seq, m.fragment, m.fragIndex);
}

/**
 * A message given up (or holding up a drain) is the link's doing only if its sender re-sent it as
 * its retransmit policy says, no ACK of it reached the sender in time, and the receiver answered
 * every copy it got while it lived.
 */
function judgeMessage(
  m: MessageRef,
  record: KeyRecord | undefined,
  connectKey: number | null,
  role: Role,
  endUs: number,
  remoteEndUs: number,
  peer: PeerTransport,
  slack: Slack,
): EndVerdict {
  const what = `${role}'s ${messageRefText(m)}`;
  if (record === undefined || record.firstSentUs !== m.firstSendUs)
    return { forced: false, evidence: `${what}: the wire shows no first send at ${s(m.firstSendUs)}` };
  const counts = `${record.copiesSent} copies sent, ${record.copiesArrived} arrived; ${record.acksSent} ACKs sent back, ${record.acksArrived} arrived`;
  // The sender's duty: a copy each time its timer runs out (an update or two late, and the oldest goes first).
  const due = sendsDue(peer, endUs - m.firstSendUs, slack);
  if (record.copiesSent < due / 2)
    return {
      forced: false,
      evidence: `${what} went out ${record.copiesSent} times in ${s(endUs - m.firstSendUs)}; its retransmit policy sends ${due} (${counts})`,
    };
  // An ACK read before the ending update would have cleared it (arrivals are read at the next update).
  const lastUsefulUs = endUs - 2 * slack.updateUs;
  if (record.firstAckArrivedUs <= lastUsefulUs)
    return {
      forced: false,
      evidence: `${what} was given up although an ACK of it arrived at ${s(record.firstAckArrivedUs)} (${counts})`,
    };
  // The receiver ACKs every reliable copy, duplicates too, within an update or two (or on its ACK timer).
  const answerUs = msToUs(peer.params.ackResendIntervalMs) + 3 * slack.updateUs;
  const isConnect = connectKey === keyOf(m);
  const unanswered = record.unansweredSinceUs;
  if (!isConnect && !Number.isNaN(unanswered) && unanswered + answerUs < Math.min(endUs, remoteEndUs)) {
    return {
      forced: false,
      evidence: `${what}: a copy reached the ${other(role)} at ${s(unanswered)} and it sent no ACK of it (${counts})`,
    };
  }
  return {
    forced: true,
    evidence: `the link lost every copy of ${what} or every ACK of it from ${s(m.firstSendUs)} to ${s(endUs)} (${counts})`,
  };
}
