// Cases on the server's handling of ACKs, as sender and as receiver:
// re-sends of unACKed messages and their end (DECISIONS.md 11), ACK categories
// (DECISIONS.md 2, 7), per-fragment ACKs (DECISIONS.md 14) and ACKs that match
// nothing (transport-layer.md §4).
import { TYPE_ACK, TYPE_DATA, TYPE_GAME, ackFlagsFragment, ackFlagsLowType } from '../../../core/codec/index.js';
import type { DataMessage, Message } from '../../../core/codec/index.js';
import { FINAL_ROUND, checksumAnswer, parseChecksumRequest, roundLabel } from '../../../model/traffic/index.js';
import type { CaseContext, ConformCase, Verdict } from '../case-types.js';
import { combine, evidence, fail, notExercised, pass, seconds } from '../case-types.js';
import type { ConformClient, ServerMessage } from '../client.js';
import { ackMessage, describeMessage, isData, reactionSince } from '../client.js';
import {
  FRAGMENT_CHUNK_BYTES,
  answerRounds,
  connect,
  isChecksumRequest,
  keepaliveMessage,
  newProgress,
  sendGame,
} from '../join.js';
import type { JoinProgress } from '../join.js';
import { serverAckOf } from './processing.js';

function sameKey(a: DataMessage, b: DataMessage): boolean {
  return (
    a.reliable &&
    a.type === b.type &&
    a.seq === b.seq &&
    a.fragIndex === b.fragIndex &&
    (a.type === TYPE_GAME ? a.payload[0] === b.payload[0] : true)
  );
}

/** Waits up to `ms` past `since` for a copy of `first`. */
async function waitCopy(
  client: ConformClient,
  first: ServerMessage,
  since: number,
  ms: number,
): Promise<ServerMessage | null> {
  const f = first.message as DataMessage;
  return client.waitFor(
    (m) => m.timeMs > since && m !== first && isData(m.message) && sameKey(m.message, f),
    ms,
    since,
  );
}

function describe(m: ServerMessage): string {
  return describeMessage(m.message);
}

/** Connect, keepalive, and the join until the request of `round` arrives: withholding its ACK is up to `withhold`. */
async function upToRequest(
  client: ConformClient,
  ctx: CaseContext,
  round: number,
  progress: JoinProgress,
): Promise<ServerMessage | null> {
  if (!(await connect(client, progress, ctx.timings))) return null;
  client.send([keepaliveMessage(client)], 'Keepalive');
  if (
    round > 0 &&
    !(await answerRounds(client, ctx.manifest, progress, { untilRound: round - 1, timings: ctx.timings }))
  )
    return null;
  return client.waitFor((m) => isChecksumRequest(m) && requestIsRound(m, round), ctx.timings.stepMs);
}

async function retransmitRun(ctx: CaseContext): Promise<Verdict> {
  const client = await ctx.open('retransmit');
  const t = ctx.timings;
  let acking = false;
  let target: ServerMessage | null = null;
  client.withhold = (m) =>
    !acking &&
    isChecksumRequest(m) &&
    (target === null || sameKey(m.message as DataMessage, target.message as DataMessage)) &&
    requestIsRound(m, 1);
  const progress = newProgress();
  target = await upToRequest(client, ctx, 1, progress);
  if (target === null)
    return notExercised(`join stopped before the round-1 request: ${progress.stopped ?? 'no round-1 request'}`);
  const copy = await waitCopy(client, target, target.timeMs, t.resendWaitMs);
  if (copy === null)
    return fail(`the unACKed round-1 request (${describe(target)}) was never re-sent in ${seconds(t.resendWaitMs)}`, [
      evidence(
        client,
        `withheld our ACK of ${describe(target)}; no copy followed in ${seconds(t.resendWaitMs)}`,
        target,
      ),
    ]);
  const interval = copy.timeMs - target.timeMs;
  const found = [];
  if (interval > t.resendMaxMs || interval < t.resendMinMs) {
    found.push(
      evidence(
        client,
        `first re-send ${seconds(interval)} after the original; documented 2.0 s (DECISIONS.md 11), accepted ${seconds(t.resendMinMs)}–${seconds(t.resendMaxMs)}`,
        copy,
      ),
    );
  }
  // Now ACK it (the copy is ACKed by the client as it arrives from here on).
  acking = true;
  const ackAt = client.now;
  client.send([ackMessage((target.message as DataMessage).seq as number, false)], 'ACK of the withheld request');
  await client.sleep(t.resendMaxMs + t.ackGraceMs);
  const late = client
    .serverMessages()
    .filter(
      (m) => m.timeMs > ackAt + t.ackGraceMs && isData(m.message) && sameKey(m.message, target.message as DataMessage),
    );
  if (late.length > 0)
    found.push(
      evidence(
        client,
        `re-sent ${late.length} time(s) after our ACK at ${seconds(ackAt)}, the first ${seconds(late[0].timeMs - ackAt)} after it`,
        late[0],
      ),
    );
  if (found.length > 0) return fail(`re-sends of the unACKed round-1 request are off`, found);
  return pass(`re-sent ${seconds(interval)} after the original, and not again after our ACK`);
}

function requestIsRound(m: ServerMessage, round: number): boolean {
  return isData(m.message) && m.message.payload.length > 1 && m.message.payload[1] === round;
}

export const retransmit: ConformCase = {
  id: 'retransmit',
  title:
    'An unACKed reliable message is re-sent within the documented interval, and the re-sends stop once it is ACKed.',
  sessions: 1,
  run: retransmitRun,
};

/**
 * Category A: the server's connect reply (low) and round-0 request (high)
 * usually share seq 0. We ACK only the low one; the high one must be re-sent.
 * Category B: the keepalive echo (low) and the round-1 request (high) share
 * the next seq; we ACK only the high one; the echo must be re-sent.
 */
async function categoryRun(ctx: CaseContext): Promise<Verdict> {
  const client = await ctx.open('ack-category');
  const t = ctx.timings;
  // What we leave unACKed: request rounds, and (part B) the keepalive echo.
  const holdRounds = new Set<number>([0]);
  let holdEcho = true;
  client.withhold = (m) => {
    if (!isData(m.message) || !m.message.reliable) return false;
    if (isChecksumRequest(m)) return holdRounds.has(m.message.payload[1]);
    return holdEcho && m.message.type === TYPE_DATA;
  };
  const progress = newProgress();
  if (!(await connect(client, progress, t))) return notExercised(`join stopped: ${progress.stopped}`);
  const r0 = await client.waitFor((m) => isChecksumRequest(m) && requestIsRound(m, 0), t.stepMs);
  if (r0 === null) return notExercised('no round-0 checksum request');
  const seq = (r0.message as DataMessage).seq as number;
  const forgedAt = client.now;
  const forged = client.send(
    [ackMessage(seq, true)],
    `low-type ACK of seq ${seq}: the round-0 request's seq, the other category`,
  );
  const parts: Verdict[] = [];
  const copy = await waitCopy(client, r0, forgedAt, t.resendWaitMs);
  holdRounds.delete(0);
  if (copy !== null) {
    parts.push(
      pass(
        `A: a low-type ACK of seq ${seq} left the round-0 request (high) to be re-sent after ${seconds(copy.timeMs - r0.timeMs)}`,
      ),
    );
  } else {
    // Control: does this server re-send an unACKed message at all?
    client.send([ackMessage(seq, false)], 'ACK of the round-0 request');
    client.send([keepaliveMessage(client)], 'Keepalive');
    holdRounds.add(1);
    const r1 = await answerThen(client, ctx, r0, 1);
    if (r1 === null)
      parts.push(notExercised('A: the round-0 request was not re-sent, and the join stopped before a control'));
    else {
      const control = await waitCopy(client, r1, r1.timeMs, t.resendWaitMs);
      if (control === null)
        parts.push(
          notExercised(
            `A: the server re-sent neither the round-0 request nor the unACKed round-1 request in ${seconds(t.resendWaitMs)}: no re-sends to judge (see the retransmit case)`,
          ),
        );
      else
        parts.push(
          fail(`A: a low-type ACK of seq ${seq} cleared the high-type round-0 request of the same seq`, [
            evidence(
              client,
              `we sent only a low-type ACK of seq ${seq}; the round-0 request (${describe(r0)}) was never re-sent in ${seconds(t.resendWaitMs)}`,
              { timeMs: forgedAt, bytes: forged },
            ),
            evidence(
              client,
              `control: the round-1 request, unACKed with no ACK of ours at all, was re-sent after ${seconds(control.timeMs - r1.timeMs)}`,
              control,
            ),
          ]),
        );
    }
    return combine(parts);
  }
  // B (optional: a server that echoes no keepalive gives it no chance): the echo (low) against a high-type ACK of its seq.
  const partB: Verdict[] = [];
  client.send([keepaliveMessage(client)], 'Keepalive');
  const echo = await client.waitFor(
    (m) => isData(m.message) && m.message.type === TYPE_DATA && m.message.reliable,
    t.stepMs,
    forgedAt,
  );
  if (echo === null) {
    partB.push(notExercised('B: the server sent no reliable low-type message (no keepalive echo) to pair with'));
  } else {
    const echoSeq = (echo.message as DataMessage).seq as number;
    const at = client.now;
    const bytes = client.send(
      [ackMessage(echoSeq, false)],
      `high-type ACK of seq ${echoSeq}: the echo's seq, the other category`,
    );
    const again = await waitCopy(client, echo, at, t.resendWaitMs);
    if (again !== null)
      partB.push(pass(`B: a high-type ACK of seq ${echoSeq} left the keepalive echo (low) to be re-sent`));
    else
      partB.push(
        fail(`B: a high-type ACK of seq ${echoSeq} cleared the low-type keepalive echo of the same seq`, [
          evidence(
            client,
            `the echo (${describe(echo)}) was never re-sent in ${seconds(t.resendWaitMs)} after our high-type ACK of its seq (the server re-sent the round-0 request, so it does re-send)`,
            { timeMs: at, bytes },
          ),
        ]),
      );
  }
  holdEcho = false;
  return combine(parts, partB);
}

/** Answers `request` (already here) from the manifest and waits for the request of round `next`. */
async function answerThen(
  client: ConformClient,
  ctx: CaseContext,
  request: ServerMessage,
  next: number,
): Promise<ServerMessage | null> {
  const parsed = parseChecksumRequest(isData(request.message) ? request.message.payload : new Uint8Array(0));
  if (!parsed.ok) return null;
  const since = client.now;
  sendGame(client, checksumAnswer(ctx.manifest, parsed.value), `ChecksumResponse ${roundLabel(parsed.value.round)}`);
  return client.waitFor((m) => isChecksumRequest(m) && requestIsRound(m, next), ctx.timings.stepMs, since);
}

export const ackCategory: ConformCase = {
  id: 'ack-category',
  title: "An ACK of one category (low or high) never clears the other category's entry with the same seq.",
  sessions: 1,
  run: categoryRun,
};

async function fragmentAcksRun(ctx: CaseContext): Promise<Verdict> {
  const client = await ctx.open('fragment-acks');
  const t = ctx.timings;
  const progress = newProgress();
  let pieces: DataMessage[] = [];
  let withheldIndex = -1;
  let firstAt = 0;
  let laterAt = 0;
  const ok = await (async () => {
    if (!(await connect(client, progress, t))) return false;
    client.send([keepaliveMessage(client)], 'Keepalive');
    return answerRounds(client, ctx.manifest, progress, {
      untilRound: 2,
      timings: t,
      answer: async (round, payload) => {
        if (round !== 2 || payload.length <= FRAGMENT_CHUNK_BYTES) {
          sendGame(client, payload, `ChecksumResponse ${roundLabel(round)}`);
          return;
        }
        pieces = client.fragments(payload, FRAGMENT_CHUNK_BYTES);
        withheldIndex = 1 + Math.floor(ctx.random('fragment-acks').next() * (pieces.length - 1));
        firstAt = client.now;
        pieces.forEach((piece, i) => i !== withheldIndex && client.send([piece], `ChecksumResponse r2 fragment ${i}`));
        await client.sleep(t.ackWithinMs + 500);
        laterAt = client.now;
        client.send([pieces[withheldIndex]], `ChecksumResponse r2 fragment ${withheldIndex}, held back until now`);
      },
    });
  })();
  if (!ok || pieces.length === 0)
    return notExercised(
      `join stopped before round 2's fragmented answer: ${progress.stopped ?? 'no fragmented answer'}`,
    );
  await client.sleep(t.ackWithinMs + 500);
  const seq = pieces[0].seq as number;
  const found = [];
  const acks = client
    .serverMessages()
    .filter(
      (m) =>
        m.timeMs >= firstAt &&
        m.message.type === TYPE_ACK &&
        m.message.seq === seq &&
        !ackFlagsLowType(m.message.flags),
    );
  for (const m of acks) {
    const ack = m.message as Message & { flags: number; fragIndex: number | null };
    if (!ackFlagsFragment(ack.flags))
      found.push(
        evidence(
          client,
          `a 4-byte ACK of seq ${seq} while its fragments were in flight: it cannot say which fragment (DECISIONS.md 2)`,
          m,
        ),
      );
    else if (ack.fragIndex === withheldIndex && m.timeMs < laterAt)
      found.push(evidence(client, `an ACK of fragment ${withheldIndex} of seq ${seq} before we sent that fragment`, m));
    else if (ack.fragIndex === null || ack.fragIndex >= pieces.length)
      found.push(
        evidence(client, `an ACK of fragment ${ack.fragIndex} of seq ${seq}, which has ${pieces.length} fragments`, m),
      );
  }
  for (const piece of pieces) {
    const since = piece.fragIndex === withheldIndex ? laterAt : firstAt;
    if (serverAckOf(client, piece, since) === undefined)
      found.push(
        evidence(
          client,
          `fragment ${piece.fragIndex} of seq ${seq} got no 5-byte ACK of its own within ${seconds(t.ackWithinMs + 500)}`,
        ),
      );
  }
  if (found.length > 0) return fail(`the server's fragment ACKs do not each name their own fragment`, found);
  return pass(
    `each of the ${pieces.length} fragments of seq ${seq} got a 5-byte ACK naming it, fragment ${withheldIndex} only after we sent it`,
  );
}

export const fragmentAcks: ConformCase = {
  id: 'fragment-acks',
  title:
    'Each fragment ACK clears exactly its own fragment: the server ACKs each fragment it got, and only those, by seq and index.',
  sessions: 1,
  run: fragmentAcksRun,
};

/**
 * High-type ACKs of things never sent, long ACKed, or sent again, and a
 * duplicate of the connect reply's low ACK. Other low-type seqs are left out:
 * an ACK that crosses categories is the ack-category case's to judge.
 */
function junkAcks(acked: readonly number[], connectSeq: number, nextHigh: number): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < 3; i++) for (const seq of acked) out.push(ackMessage(seq, false));
  for (let i = 0; i < 3; i++) out.push(ackMessage(connectSeq, true));
  for (let s = nextHigh; s < nextHigh + 8; s++) out.push(ackMessage(s & 0xffff, false));
  for (const s of [30000, 32768, 65535]) out.push(ackMessage(s, false));
  for (let i = 0; i < 4; i++) for (const seq of acked) out.push(ackMessage(seq, false, i));
  return out;
}

/** The request of round `round` if it is here, else waits for it. */
function request(client: ConformClient, round: number, ms: number): Promise<ServerMessage | null> {
  return client.waitFor((m) => isChecksumRequest(m) && requestIsRound(m, round), ms);
}

async function staleAcksRun(ctx: CaseContext): Promise<Verdict> {
  const client = await ctx.open('stale-acks');
  const t = ctx.timings;
  // Rounds 2 and 3: high seqs that no low-type ACK of ours shares (the join's low messages use 0 and 1).
  const hold = new Set<number>([2]);
  client.withhold = (m) => isChecksumRequest(m) && isData(m.message) && hold.has(m.message.payload[1]);
  const progress = newProgress();
  if (!(await connect(client, progress, t))) return notExercised(`join stopped: ${progress.stopped}`);
  client.send([keepaliveMessage(client)], 'Keepalive');
  if (!(await answerRounds(client, ctx.manifest, progress, { untilRound: 1, timings: t })))
    return notExercised(`join stopped: ${progress.stopped}`);
  const r2 = await request(client, 2, t.stepMs);
  if (r2 === null) return notExercised('no round-2 checksum request');
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
  const junk = junkAcks(acked, connectSeq, (r2seq + 1) & 0xffff);
  const junkAt = client.now;
  const junkBytes = client.send(
    junk,
    'duplicate, late and stale ACKs (high type; the next seqs ACKed before they are sent)',
  );
  const found = [];
  const r3 = await answerThen(client, ctx, r2, 3);
  if (r3 === null)
    return fail(`the server stopped after our stale ACKs: ${reactionSince(client, junkAt)}`, [
      evidence(client, 'the burst of duplicate, late and stale ACKs', { timeMs: junkAt, bytes: junkBytes }),
    ]);
  // Again, now that the round-3 request is out: all but its own ACK, which would be a real one.
  const r3seq = (r3.message as DataMessage).seq as number;
  client.send(
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
      evidence(client, `the ${junk.length} stale ACKs we sent`, { timeMs: junkAt, bytes: junkBytes }),
    ]);
  return pass(
    `${junk.length} duplicate, late and stale ACKs (twice) left the outstanding request to be re-sent, and the join went on`,
  );
}

export const staleAcks: ConformCase = {
  id: 'stale-acks',
  title: 'Duplicate, late and stale ACKs are harmless: they clear no other entry and upset nothing.',
  sessions: 1,
  run: staleAcksRun,
};

export { requestIsRound };
