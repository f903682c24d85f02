// Cases on the server's own fragments (transport-layer.md §5): a message too long
// for one datagram, which the server must send as fragments of one seq, re-send
// fragment by fragment until each is ACKed and not after; and the 5-byte fragment
// ACKs that clear them, read in datagrams that hold other messages after them.
// The long message is one of ours that the server relays (relay.ts).
import { TYPE_ACK, MAX_DATAGRAM_BYTES, ackFlagsLowType, isLowType } from '../../../core/codec/index.js';
import type { AckMessage, DataMessage, Located } from '../../../core/codec/index.js';
import type { CaseContext, CaseEvidence, ConformCase, Verdict } from '../case-types.js';
import { combine, evidence, fail, notExercised, pass, seconds } from '../case-types.js';
import type { ConformClient, ServerMessage } from '../client.js';
import { isAckOf } from '../session-end.js';
import { ackMessage, isData } from '../client.js';
import { reactionSince } from '../describe.js';
import { keepaliveMessage, sendGame } from '../join.js';
import { RELAY_WAIT_MS, isVerdict, joinedPair, relayControl, relayNumber, relayPayload } from './relay.js';
import type { Pair } from './relay.js';

/** The relayed message: 1,000 bytes, three fragments at the stock 405-byte chunk. */
const LONG_BYTES = 1000;
/** The number the long message carries. */
const LONG_NUMBER = 1;

interface Fragments {
  readonly seq: number;
  /** The first copy of each fragment, by index. */
  readonly first: ReadonlyMap<number, ServerMessage>;
  readonly count: number;
}

function isServerFragment(m: Located): m is Located<DataMessage> {
  return isData(m) && m.reliable && m.fragment && !isLowType(m.type);
}

/**
 * The fragments of our long message as the receiver got them: fragment 0 names
 * the count and carries our tag; the others share its seq. Null when they did
 * not all come within RELAY_WAIT_MS of `since`.
 */
async function awaitFragments(receiver: ConformClient, since: number): Promise<Fragments | null> {
  const zero = await receiver.waitFor(
    (m) => isServerFragment(m.message) && m.message.fragIndex === 0 && relayNumber(m.message.payload) === LONG_NUMBER,
    RELAY_WAIT_MS,
    since,
  );
  if (zero === null) return null;
  const head = zero.message as DataMessage;
  const count = head.fragCount ?? 0;
  const collect = () => {
    const first = new Map<number, ServerMessage>();
    for (const m of receiver.serverMessages())
      if (m.timeMs >= since && isServerFragment(m.message) && m.message.seq === head.seq)
        if (!first.has(m.message.fragIndex as number)) first.set(m.message.fragIndex as number, m);
    return first;
  };
  const until = receiver.now + RELAY_WAIT_MS;
  while (collect().size < count && receiver.now < until) await receiver.sleep(20);
  const first = collect();
  return first.size < count ? null : { seq: head.seq as number, first, count };
}

/** What is wrong with the fragments' form, if anything: the first line decisive. */
function formFaults(receiver: ConformClient, f: Fragments, payload: Uint8Array): CaseEvidence[] {
  const found: CaseEvidence[] = [];
  const parts: Uint8Array[] = [];
  for (let i = 0; i < f.count; i++) {
    const m = f.first.get(i) as ServerMessage;
    const d = m.message as DataMessage;
    parts.push(d.payload);
    if (m.arrival.bytes.length > MAX_DATAGRAM_BYTES)
      found.push(evidence(receiver, `fragment ${i} came in a ${m.arrival.bytes.length}-byte datagram, over 512`, m));
    if (i > 0 && d.fragCount !== null)
      found.push(evidence(receiver, `fragment ${i} names a fragment count; only fragment 0 does`, m));
  }
  const whole = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    whole.set(p, at);
    at += p.length;
  }
  if (whole.length !== payload.length || whole.some((b, i) => b !== payload[i]))
    found.unshift(
      evidence(
        receiver,
        `the ${f.count} fragments of seq ${f.seq} reassemble to ${whole.length} bytes that differ from our ${payload.length}-byte message`,
        f.first.get(0) as ServerMessage,
      ),
    );
  return found;
}

/** The long message could not be judged: never relayed, or relayed whole in an oversize datagram. */
function notFragmented(pair: Pair, since: number, sentBytes: Uint8Array): Verdict {
  const whole = pair.receiver
    .serverMessages()
    .find((m) => m.timeMs >= since && isData(m.message) && relayNumber(m.message.payload) === LONG_NUMBER);
  if (whole !== undefined)
    return fail(`our ${LONG_BYTES}-byte message was relayed unfragmented`, [
      evidence(
        pair.receiver,
        `relayed whole, in a ${whole.arrival.bytes.length}-byte datagram: a datagram holds at most 512 bytes, so a longer message goes as fragments`,
        whole,
      ),
    ]);
  // The decisive datagram: the server's ACK of our fragments (it got the message), then nothing relayed.
  const sent = pair.sender.departures.find((d) => d.bytes === sentBytes);
  const seq = sent?.proof[0]?.seq;
  const acked = pair.sender.arrivals.find(
    (a) => a.messages?.some((m) => m.type === TYPE_ACK && m.seq === seq && !ackFlagsLowType(m.flags)) ?? false,
  );
  return fail(`the server never relayed our ${LONG_BYTES}-byte message (it relayed the short control)`, [
    evidence(
      acked === undefined ? pair.receiver : pair.sender,
      `${acked === undefined ? '' : `the server ACKed our message's fragments (seq ${seq}), yet `}no fragment of it reached the other player within ${seconds(RELAY_WAIT_MS)}; to the other player, ${reactionSince(pair.receiver, since)}`,
      acked ?? null,
    ),
    evidence(pair.sender, 'our first fragment of it', { timeMs: sent?.timeMs ?? 0, bytes: sentBytes }),
  ]);
}

/** Sends the long message from the sender (its fragments are the proofs); returns the first datagram. */
function sendLong(pair: Pair): { at: number; bytes: Uint8Array; payload: Uint8Array } {
  const payload = relayPayload(LONG_NUMBER, LONG_BYTES);
  const at = pair.receiver.now;
  const before = pair.sender.departures.length;
  sendGame(pair.sender, payload, `a ${LONG_BYTES}-byte message for the server to relay`, 'long-relay');
  const bytes = pair.sender.departures[before]?.bytes ?? new Uint8Array(0);
  return { at, bytes, payload };
}

/** Copies of fragments of `seq` later than `graceMs` after `ackAtMs` (per index, from `ackedAt`). */
function copiesAfterAck(receiver: ConformClient, seq: number, ackedAt: ReadonlyMap<number, number>, graceMs: number) {
  return receiver
    .serverMessages()
    .filter((m) => isServerFragment(m.message) && m.message.seq === seq)
    .filter((m) => {
      const acked = ackedAt.get((m.message as DataMessage).fragIndex as number);
      return acked !== undefined && m.timeMs > acked + graceMs;
    });
}

/** Fragment 1 is left unACKed first: it alone must be re-sent. */
const HELD_INDEX = 1;

async function serverFragmentsRun(ctx: CaseContext): Promise<Verdict> {
  const t = ctx.timings;
  const pair = await joinedPair(ctx, 'server-fragments');
  if (isVerdict(pair)) return pair;
  const control = await relayControl(pair);
  if (isVerdict(control)) return control;
  const { receiver } = pair;
  let holding = true;
  receiver.withhold = (m) => holding && isServerFragment(m.message) && m.message.fragIndex === HELD_INDEX;
  const long = sendLong(pair);
  const f = await awaitFragments(receiver, long.at);
  if (f === null) return notFragmented(pair, long.at, long.bytes);
  const found = formFaults(receiver, f, long.payload);
  if (f.count <= HELD_INDEX) return notExercised(`the message came in ${f.count} fragment(s): none to hold back`);
  const held = f.first.get(HELD_INDEX) as ServerMessage;
  const copy = await receiver.waitFor(
    (m) => m !== held && isServerFragment(m.message) && m.message.seq === f.seq && m.message.fragIndex === HELD_INDEX,
    t.resendWaitMs,
    held.timeMs + 1,
  );
  holding = false;
  const ackedAt = new Map<number, number>();
  for (const [i, m] of f.first) if (i !== HELD_INDEX) ackedAt.set(i, m.timeMs);
  const ackAt = receiver.now;
  receiver.send(
    [ackMessage(f.seq, false, HELD_INDEX)],
    `ACK of fragment ${HELD_INDEX} of seq ${f.seq}, held back until now`,
  );
  ackedAt.set(HELD_INDEX, ackAt);
  await receiver.sleep(t.resendMaxMs + t.ackGraceMs);
  if (copy === null)
    found.unshift(
      evidence(
        receiver,
        `fragment ${HELD_INDEX} of seq ${f.seq}, which we left unACKed, was never re-sent in ${seconds(t.resendWaitMs)}`,
        held,
      ),
    );
  const late = copiesAfterAck(receiver, f.seq, ackedAt, t.ackGraceMs);
  if (late.length > 0) {
    const first = late[0];
    const index = (first.message as DataMessage).fragIndex as number;
    found.unshift(
      evidence(
        receiver,
        `fragment ${index} of seq ${f.seq} was re-sent ${seconds(first.timeMs - (ackedAt.get(index) as number))} after we ACKed it with its 5-byte ACK (${late.length} such copies): the fragment ACK did not clear it`,
        first,
      ),
    );
  }
  if (found.length > 0) return fail(`the server's fragments of our ${LONG_BYTES}-byte message are not right`, found);
  const sizes = [...Array(f.count).keys()].map((i) => (f.first.get(i)?.message as DataMessage).payload.length);
  return pass(
    `our ${LONG_BYTES}-byte message came as ${f.count} fragments of seq ${f.seq} (${sizes.join(', ')} bytes) that reassemble to it; fragment ${HELD_INDEX}, unACKed, was re-sent after ${seconds((copy as ServerMessage).timeMs - held.timeMs)}, and no fragment came after our ACK of it`,
  );
}

const serverFragments: ConformCase = {
  id: 'server-fragments',
  title:
    'A message too long for one datagram is sent by the server as fragments of one seq that reassemble to it; each is re-sent until ACKed, and not after.',
  probe:
    'One player sends a 1,000-byte message that the server relays to the other. Its fragments must each fit 512 bytes and reassemble to our bytes; fragment 1, left unACKed, must be re-sent, and no fragment may come again after its 5-byte ACK.',
  windows: ['resendWaitMs', 'resendMaxMs', 'ackGraceMs'],
  plantedBugs: ['fragment-sent-once'],
  sessions: 2,
  probes: { 'long-relay': 'a message longer than one datagram for the server to relay' },
  // The server relays to every player: it runs with no other case's session open.
  exclusive: true,
  run: serverFragmentsRun,
};

async function mixedRun(ctx: CaseContext): Promise<Verdict> {
  const t = ctx.timings;
  const pair = await joinedPair(ctx, 'mixed-fragment-acks');
  if (isVerdict(pair)) return pair;
  const control = await relayControl(pair);
  if (isVerdict(control)) return control;
  const { receiver } = pair;
  let holding = true;
  receiver.withhold = (m) => holding && isServerFragment(m.message);
  const long = sendLong(pair);
  // Real fragments when the server sends them; else only the stale kind (fragment ACKs of a whole message).
  const f = await awaitFragments(receiver, long.at);
  // Control (optional): the server re-sends an unACKed fragment, so that clearing can be judged.
  const resent =
    f === null
      ? null
      : await receiver.waitFor(
          (m) => isServerFragment(m.message) && m.message.seq === f.seq && ![...f.first.values()].includes(m),
          t.resendWaitMs,
          long.at,
        );
  holding = false;
  const controlSeq = (control.message as DataMessage).seq as number;
  const acks: AckMessage[] = [];
  if (f !== null) acks.push(ackMessage(f.seq, false, 0));
  acks.push(ackMessage(controlSeq, false));
  if (f !== null) for (let i = f.count - 1; i >= 1; i--) acks.push(ackMessage(f.seq, false, i));
  acks.push(ackMessage(controlSeq, false, 2), ackMessage(controlSeq, false, 0));
  const fragmentAcks = acks.filter((a) => a.fragIndex !== null).length;
  const witness = keepaliveMessage(receiver) as DataMessage;
  const at = receiver.now;
  const bytes = receiver.sendWitnessed(
    acks,
    f === null
      ? `a 4-byte ACK and ${fragmentAcks} fragment ACKs of a whole message`
      : `the ${f.count} fragment ACKs of seq ${f.seq} mixed with a 4-byte ACK and stale fragment ACKs`,
    'fragment-acks-mixed',
    witness,
  );
  await receiver.sleep(t.resendMaxMs + t.ackGraceMs);
  const read = receiver.serverMessages().find((m) => m.timeMs >= at && isAckOf(m.message, witness));
  const parse: Verdict =
    read !== undefined
      ? pass(
          `our keepalive after ${acks.length} ACKs (${fragmentAcks} of them 5-byte fragment ACKs) in one datagram was ACKed`,
        )
      : fail('a message after fragment ACKs in the same datagram was not read', [
          evidence(
            receiver,
            `our keepalive, after ${acks.length} ACKs of which ${fragmentAcks} are 5-byte fragment ACKs, got no ACK: the server stopped reading the datagram; ${reactionSince(receiver, at)}`,
            { timeMs: at, bytes },
          ),
        ]);
  const clearing: Verdict[] = [];
  if (f === null)
    clearing.push(notExercised(`the server sent no fragments (see server-fragments), so clearing could not be judged`));
  else if (resent === null)
    clearing.push(notExercised('the server re-sent no unACKed fragment, so clearing could not be judged'));
  else {
    const late = copiesAfterAck(receiver, f.seq, new Map([...f.first.keys()].map((i) => [i, at])), t.ackGraceMs);
    clearing.push(
      late.length === 0
        ? pass(`no fragment came again after those ACKs (they were re-sent before them)`)
        : fail('fragment ACKs in a mixed datagram did not clear their fragments', [
            evidence(
              receiver,
              `fragment ${(late[0].message as DataMessage).fragIndex} of seq ${f.seq} came again ${seconds(late[0].timeMs - at)} after our datagram of fragment ACKs`,
              late[0],
            ),
          ]),
    );
  }
  return combine([parse], clearing);
}

const mixedFragmentAcks: ConformCase = {
  id: 'mixed-fragment-acks',
  title:
    '5-byte fragment ACKs mixed with other messages in one datagram are each read, and so is every message after them.',
  probe:
    "The receiving player ACKs the server's fragments in one datagram with a 4-byte ACK and stale fragment ACKs between them, and our keepalive last: it must be ACKed, and (when the server re-sends unACKed fragments) no fragment may come again. A server that sends no fragments is judged on the stale fragment ACKs alone.",
  windows: ['resendWaitMs', 'resendMaxMs', 'ackGraceMs'],
  plantedBugs: ['fragment-ack-ends-datagram'],
  sessions: 2,
  probes: { 'fragment-acks-mixed': 'fragment ACKs mixed with other messages in one datagram' },
  // The server relays to every player: it runs with no other case's session open.
  exclusive: true,
  run: mixedRun,
};

/** The cases on the server's own fragments, in the order a report lists them (cases/index.ts joins the groups). */
export const SERVER_FRAGMENT_CASES: readonly ConformCase[] = [serverFragments, mixedFragmentAcks];
