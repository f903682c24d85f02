// Cases on the server's handling of ACKs, as sender and as receiver:
// re-sends of unACKed messages and their end (docs/sources.md 11), ACK categories
// (docs/sources.md 2, 7) and per-fragment ACKs (docs/sources.md 14).
import { TYPE_ACK, TYPE_DATA, ackFlagsFragment, ackFlagsLowType } from '../../../core/codec/index.js';
import type { DataMessage, Message } from '../../../core/codec/index.js';
import { roundLabel } from '../../../model/traffic/index.js';
import type { CaseContext, ConformCase, Verdict } from '../case-types.js';
import { combine, evidence, fail, notExercised, pass, seconds } from '../case-types.js';
import type { ServerMessage } from '../client.js';
import { ackMessage, isData } from '../client.js';
import { reactionSince } from '../describe.js';
import {
  FRAGMENT_CHUNK_BYTES,
  answerRounds,
  awaitRequest,
  connect,
  isChecksumRequest,
  joinUntilRequest,
  keepaliveMessage,
  newProgress,
  requestIsRound,
  sendGame,
} from '../join.js';
import { answerThen, describe, readAt, sameKey, waitCopy } from './copies.js';
import { serverAckOf } from './processing.js';

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
  target = await joinUntilRequest(client, ctx.manifest, progress, 1, ctx.timings);
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
        `first re-send ${seconds(interval)} after the original; stock 2.0 s, accepted ${seconds(t.resendMinMs)}–${seconds(t.resendMaxMs)}`,
        copy,
      ),
    );
  }
  // Now ACK it (the copy is ACKed by the client as it arrives from here on).
  acking = true;
  const ackAt = client.now;
  client.sendWitnessed(
    [ackMessage((target.message as DataMessage).seq as number, false)],
    'ACK of the withheld request',
    'late-ack',
    keepaliveMessage(client) as DataMessage,
  );
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

const retransmit: ConformCase = {
  id: 'retransmit',
  title:
    'An unACKed reliable message is re-sent within the documented interval, and the re-sends stop once it is ACKed.',
  probe:
    'We withhold the ACK of the round-1 request. Its first re-send must come 0.5–3.5 s later (2.0 s stock), and none may follow 1 s after our ACK.',
  windows: ['resendWaitMs', 'resendMinMs', 'resendMaxMs', 'ackGraceMs'],
  plantedBugs: ['slow-retransmit'],
  sessions: 1,
  probes: { 'late-ack': 'the ACK of a message we had left unACKed' },
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
  // Only part B leaves an echo unACKed (for no longer than it must: a server drops a peer whose message stays unACKed).
  let holdEcho = false;
  client.withhold = (m) => {
    if (!isData(m.message) || !m.message.reliable) return false;
    if (isChecksumRequest(m)) return holdRounds.has(m.message.payload[1]);
    return holdEcho && m.message.type === TYPE_DATA;
  };
  const progress = newProgress();
  if (!(await connect(client, progress, t))) return notExercised(`join stopped: ${progress.stopped}`);
  const r0 = await awaitRequest(client, ctx.manifest, progress, 0, { timings: t });
  if (r0 === null) return notExercised(`join stopped: ${progress.stopped}`);
  const seq = (r0.message as DataMessage).seq as number;
  const forgedAt = client.now;
  const witnessA = keepaliveMessage(client) as DataMessage;
  const forged = client.sendWitnessed(
    [ackMessage(seq, true)],
    `low-type ACK of seq ${seq}: the round-0 request's seq, the other category`,
    'cross-category-ack',
    witnessA,
  );
  const parts: Verdict[] = [];
  // A copy counts only once the server has read our ACK: after the witness's ACK came.
  const copy = await waitCopy(client, r0, await readAt(client, witnessA, forgedAt, t), t.resendWaitMs);
  holdRounds.delete(0);
  if (copy !== null) {
    // Judged: ACK it now, as a client does the copy (a server drops a peer whose message stays unACKed).
    client.send([ackMessage(seq, false)], 'ACK of the round-0 request');
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
    const r1 = await answerThen(client, ctx, progress, r0, 1);
    if (r1 === null)
      parts.push(
        notExercised(
          `A: the round-0 request was not re-sent, and the join stopped before a control: ${progress.stopped}`,
        ),
      );
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
              `the round-0 request (${describe(r0)}), which we left unACKed, was never re-sent in ${seconds(t.resendWaitMs)} after our low-type ACK of seq ${seq}`,
              r0,
            ),
            evidence(client, `our datagram: only a low-type ACK of seq ${seq} (and our keepalive)`, {
              timeMs: forgedAt,
              bytes: forged,
            }),
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
  const sentB = client.now;
  holdEcho = true;
  client.send([keepaliveMessage(client)], 'Keepalive');
  const echo = await client.waitFor(
    (m) => isData(m.message) && m.message.type === TYPE_DATA && m.message.reliable,
    t.stepMs,
    sentB,
  );
  if (echo === null) {
    partB.push(notExercised('B: the server sent no reliable low-type message (no keepalive echo) to pair with'));
  } else {
    const echoSeq = (echo.message as DataMessage).seq as number;
    const at = client.now;
    const witnessB = keepaliveMessage(client) as DataMessage;
    const bytes = client.sendWitnessed(
      [ackMessage(echoSeq, false)],
      `high-type ACK of seq ${echoSeq}: the echo's seq, the other category`,
      'cross-category-ack',
      witnessB,
    );
    const again = await waitCopy(client, echo, await readAt(client, witnessB, at, t), t.resendWaitMs);
    holdEcho = false;
    client.send([ackMessage(echoSeq, true)], 'ACK of the echo');
    if (again !== null)
      partB.push(pass(`B: a high-type ACK of seq ${echoSeq} left the keepalive echo (low) to be re-sent`));
    else
      partB.push(
        fail(`B: a high-type ACK of seq ${echoSeq} cleared the low-type keepalive echo of the same seq`, [
          evidence(
            client,
            `the echo (${describe(echo)}) was never re-sent in ${seconds(t.resendWaitMs)} after our high-type ACK of its seq (the server re-sent the round-0 request, so it does re-send)`,
            echo,
          ),
          evidence(client, `our datagram: only a high-type ACK of seq ${echoSeq} (and our keepalive)`, {
            timeMs: at,
            bytes,
          }),
        ]),
      );
  }
  return combine(parts, partB);
}

const ackCategory: ConformCase = {
  id: 'ack-category',
  title: "An ACK of one category (low or high) never clears the other category's entry with the same seq.",
  probe:
    'The connect reply (low) and the round-0 request (high) share seq 0. We send a low-type ACK of seq 0 and withhold the high one, and the request must still be re-sent. Then the same, reversed, with the keepalive echo. A control shows the server re-sends at all.',
  windows: ['resendWaitMs'],
  plantedBugs: ['ack-ignores-category'],
  alsoFailedBy: {
    'stale-ack-clears-oldest': 'its stale low-type ACK clears the high-type request, which is what that case checks',
  },
  sessions: 1,
  probes: { 'cross-category-ack': 'an ACK of one category naming the seq of the other' },
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
        const mark = (piece: DataMessage) => ({ fault: 'fragments-out-of-order' as const, proof: [piece] });
        pieces.forEach(
          (piece, i) => i !== withheldIndex && client.send([piece], `ChecksumResponse r2 fragment ${i}`, mark(piece)),
        );
        await client.sleep(t.ackWithinMs + 500);
        laterAt = client.now;
        client.send(
          [pieces[withheldIndex]],
          `ChecksumResponse r2 fragment ${withheldIndex}, held back until now`,
          mark(pieces[withheldIndex]),
        );
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
          `a 4-byte ACK of seq ${seq} while its fragments were in flight: it cannot say which fragment (a fragment's ACK is 5 bytes, with its index)`,
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
    if (serverAckOf(client, piece, since) !== undefined) continue;
    const sent = client.departures.find((d) => d.timeMs >= since && d.proof.includes(piece));
    found.push(
      evidence(
        client,
        `fragment ${piece.fragIndex} of seq ${seq} got no 5-byte ACK of its own within ${seconds(t.ackWithinMs + 500)}; ${reactionSince(client, since)}`,
        sent ?? null,
      ),
    );
  }
  if (found.length > 0) return fail(`the server's fragment ACKs do not each name their own fragment`, found);
  return pass(
    `each of the ${pieces.length} fragments of seq ${seq} got a 5-byte ACK naming it, fragment ${withheldIndex} only after we sent it`,
  );
}

const fragmentAcks: ConformCase = {
  id: 'fragment-acks',
  title:
    'Each fragment ACK clears exactly its own fragment: the server ACKs each fragment it got, and only those, by seq and index.',
  probe:
    "We send the round-2 answer's fragments with one held back. Each fragment must get a 5-byte ACK naming its seq and index, and the held-back one only after it was sent.",
  windows: ['ackWithinMs'],
  plantedBugs: ['fragment-ack-index-zero'],
  sessions: 1,
  probes: {},
  run: fragmentAcksRun,
};

/** The cases on the server's ACKs and re-sends, in the order a report lists them (cases/index.ts joins the groups). */
export const ACK_CASES: readonly ConformCase[] = [ackCategory, retransmit, fragmentAcks];
