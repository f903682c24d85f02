// Cases on what the server does with what it receives: a re-sent message is
// processed once; fragments that arrive out of order, twice, or with a gap
// reassemble to exactly the original bytes (transport-layer.md §4–§5); messages
// that arrive out of seq order are processed in seq order.
import { isLowType, seqDistance } from '../../../core/codec/index.js';
import type { DataMessage, Located } from '../../../core/codec/index.js';
import { FINAL_ROUND, parseChecksumRequest, roundLabel } from '../../../model/traffic/index.js';
import type { ConformCase, CaseContext, Verdict } from '../case-types.js';
import { evidence, fail, notExercised, pass, seconds, combine, seqLabel } from '../case-types.js';
import type { ConformClient, ServerMessage } from '../client.js';
import { isData } from '../client.js';
import { describeArrival, reactionSince } from '../describe.js';
import {
  answerRounds,
  connect,
  enterGame,
  isChecksumRequest,
  keepaliveMessage,
  newProgress,
  sendGame,
} from '../join.js';
import { bootsUs, isAckOf } from '../session-end.js';
import { RELAY_WAIT_MS, isVerdict, joinedPair, relayControl, relayMessage, relayedNumber } from './relay.js';

/** The stock client re-sends an unACKed message after 2.0 s (docs/sources.md 11): the duplicate leaves then. */
const DUPLICATE_AFTER_MS = 2000;
/** How long after the duplicate a second reply would show. */
const WATCH_AFTER_DUPLICATE_MS = 3000;

/** Did the server ACK our `message` (its seq, category, fragment index) at or after `since`? */
export function serverAckOf(client: ConformClient, message: DataMessage, since: number): ServerMessage | undefined {
  return client.serverMessages().find((m) => m.timeMs >= since && isAckOf(m.message, message));
}

function requestRound(m: ServerMessage): string {
  if (!isData(m.message)) return '?';
  const parsed = parseChecksumRequest(m.message.payload);
  return parsed.ok ? roundLabel(parsed.value.round) : '?';
}

/** Reliable messages with a seq not seen before (copies of one message count once). */
function newReliables(list: readonly ServerMessage[], known: ReadonlySet<string>): ServerMessage[] {
  const seen = new Set(known);
  const out: ServerMessage[] = [];
  for (const m of list) {
    if (!isData(m.message) || !m.message.reliable) continue;
    const key = keyOf(m.message);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(m);
  }
  return out;
}

function keyOf(m: Located<DataMessage>): string {
  return `${isLowType(m.type) ? 'low' : 'high'}:${m.seq}:${m.fragIndex ?? -1}`;
}

async function duplicateRun(ctx: CaseContext): Promise<Verdict> {
  const client = await ctx.open('duplicate-processing');
  const progress = newProgress();
  if (!(await connect(client, progress, ctx.timings)))
    return notExercised(`join stopped: ${progress.stopped}`, [evidence(client, progress.stopped ?? '')]);
  client.send([keepaliveMessage(client)], 'Keepalive');
  let original: DataMessage | null = null;
  let sentAt = 0;
  const ok = await answerRounds(client, ctx.manifest, progress, {
    untilRound: 1,
    timings: ctx.timings,
    answer: (round, payload) => {
      const [message] = sendGame(client, payload, `ChecksumResponse ${roundLabel(round)}`);
      if (round === 1) {
        original = message as DataMessage;
        sentAt = client.now;
      }
    },
  });
  if (!ok || original === null)
    return notExercised(`join stopped before round 1 was answered: ${progress.stopped}`, [
      evidence(client, progress.stopped ?? ''),
    ]);
  const message: DataMessage = original;
  const next = await client.waitFor(
    (m) => isChecksumRequest(m) && requestRound(m) === roundLabel(2),
    ctx.timings.stepMs,
    sentAt,
  );
  if (next === null)
    return notExercised(`no checksum request after our round-1 answer, so nothing to repeat`, [
      evidence(client, 'no request after round 1'),
    ]);
  const before = new Set(
    client
      .serverMessages()
      .filter((m) => isData(m.message) && m.message.reliable)
      .map((m) => keyOf(m.message as Located<DataMessage>)),
  );
  await client.sleep(sentAt + DUPLICATE_AFTER_MS - client.now);
  const duplicateAt = client.now;
  const bytes = client.send([message], `duplicate of ChecksumResponse r1, ${seqLabel(message.seq as number, false)}`, {
    fault: 'duplicate',
    proof: 'all',
  });
  await client.sleep(WATCH_AFTER_DUPLICATE_MS);
  const found = [];
  const after = client.serverMessages().filter((m) => m.timeMs >= duplicateAt);
  const ack = serverAckOf(client, message, duplicateAt);
  for (const m of newReliables(after, before)) {
    if (bootsUs(client, m))
      found.push(evidence(client, `the server Booted us ${seconds(m.timeMs - duplicateAt)} after the duplicate`, m));
    else if (isChecksumRequest(m))
      found.push(
        evidence(
          client,
          `processed twice: a second reply, checksum request round ${requestRound(m)} (${seqLabel((m.message as DataMessage).seq as number, false)}) ${seconds(m.timeMs - duplicateAt)} after the duplicate; round ${requestRound(next)} was already asked`,
          m,
        ),
      );
  }
  // The server's second reply is the decisive line; a missing ACK of the duplicate comes after it.
  if (ack === undefined)
    found.push(
      evidence(
        client,
        `our duplicate of ${seqLabel(message.seq as number, false)} got no ACK in ${seconds(WATCH_AFTER_DUPLICATE_MS)}: a client whose first ACK was lost re-sends it for ever (a receiver ACKs every copy); ${reactionSince(client, duplicateAt)}`,
        { timeMs: duplicateAt, bytes },
      ),
    );
  if (found.length > 0) return fail(`the re-sent round-1 answer was not handled as a duplicate`, found);
  return pass(
    `the duplicate (${seqLabel(message.seq as number, false)}, sent ${seconds(duplicateAt - sentAt)} after the original) was ACKed and drew no second reply`,
  );
}

const duplicateProcessing: ConformCase = {
  id: 'duplicate-processing',
  title:
    'A reliable message re-sent because its ACK was lost is processed once: no second reply, no second state change.',
  probe:
    'The round-1 checksum answer is sent again with its seq 2 s later, as a stock client re-sends it. The server must ACK the duplicate, and must not send a second reply (a further checksum request, or a Boot).',
  windows: ['stepMs'],
  plantedBugs: ['no-duplicate-ack', 'no-duplicate-detection'],
  sessions: 1,
  probes: { duplicate: 'a reliable message sent again with its seq' },
  run: duplicateRun,
};

/** The ways the fragments of our round-0xFF answer are sent. */
type FragmentFault = 'out-of-order' | 'duplicated' | 'missing-then-resent';
const FRAGMENT_FAULTS: readonly FragmentFault[] = ['out-of-order', 'duplicated', 'missing-then-resent'];
/** Round 0xFF's answer goes in this many fragments (whatever its size). */
const PROBE_FRAGMENTS = 3;

/** The send order of fragment indexes for a fault, drawn from the case's stream. */
export function fragmentOrder(
  fault: FragmentFault,
  count: number,
  draw: () => number,
): { first: number[]; later: number[] } {
  const indexes = Array.from({ length: count }, (_, i) => i);
  if (fault === 'out-of-order') {
    // A shuffle that is never the identity.
    for (let i = count - 1; i > 0; i--) {
      const j = Math.floor(draw() * (i + 1));
      [indexes[i], indexes[j]] = [indexes[j], indexes[i]];
    }
    if (indexes.every((v, i) => v === i)) indexes.reverse();
    return { first: indexes, later: [] };
  }
  if (fault === 'duplicated') {
    const twice = 1 + Math.floor(draw() * (count - 1));
    return { first: [...indexes.slice(0, twice + 1), twice, ...indexes.slice(twice + 1)], later: [] };
  }
  const missing = 1 + Math.floor(draw() * (count - 1));
  return { first: indexes.filter((i) => i !== missing), later: [missing] };
}

async function fragmentProbe(ctx: CaseContext, fault: FragmentFault): Promise<Verdict> {
  const client = await ctx.open(`fragment-reassembly/${fault}`);
  const progress = newProgress();
  const draw = ctx.random(`fragments.${fault}`);
  if (!(await connect(client, progress, ctx.timings)))
    return notExercised(`${fault}: join stopped: ${progress.stopped}`);
  client.send([keepaliveMessage(client)], 'Keepalive');
  let order: { first: number[]; later: number[] } | null = null;
  let answerBytes = 0;
  let lastSentAt = 0;
  let firstBytes: Uint8Array = new Uint8Array(0);
  const ok = await answerRounds(client, ctx.manifest, progress, {
    timings: ctx.timings,
    answer: async (round, payload) => {
      if (round !== FINAL_ROUND) {
        sendGame(client, payload, `ChecksumResponse ${roundLabel(round)}`);
        return;
      }
      answerBytes = payload.length;
      if (payload.length < PROBE_FRAGMENTS) {
        sendGame(client, payload, 'ChecksumResponse 0xFF (too short to split)');
        return;
      }
      const pieces = client.fragments(payload, Math.ceil(payload.length / PROBE_FRAGMENTS));
      order = fragmentOrder(fault, pieces.length, () => draw.next());
      const kind = fault === 'duplicated' ? 'fragment-duplicated' : 'fragments-out-of-order';
      for (const i of order.first) {
        const bytes = client.send([pieces[i]], `ChecksumResponse 0xFF fragment ${i} (${fault})`, {
          fault: kind,
          proof: [pieces[i]],
        });
        if (firstBytes.length === 0) firstBytes = bytes;
      }
      if (order.later.length > 0) {
        // As a stock sender would: the missing fragment again after the 2.0 s retransmit interval.
        await client.sleep(DUPLICATE_AFTER_MS);
        for (const i of order.later)
          client.send([pieces[i]], `ChecksumResponse 0xFF fragment ${i} re-sent`, { fault: kind, proof: [pieces[i]] });
      }
      lastSentAt = client.now;
    },
  });
  if (!ok) return notExercised(`${fault}: join stopped before round 0xFF: ${progress.stopped}`);
  if (order === null)
    return notExercised(
      `${fault}: round 0xFF's answer is ${answerBytes} bytes, too short for ${PROBE_FRAGMENTS} fragments`,
    );
  const sent = order as { first: number[]; later: number[] };
  const how = `fragments ${sent.first.join(', ')}${sent.later.length ? ` then ${sent.later.join(', ')} ${seconds(DUPLICATE_AFTER_MS)} later` : ''}`;
  if (await enterGame(client, progress, ctx.timings))
    return pass(`${fault}: ${how} of our round-0xFF answer reassembled (the server went on to its settings)`);
  const reply = client.arrivals.find((a) => a.timeMs >= lastSentAt && a.messages?.some((m) => isData(m)));
  return fail(`${fault}: ${how} did not reassemble to our round-0xFF answer: ${progress.stopped}`, [
    ...(reply === undefined
      ? []
      : [evidence(client, `what the server sent after our last fragment: ${describeArrival(reply)}`, reply)]),
    evidence(
      client,
      `we sent round 0xFF's answer (${answerBytes} bytes) as ${how}; then ${progress.stopped}; ${reactionSince(client, lastSentAt)}; our first fragment:`,
      { timeMs: lastSentAt, bytes: firstBytes },
    ),
  ]);
}

const fragmentReassembly: ConformCase = {
  id: 'fragment-reassembly',
  title:
    'Fragments that arrive out of order, duplicated, or with one missing and then re-sent reassemble to exactly the original bytes.',
  probe:
    'Three sessions each send the round-0xFF answer in 100-byte fragments: shuffled, one fragment twice, or one held back 2 s. Every server parses this answer (the join cannot go on without it), so the server must go on to its settings.',
  windows: ['stepMs'],
  plantedBugs: ['reassembly-by-arrival-order'],
  sessions: FRAGMENT_FAULTS.length,
  probes: {
    'fragments-out-of-order': 'fragments of one message sent out of order or with one held back',
    'fragment-duplicated': 'a fragment sent twice',
  },
  run: async (ctx) => combine(await Promise.all(FRAGMENT_FAULTS.map((fault) => fragmentProbe(ctx, fault)))),
};

/** Messages the order probe sends, the last first; each goes alone, this long after the one before. */
const ORDER_MESSAGES = 3;
const ORDER_GAP_MS = 200;

async function orderRun(ctx: CaseContext): Promise<Verdict> {
  const pair = await joinedPair(ctx, 'message-order');
  if (isVerdict(pair)) return pair;
  const control = await relayControl(pair);
  if (isVerdict(control)) return control;
  const { sender, receiver } = pair;
  // Reliable and ordered (flags 0xC0): the claim holds whichever messages a server keeps in order.
  const messages = Array.from({ length: ORDER_MESSAGES }, (_, i) => relayMessage(sender, i + 1, { ordered: true }));
  const label = (i: number) => `#${i + 1} (seq ${messages[i].seq})`;
  const at = receiver.now;
  for (let i = ORDER_MESSAGES - 1; i >= 0; i--) {
    // The first in seq order goes last and must be read; the others' reading shows in their relays.
    sender.send([messages[i]], `message ${label(i)} for the server to relay, sent out of seq order`, {
      fault: 'messages-out-of-order',
      proof: i === 0 ? [messages[i]] : [],
    });
    if (i > 0) await sender.sleep(ORDER_GAP_MS);
  }
  // A server may drop a message that came ahead of its turn, unACKed: it is re-sent then, in seq order.
  await sender.sleep(DUPLICATE_AFTER_MS);
  const unacked = messages.filter((m) => serverAckOf(sender, m, at) === undefined);
  if (unacked.length > 0)
    sender.send(unacked, `re-sent, unACKed after ${seconds(DUPLICATE_AFTER_MS)}: ${unacked.length} of our messages`, {
      proof: unacked,
    });
  await receiver.sleep(RELAY_WAIT_MS);
  const controlSeq = (control.message as DataMessage).seq as number;
  /** Each relay of ours by the server's seq (copies of one relay share it), in that seq's order. */
  const relays = new Map<number, { number: number; m: ServerMessage }>();
  for (const m of receiver.serverMessages()) {
    const n = m.timeMs >= at ? relayedNumber(m.message) : null;
    const seq = (m.message as DataMessage).seq as number;
    if (n !== null && n >= 1 && n <= ORDER_MESSAGES && !relays.has(seq)) relays.set(seq, { number: n, m });
  }
  const inSeqOrder = [...relays.entries()]
    .sort(([a], [b]) => seqDistance(controlSeq, a) - seqDistance(controlSeq, b))
    .map(([, r]) => r);
  const numbers = inSeqOrder.map((r) => r.number);
  const sentAs = `we sent high-category ${messages.map((_, i) => label(ORDER_MESSAGES - 1 - i)).join(', ')} in that order, each alone`;
  const found = [];
  const missing = messages.map((_, i) => i + 1).filter((n) => !numbers.includes(n));
  if (missing.length > 0)
    found.push(evidence(receiver, `${sentAs}; the server never relayed #${missing.join(', #')} to the other player`));
  const twice = numbers.find((n, i) => numbers.indexOf(n) !== i);
  if (twice !== undefined)
    found.push(
      evidence(
        receiver,
        `the server relayed our #${twice} twice, under two seqs of its own: it processed one message twice`,
        inSeqOrder.filter((r) => r.number === twice)[1].m,
      ),
    );
  const early = inSeqOrder.findIndex((r, i) => i > 0 && r.number < inSeqOrder[i - 1].number);
  if (early > 0)
    found.push(
      evidence(
        receiver,
        `${sentAs}; the server relayed them as #${numbers.join(', #')}: our #${inSeqOrder[early - 1].number} (its seq ${(inSeqOrder[early - 1].m.message as DataMessage).seq}) before our #${inSeqOrder[early].number} (its seq ${(inSeqOrder[early].m.message as DataMessage).seq}), so it handed our messages on as they came, not in seq order`,
        inSeqOrder[early - 1].m,
      ),
    );
  if (found.length > 0)
    return fail('messages that came out of seq order were not processed in seq order, once each', found);
  return pass(
    `${sentAs} (${seconds(ORDER_GAP_MS)} apart); the server relayed them in seq order, #${numbers.join(', #')}, each once${unacked.length > 0 ? ` (after our re-send of ${unacked.length} it had not ACKed)` : ''}`,
  );
}

const messageOrder: ConformCase = {
  id: 'message-order',
  title: 'Reliable messages that arrive out of seq order are processed in seq order, each once.',
  probe: `One player sends ${ORDER_MESSAGES} reliable, ordered game messages for the server to relay, the last seq first, each alone ${ORDER_GAP_MS} ms after the one before. The server must relay them to the other player in seq order (its own seqs say in what order it processed them), each once; one it dropped unACKed is re-sent after 2 s, in order. (The expected counter of each category, docs/sources.md 7.)`,
  windows: ['stepMs'],
  plantedBugs: ['delivers-on-arrival'],
  sessions: 2,
  probes: { 'messages-out-of-order': 'reliable messages sent the last seq first' },
  // The server relays to every player: it runs with no other case's session open.
  exclusive: true,
  run: orderRun,
};

/** The cases on what the server does with what it receives, in the order a report lists them (cases/index.ts joins the groups). */
export const PROCESSING_CASES: readonly ConformCase[] = [duplicateProcessing, fragmentReassembly, messageOrder];
