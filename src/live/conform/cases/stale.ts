// Duplicate, late and stale ACKs are harmless (transport-layer.md §4): an ACK
// that matches nothing clears nothing and upsets nothing.
import { TYPE_ACK, seqNext } from '../../../core/codec/index.js';
import type { DataMessage, Message } from '../../../core/codec/index.js';
import { FINAL_ROUND, checksumAnswer, parseChecksumRequest } from '../../../model/traffic/index.js';
import type { CaseContext, ConformCase, Verdict } from '../case-types.js';
import { evidence, fail, notExercised, pass, seconds } from '../case-types.js';
import type { ConformClient } from '../client.js';
import { ackMessage, isData } from '../client.js';
import { reactionSince } from '../describe.js';
import { answerRounds, isChecksumRequest, joinUntilRequest, keepaliveMessage, newProgress, sendGame } from '../join.js';
import { answerThen, describe, waitCopy } from './copies.js';

/**
 * High-type ACKs of things never sent, long ACKed, or sent again, and a
 * duplicate of the connect reply's low ACK. Other low-type seqs are left out:
 * an ACK that crosses categories is the ack-category case's to judge, and
 * fragment ACKs (of whole messages too) are mixed-fragment-acks'.
 */
function junkAcks(acked: readonly number[], connectSeq: number, nextHigh: number): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < 3; i++) for (const seq of acked) out.push(ackMessage(seq, false));
  for (let i = 0; i < 3; i++) out.push(ackMessage(connectSeq, true));
  for (let i = 0, s = nextHigh; i < 8; i++, s = seqNext(s)) out.push(ackMessage(s, false));
  for (const s of [30000, 32768, 65535]) out.push(ackMessage(s, false));
  return out;
}

/**
 * Stale ACKs per datagram: fewer than the 33 messages of the fullest stock datagram
 * measured, so this case judges stale ACKs alone (full-datagram judges capacity).
 */
const JUNK_PER_DATAGRAM = 18;

/** Sends the stale ACKs in datagrams of JUNK_PER_DATAGRAM, each with our keepalive last as its witness. */
function sendJunk(client: ConformClient, junk: readonly Message[], note: string): Uint8Array {
  let first: Uint8Array | null = null;
  for (let i = 0; i < junk.length; i += JUNK_PER_DATAGRAM) {
    const part = junk.slice(i, i + JUNK_PER_DATAGRAM);
    const bytes = client.sendWitnessed(
      part,
      `${note} (${i + 1}–${i + part.length} of ${junk.length})`,
      'stale-acks',
      keepaliveMessage(client) as DataMessage,
    );
    first ??= bytes;
  }
  return first ?? new Uint8Array(0);
}

async function staleAcksRun(ctx: CaseContext): Promise<Verdict> {
  const client = await ctx.open('stale-acks');
  const t = ctx.timings;
  // Rounds 2 and 3: high seqs that no low-type ACK of ours shares (the join's low messages use 0 and 1).
  const hold = new Set<number>([2]);
  client.withhold = (m) => isChecksumRequest(m) && isData(m.message) && hold.has(m.message.payload[1]);
  const progress = newProgress();
  const r2 = await joinUntilRequest(client, ctx.manifest, progress, 2, t);
  if (r2 === null) return notExercised(`join stopped: ${progress.stopped}`);
  // Control: this server re-sends a withheld message at all.
  const control = await waitCopy(client, r2, r2.timeMs, t.resendWaitMs);
  if (control === null)
    return notExercised(
      `the server did not re-send the unACKed round-2 request in ${seconds(t.resendWaitMs)}: no re-sends to judge stale ACKs by (see the retransmit case)`,
    );
  hold.delete(2);
  hold.add(3);
  const acked = progress.requests.map((r) => (r.message as DataMessage).seq as number);
  const r2seq = (r2.message as DataMessage).seq as number;
  acked.push(r2seq);
  client.send([ackMessage(r2seq, false)], 'ACK of the round-2 request');
  const connectSeq =
    progress.connectReply !== null && isData(progress.connectReply.message)
      ? (progress.connectReply.message.seq ?? 0)
      : 0;
  const junk = junkAcks(acked, connectSeq, seqNext(r2seq));
  const junkAt = client.now;
  const junkBytes = sendJunk(
    client,
    junk,
    'duplicate, late and stale ACKs (high type; the next seqs ACKed before they are sent)',
  );
  const found = [];
  const r3 = await answerThen(client, ctx, progress, r2, 3);
  if (r3 === null)
    return fail(`the server stopped after our stale ACKs: ${progress.stopped}; ${reactionSince(client, junkAt)}`, [
      evidence(client, 'the burst of duplicate, late and stale ACKs', { timeMs: junkAt, bytes: junkBytes }),
    ]);
  // Again, now that the round-3 request is out: all but its own ACK, which would be a real one.
  const r3seq = (r3.message as DataMessage).seq as number;
  sendJunk(
    client,
    junk.filter((a) => !(a.type === TYPE_ACK && a.seq === r3seq && a.flags === 0)),
    'the stale ACKs again, while the round-3 request is outstanding',
  );
  const again = await waitCopy(client, r3, r3.timeMs, t.resendWaitMs);
  if (again === null)
    found.push(
      evidence(
        client,
        `the round-3 request (${describe(r3)}), unACKed, was never re-sent in ${seconds(t.resendWaitMs)} after our stale ACKs (the round-2 request was re-sent, before them, ${seconds(control.timeMs - r2.timeMs)} after it was sent)`,
        r3,
      ),
    );
  hold.clear();
  client.send([ackMessage((r3.message as DataMessage).seq as number, false)], 'ACK of the round-3 request');
  progress.requests.push(r2);
  const parsed = parseChecksumRequest((r3.message as DataMessage).payload);
  if (parsed.ok) sendGame(client, checksumAnswer(ctx.manifest, parsed.value), 'ChecksumResponse r3');
  progress.requests.push(r3);
  if (!(await answerRounds(client, ctx.manifest, progress, { untilRound: FINAL_ROUND, timings: t })))
    found.push(evidence(client, `the join stopped after our stale ACKs: ${progress.stopped}`));
  if (found.length > 0)
    return fail('stale ACKs were not harmless', [
      ...found,
      evidence(client, `the first datagram of the ${junk.length} stale ACKs we sent`, {
        timeMs: junkAt,
        bytes: junkBytes,
      }),
    ]);
  return pass(
    `${junk.length} duplicate, late and stale ACKs (twice) left the outstanding request to be re-sent, and the join went on`,
  );
}

const staleAcks: ConformCase = {
  id: 'stale-acks',
  title: 'Duplicate, late and stale ACKs are harmless: they clear no other entry and upset nothing.',
  probe:
    'After a control re-send, 23 ACKs go out twice, 18 to a datagram: repeats, ACKs of seqs not yet sent, and far seqs. The next request, unACKed, must still be re-sent, and the join must go on.',
  windows: ['resendWaitMs'],
  plantedBugs: ['stale-ack-clears-oldest'],
  sessions: 1,
  probes: { 'stale-acks': 'duplicate, late and stale ACKs' },
  run: staleAcksRun,
};

/** The cases on ACKs that match nothing, in the order a report lists them (cases/index.ts joins the groups). */
export const STALE_CASES: readonly ConformCase[] = [staleAcks];
