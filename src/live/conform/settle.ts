// What the campaign checks after a case has given its verdict, over the case's
// sessions, before the verdict is reported:
// - a datagram the verdict rests on (a proof, client.ts) whose proof the server
//   never ACKed was not read: no PASS stands on it, and it becomes the first
//   line of a FAIL;
// - a verdict on a session whose log is incomplete (the campaign's log budget
//   was spent, campaign-wire.ts) rests on part of what was said: it is NOT
//   EXERCISED, never a PASS or a FAIL;
// - a FAIL whose session the server had ended (a Boot, its Disconnect, silence)
//   names that end first, with the datagram of ours that came just before it,
//   and the case that probes that datagram's fault explains it.
import { TYPE_ACK, ackFlagsLowType, isLowType } from '../../core/codec/index.js';
import { secondsToMs } from '../../core/engine/index.js';
import type { DataMessage, Located } from '../../core/codec/index.js';
import type { CaseEvidence, ConformCase, Verdict } from './case-types.js';
import { evidence, notExercised, seqLabel } from './case-types.js';
import type { ConformClient, Departure, FaultKind } from './client.js';
import { reactionSince } from './describe.js';
import { faultLabel } from './catalogue.js';
import { keepaliveMessage } from './join.js';
import { describeEnd, isAckOf } from './session-end.js';
import type { SessionEnd } from './session-end.js';

/** How long a FAIL's sessions are asked whether the server still serves them. */
const ALIVE_PROBE_MS = 1500;
/** Our datagrams this long before a session's end are the ones that may have caused it. */
const CAUSE_WINDOW_MS = 3000;

/** A verdict after the campaign's checks, with the removal it follows, if any. */
export interface Settled extends Verdict {
  /** The server ended a session of this case before the FAIL: what it did, after which datagram of ours. */
  readonly removedAfter: RemovedAfter | null;
  /** The fault kind of the datagram the removal followed (the case that probes it explains this FAIL). */
  readonly removalFault: FaultKind | null;
}

export interface RemovedAfter {
  readonly session: string;
  /** What the server did, and when. */
  readonly end: string;
  /** Our datagram just before it (its note), or null when we sent nothing just before. */
  readonly after: string | null;
}

/** A datagram the verdict rests on whose proof the server never ACKed. */
interface Unread {
  readonly client: ConformClient;
  readonly departure: Departure;
  readonly unacked: readonly DataMessage[];
}

export async function settle(
  c: ConformCase,
  verdict: Verdict,
  clients: readonly ConformClient[],
  ackWithinMs: number,
): Promise<Settled> {
  const partial = clients.filter((client) => client.overflow > 0);
  if (partial.length > 0)
    return {
      ...notExercised(
        `the log of ${partial.map((p) => `[${p.label}]`).join(', ')} is incomplete (${partial.reduce((n, p) => n + p.overflow, 0)} datagrams not kept: the campaign's log budget was spent), so no verdict can rest on it`,
      ),
      removedAfter: null,
      removalFault: null,
    };
  if (verdict.status === 'fail' && !c.endsSessions)
    for (const client of clients) await client.probeAlive(keepaliveMessage(client) as DataMessage, ALIVE_PROBE_MS);
  // A proof sent just before the case ended gets the time any ACK has to come.
  await Promise.all(
    clients
      .flatMap(unreadProofs)
      .flatMap(({ client, departure, unacked }) =>
        unacked.map((m) =>
          client.waitFor(
            (a) => readsProof(a.message, m),
            departure.timeMs + ackWithinMs - client.now,
            departure.timeMs,
          ),
        ),
      ),
  );
  const unread = clients.flatMap(unreadProofs);
  const read = withUnread(verdict, unread);
  if (read.status !== 'fail' || c.endsSessions) return { ...read, removedAfter: null, removalFault: null };
  // Sessions keep their own clocks: ends and evidence are compared on the campaign's.
  const onCampaign = (client: ConformClient, ms: number) => client.openedAtMs + ms;
  const ended = clients
    .filter((client) => client.ended !== null)
    .sort((a, b) => onCampaign(a, (a.ended as SessionEnd).timeMs) - onCampaign(b, (b.ended as SessionEnd).timeMs))[0];
  if (ended === undefined) return { ...read, removedAfter: null, removalFault: null };
  // An end after the FAIL's first evidence did not cause it: it is told last, not first.
  const firstFound = Math.min(
    ...read.evidence.map((e) => {
      const client = clients.find((k) => k.label === e.session);
      return client === undefined || e.timeS === null
        ? Number.POSITIVE_INFINITY
        : onCampaign(client, secondsToMs(e.timeS));
    }),
  );
  if (onCampaign(ended, (ended.ended as SessionEnd).timeMs) > firstFound)
    return {
      ...read,
      evidence: [...read.evidence, evidence(ended, `afterwards, ${describeEnd(ended.ended as SessionEnd)}`)],
      removedAfter: null,
      removalFault: null,
    };
  const end = ended.ended as SessionEnd;
  const cause = causeOf(ended, end);
  const removedAfter: RemovedAfter = {
    session: ended.label,
    end: describeEnd(end),
    after: cause === null ? null : cause.note,
  };
  const after = cause === null ? '' : ` after our ${cause.note}${cause.fault ? ` (${faultLabel(cause.fault)})` : ''}`;
  const first = evidence(
    ended,
    `removed${after}: ${describeEnd(end)}`,
    cause ?? ended.arrivals.find((a) => a.timeMs === end.timeMs) ?? null,
  );
  return {
    status: 'fail',
    summary: `removed${after}: ${read.summary}`,
    evidence: [first, ...read.evidence],
    removedAfter,
    removalFault: cause?.fault ?? null,
  };
}

/** Messages named in an unread-datagram line; the rest are counted. */
const NAMED_UNACKED = 4;

/**
 * A PASS or NOT EXERCISED resting on an unread datagram is a FAIL that leads with it;
 * a FAIL keeps its own evidence first and adds it after.
 */
function withUnread(verdict: Verdict, unread: readonly Unread[]): Verdict {
  if (unread.length === 0) return verdict;
  const lines: CaseEvidence[] = unread.map(({ client, departure, unacked }) => {
    const named = unacked
      .slice(0, NAMED_UNACKED)
      .map((m) => seqLabel(m.seq as number, isLowType(m.type), m.fragment ? m.fragIndex : null));
    const more = unacked.length > NAMED_UNACKED ? ` and ${unacked.length - NAMED_UNACKED} more` : '';
    return evidence(
      client,
      `no ACK came for our datagram "${departure.note}" (${named.join(', ')}${more}): a server that reads a datagram ACKs its reliable messages; ${reactionSince(client, departure.timeMs)}`,
      departure,
    );
  });
  if (verdict.status === 'fail') return { ...verdict, evidence: [...verdict.evidence, ...lines] };
  const { departure } = unread[0];
  return {
    status: 'fail',
    summary: `the server did not read our datagram "${departure.note}" (no ACK of ours in it came), so the case cannot ${verdict.status === 'pass' ? 'pass' : 'be skipped'}: ${verdict.summary}`,
    evidence: [...lines, ...verdict.evidence],
  };
}

/**
 * Our datagrams with a proof that got no ACK of it. One sent after the server had
 * ended the session is not counted: the end explains it.
 */
function unreadProofs(client: ConformClient): Unread[] {
  const endedAt = client.ended?.timeMs ?? Number.POSITIVE_INFINITY;
  const proven = client.departures.filter((d) => d.proof.length > 0 && d.timeMs <= endedAt);
  if (proven.length === 0) return [];
  const acks = client.serverMessages().filter((m) => m.message.type === TYPE_ACK);
  const out: Unread[] = [];
  for (const departure of proven) {
    const unacked = departure.proof.filter(
      (m) => !acks.some((a) => a.timeMs >= departure.timeMs && readsProof(a.message, m)),
    );
    if (unacked.length > 0) out.push({ client, departure, unacked });
  }
  return out;
}

/**
 * Does this ACK show the server read `proof`? Its own ACK does; for a fragment, any ACK
 * of its seq and category does too: a wrong fragment index is fragment-acks' to judge.
 */
function readsProof(ack: Located, proof: DataMessage): boolean {
  if (isAckOf(ack, proof)) return true;
  return (
    proof.fragment &&
    ack.type === TYPE_ACK &&
    ack.seq === proof.seq &&
    ackFlagsLowType(ack.flags) === isLowType(proof.type)
  );
}

/**
 * Our datagram that the end followed, preferring one that carried a fault: the last
 * before a Boot or Disconnect; for silence, one sent around the server's last
 * datagram and before our keepalive asked.
 */
function causeOf(client: ConformClient, end: SessionEnd): Departure | null {
  const until = end.how === 'silent' ? (end.askedMs ?? end.timeMs) : end.timeMs + 50;
  const candidates = client.departures.filter((d) => d.timeMs < until && d.timeMs >= end.timeMs - CAUSE_WINDOW_MS);
  const faulted = candidates.filter((d) => d.fault !== null).at(-1);
  if (faulted !== undefined) return faulted;
  if (end.how !== 'silent') return candidates.at(-1) ?? null;
  return candidates.find((d) => d.timeMs >= end.timeMs) ?? candidates.at(-1) ?? null;
}
