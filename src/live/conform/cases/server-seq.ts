// The server's own sequence numbers go past 255 and past 65,535 in each
// category, and our ACKs keep matching its messages (seqs are u16 on the wire,
// little-endian, with serial arithmetic). We make the server send:
// - high: game messages of one player that it relays to the other (relay.ts);
// - low: the echoes of one player's keepalives (a stock server echoes each).
// Every message is ACKed as it comes; SeqStream judges the seqs.
import { isLowType } from '../../../core/codec/index.js';
import type { DataMessage } from '../../../core/codec/index.js';
import type { CaseContext, ConformCase, Verdict } from '../case-types.js';
import { combine, evidence, fail, notExercised, pass, seconds } from '../case-types.js';
import type { ConformClient } from '../client.js';
import { isData } from '../client.js';
import { keepaliveMessage } from '../join.js';
import { isVerdict, joinedPair, relayControl, relayMessage, relayedNumber } from './relay.js';
import type { Pair } from './relay.js';
import { SeqStream } from './seq-stream.js';

/** Messages provoked but not yet seen, at most. */
const WINDOW = 120;
/** Relayed messages per datagram of the sender (15 bytes each). */
const RELAYS_PER_DATAGRAM = 30;
/** Keepalives per datagram (27 bytes each). */
const KEEPALIVES_PER_DATAGRAM = 18;
/** New messages judged after the wrap: the ACKs of wrapped seqs must match too. */
const AFTER_WRAP = 32;
/** Explicit bound: the most messages one category provokes (a wrap and its margins). */
const MAX_PROVOKED = 70_000;
/** Echoes not seen this long after their keepalive are taken as never sent (a server may drop some). */
const ECHO_LOST_MS = 250;

/** Scans a session's new arrivals into the stream; returns how many arrivals it has read. */
function scan(
  client: ConformClient,
  from: number,
  low: boolean,
  stream: SeqStream,
  each?: (n: number) => void,
): number {
  let i = from;
  for (; i < client.arrivals.length; i++) {
    const arrival = client.arrivals[i];
    for (const m of arrival.messages ?? []) {
      if (!isData(m) || !m.reliable || isLowType(m.type) !== low) continue;
      const n = relayedNumber(m);
      stream.see(m.seq as number, arrival.timeMs, arrival, n);
      if (n !== null && each !== undefined) each(n);
    }
  }
  return i;
}

function judged(client: ConformClient, stream: SeqStream, category: string): Verdict | null {
  if (stream.fault !== null)
    return fail(`${category}: ${stream.fault.detail}`, [evidence(client, stream.fault.detail, stream.fault.arrival)]);
  if (stream.done(AFTER_WRAP))
    return pass(
      `${category}: ${stream.newMessages} messages of the server, past seq 255 and past 65,535, each with the next seq and none re-sent after our ACK`,
    );
  return null;
}

function outOfBudget(category: string, stream: SeqStream, budgetMs: number, how: string): Verdict {
  return notExercised(
    `${category}: the server sent ${stream.newMessages} ${how} in the ${seconds(budgetMs)} budget (its seq reached ${stream.lastSeq ?? 'none'}${stream.crossedByte ? ', past 255' : ''}); the wrap needs 65,536 (a faster server loop or --wrap-budget)`,
  );
}

async function highProbe(ctx: CaseContext, pair: Pair): Promise<Verdict> {
  const { sender, receiver } = pair;
  const t = ctx.timings;
  const control = await relayControl(pair);
  if (isVerdict(control)) return control;
  const stream = new SeqStream('high', t.ackGraceMs, t.resendMinMs);
  const seen = new Set<number>();
  const senderSeqs: number[] = [];
  let scanned = receiver.arrivals.length;
  let sent = 0;
  let progressAt = receiver.now;
  const deadline = receiver.now + t.wrapBudgetMs;
  for (;;) {
    scanned = scan(receiver, scanned, false, stream, (n) => {
      if (!seen.has(n)) progressAt = receiver.now;
      seen.add(n);
    });
    const verdict = judged(receiver, stream, 'high');
    if (verdict !== null) return verdict;
    if (receiver.now > deadline) return outOfBudget('high', stream, t.wrapBudgetMs, 'messages (relays of ours)');
    if (receiver.now - progressAt > t.stepMs) return stalled(receiver, stream, seen, senderSeqs);
    const inFlight = sent - seen.size;
    if (inFlight < WINDOW && sent < MAX_PROVOKED) {
      const batch: DataMessage[] = [];
      for (let i = 0; i < Math.min(RELAYS_PER_DATAGRAM, WINDOW - inFlight); i++) {
        const m = relayMessage(sender, ++sent);
        senderSeqs.push(m.seq as number);
        batch.push(m);
      }
      // The first datagram of the flood carries the proof that the server reads it.
      const proof = sent === batch.length ? 'all' : [];
      sender.send(batch, `${batch.length} messages for the server to relay`, { fault: 'relay-flood', proof });
      continue;
    }
    await receiver.sleep(2);
  }
}

/** The relays stopped: a fault of the server's own sending, unless our own seq had just passed a boundary. */
function stalled(receiver: ConformClient, stream: SeqStream, seen: Set<number>, senderSeqs: number[]): Verdict {
  let next = 1;
  while (seen.has(next)) next++;
  const ours = senderSeqs[next - 1];
  const what = `the server relayed nothing new for a join step after ${seen.size} of our messages (its own seq had reached ${stream.lastSeq ?? 'none'}${stream.missingCount > 0 ? `; ${stream.missingCount} seqs it skipped never came` : ''})`;
  if (ours === 256 || ours === 0)
    return notExercised(`high: ${what}; our message #${next} was the first with our own seq ${ours}: see seq-wrap`);
  const last = receiver.arrivals.at(-1);
  return fail(`high: ${what}`, last === undefined ? [] : [evidence(receiver, "the server's last datagram", last)]);
}

async function lowProbe(ctx: CaseContext, client: ConformClient): Promise<Verdict> {
  const t = ctx.timings;
  const stream = new SeqStream('low', t.ackGraceMs, t.resendMinMs);
  const at = client.now;
  client.send([keepaliveMessage(client)], 'Keepalive (does the server echo it?)');
  const echo = await client.waitFor(
    (m) => isData(m.message) && m.message.reliable && isLowType(m.message.type),
    t.stepMs,
    at,
  );
  if (echo === null)
    return notExercised(
      'low: the server answered our keepalive with no reliable low-type message (no echo): none to provoke',
    );
  let scanned = client.arrivals.findIndex((a) => a.timeMs >= at);
  let sent = 0;
  let sentAt = client.now;
  let progressAt = client.now;
  let seenNew = 0;
  const deadline = client.now + t.wrapBudgetMs;
  for (;;) {
    scanned = scan(client, scanned, true, stream);
    if (stream.newMessages !== seenNew) {
      seenNew = stream.newMessages;
      progressAt = client.now;
    }
    const verdict = judged(client, stream, 'low');
    if (verdict !== null) return verdict;
    if (client.now > deadline) return outOfBudget('low', stream, t.wrapBudgetMs, 'echoes of our keepalives');
    if (client.now - progressAt > t.stepMs)
      return stream.missingCount > 0
        ? fail(
            `low: ${stream.missingCount} seqs the server skipped never came, re-sent or late, in ${seconds(t.stepMs)}`,
            [evidence(client, "the server's last datagram", client.arrivals.at(-1) ?? null)],
          )
        : notExercised(`low: the server stopped echoing after ${stream.newMessages} keepalives of ours`);
    // A server may drop echoes it has no room for: with the window full, one more datagram now and then.
    const inFlight = sent - stream.newMessages;
    const room =
      inFlight < WINDOW ? WINDOW - inFlight : client.now - sentAt > ECHO_LOST_MS ? KEEPALIVES_PER_DATAGRAM : 0;
    if (room > 0 && sent < MAX_PROVOKED) {
      const n = Math.min(KEEPALIVES_PER_DATAGRAM, room);
      sentAt = client.now;
      client.send(
        Array.from({ length: n }, () => keepaliveMessage(client)),
        `${n} keepalives for the server to echo`,
        { fault: 'relay-flood', proof: sent === 0 ? 'all' : [] },
      );
      sent += n;
      continue;
    }
    await client.sleep(2);
  }
}

async function serverSeqRun(ctx: CaseContext): Promise<Verdict> {
  const pair = await joinedPair(ctx, 'server-seq-wrap');
  if (isVerdict(pair)) return pair;
  const high = await highProbe(ctx, pair);
  const low = await lowProbe(ctx, pair.sender);
  return combine([high, low]);
}

const serverSeqWrap: ConformCase = {
  id: 'server-seq-wrap',
  title:
    "The server's own sequence numbers go past 255 and past 65,535 in each category, and our ACKs keep matching its messages.",
  probe:
    "High: one player sends 65,600 messages that the server relays to the other. Low: one player's keepalives, each echoed. Each new message of the server must carry the next seq, across 255 → 256 and 65,535 → 0; a seq it skips must come later; none may keep coming after our ACK.",
  windows: ['resendMinMs', 'ackGraceMs', 'wrapBudgetMs'],
  plantedBugs: ['own-seq-low-byte'],
  sessions: 2,
  probes: { 'relay-flood': 'many reliable messages for the server to relay or echo' },
  // Every player would get the relays: it runs with no other case's session open.
  exclusive: true,
  run: serverSeqRun,
};

/** The cases on the server's seqs past 65,535, in the order a report lists them (cases/index.ts joins the groups). */
export const SERVER_SEQ_CASES: readonly ConformCase[] = [serverSeqWrap];
