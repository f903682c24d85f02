// More of the server's messages in flight than a small fixed retransmit queue
// holds: every one the server sent must still be re-sent while it is unACKed.
// A server may hold new messages back until ACKs come (flow control): that is
// allowed, as long as none it sent is forgotten and none is lost.
import type { DataMessage } from '../../../core/codec/index.js';
import type { CaseContext, ConformCase, Verdict } from '../case-types.js';
import { evidence, fail, notExercised, pass, seconds } from '../case-types.js';
import type { ServerMessage } from '../client.js';
import { ackMessage } from '../client.js';
import { keepaliveMessage } from '../join.js';
import { RELAY_WAIT_MS, isVerdict, joinedPair, relayControl, relayMessage, relayedNumber } from './relay.js';

/** Messages put in flight: well past the 16 entries of a small fixed queue (one reimplementation's). */
const IN_FLIGHT = 40;
/** The fixed queue size the case is meant to get past. */
const SMALL_QUEUE = 16;
/** Messages (or ACKs) per datagram: fewer than the 33 of the fullest stock datagram, so capacity is not judged here. */
const PER_DATAGRAM = 20;

async function windowRun(ctx: CaseContext): Promise<Verdict> {
  const t = ctx.timings;
  const pair = await joinedPair(ctx, 'retransmit-window');
  if (isVerdict(pair)) return pair;
  const control = await relayControl(pair);
  if (isVerdict(control)) return control;
  const { sender, receiver } = pair;
  const ours = (m: ServerMessage) => {
    const n = relayedNumber(m.message);
    return n !== null && n >= 1 && n <= IN_FLIGHT ? n : null;
  };
  let holding = true;
  receiver.withhold = (m) => holding && ours(m) !== null;
  const at = receiver.now;
  for (let n = 1; n <= IN_FLIGHT; n += PER_DATAGRAM) {
    const batch = Array.from({ length: Math.min(PER_DATAGRAM, IN_FLIGHT - n + 1) }, (_, i) =>
      relayMessage(sender, n + i),
    );
    sender.send(batch, `messages #${n}–#${n + batch.length - 1} for the server to relay`, {
      fault: 'withheld-acks',
      proof: 'all',
    });
  }
  await receiver.sleep(RELAY_WAIT_MS);
  /** Every copy of each of our messages the receiver got, by number, in arrival order. */
  const copies = () => {
    const by = new Map<number, ServerMessage[]>();
    for (const m of receiver.serverMessages()) {
      const n = m.timeMs >= at ? ours(m) : null;
      if (n !== null) by.set(n, [...(by.get(n) ?? []), m]);
    }
    return by;
  };
  const first = copies();
  if (first.size <= SMALL_QUEUE)
    return notExercised(
      `the server had at most ${first.size} of our ${IN_FLIGHT} messages in flight to the other player (it holds the rest back): no more than ${SMALL_QUEUE} to judge`,
    );
  const sentFirst = [...first.keys()];
  const lastFirstAt = Math.max(...[...first.values()].map((list) => list[0].timeMs));
  while (receiver.now < lastFirstAt + t.resendWaitMs) {
    const now = copies();
    if (sentFirst.every((n) => (now.get(n)?.length ?? 0) >= 2)) break;
    await receiver.sleep(100);
  }
  const withCopies = copies();
  const never = sentFirst.filter((n) => (withCopies.get(n)?.length ?? 0) < 2).sort((a, b) => a - b);
  // Release: ACK every one of them, witnessed, then all must have come and the re-sends must stop.
  holding = false;
  const seqs = [...withCopies.values()].map((list) => (list[0].message as DataMessage).seq as number);
  const ackAt = receiver.now;
  for (let i = 0; i < seqs.length; i += PER_DATAGRAM)
    receiver.sendWitnessed(
      seqs.slice(i, i + PER_DATAGRAM).map((seq) => ackMessage(seq, false)),
      `ACKs of relayed messages left unACKed (${i + 1}–${Math.min(seqs.length, i + PER_DATAGRAM)} of ${seqs.length})`,
      'withheld-acks',
      keepaliveMessage(receiver) as DataMessage,
    );
  await receiver.sleep(Math.max(RELAY_WAIT_MS, t.resendMaxMs + t.ackGraceMs));
  const all = copies();
  const found = [];
  if (never.length > 0) {
    const m = (withCopies.get(never[0]) as ServerMessage[])[0];
    found.push(
      evidence(
        receiver,
        `${never.length} of the ${sentFirst.length} messages the server sent were never re-sent in ${seconds(t.resendWaitMs)} while unACKed, the first: our #${never[0]} (seq ${(m.message as DataMessage).seq}); ${sentFirst.length - never.length} were re-sent (a retransmit queue of ${sentFirst.length - never.length}?)`,
        m,
      ),
    );
  }
  const lost = Array.from({ length: IN_FLIGHT }, (_, i) => i + 1).filter((n) => !all.has(n));
  if (lost.length > 0)
    found.push(
      evidence(
        receiver,
        `${lost.length} of our ${IN_FLIGHT} messages never reached the other player, the first: #${lost[0]}`,
      ),
    );
  const late = [...all.values()]
    .flat()
    .filter((m) => m.timeMs > ackAt + t.ackGraceMs && m !== all.get(ours(m) ?? 0)?.[0]);
  if (late.length > 0)
    found.push(
      evidence(receiver, `${late.length} copies came more than ${seconds(t.ackGraceMs)} after our ACKs`, late[0]),
    );
  if (found.length > 0)
    return fail(`with ${sentFirst.length} messages in flight, the server's re-sends are off`, found);
  return pass(
    `the server had ${sentFirst.length} of our messages unACKed in flight at once; each was re-sent, all ${IN_FLIGHT} arrived, and the re-sends stopped after our ACKs`,
  );
}

const retransmitWindow: ConformCase = {
  id: 'retransmit-window',
  title: `Every unACKed reliable message of the server is re-sent, however many are in flight: more than ${SMALL_QUEUE} at once.`,
  probe:
    'One player sends 40 messages that the server relays to the other, which leaves them all unACKed. Each message the server sent must be re-sent; after our ACKs all 40 must have come, and the re-sends must stop. A server that holds new messages back until ACKs come may; one that never has more than 16 in flight is NOT EXERCISED.',
  windows: ['resendWaitMs', 'resendMaxMs', 'ackGraceMs'],
  plantedBugs: ['retransmit-queue-16'],
  sessions: 2,
  probes: { 'withheld-acks': 'many reliable messages of the server left unACKed at once' },
  // The server relays to every player: it runs with no other case's session open.
  exclusive: true,
  run: windowRun,
};

/** The cases on many messages in flight, in the order a report lists them (cases/index.ts joins the groups). */
export const WINDOW_CASES: readonly ConformCase[] = [retransmitWindow];
