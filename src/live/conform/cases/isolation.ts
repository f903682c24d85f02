// A server knows its peers by their address, never by the peer id a datagram
// claims: a datagram from another address that names a player's slot (an ACK of
// its messages, a Disconnect in its name) must change nothing of that player's
// connection, and nothing of that player's must go to the other address.
import { TYPE_DISCONNECT } from '../../../core/codec/index.js';
import type { DataMessage } from '../../../core/codec/index.js';
import { disconnectPayload } from '../../../model/transport/index.js';
import type { CaseContext, ConformCase, Verdict } from '../case-types.js';
import { evidence, fail, notExercised, pass, seconds } from '../case-types.js';
import type { ServerMessage } from '../client.js';
import { ackMessage, isData } from '../client.js';
import { isChecksumRequest, joinUntilRequest, keepaliveMessage, newProgress, requestIsRound } from '../join.js';
import { describeEnd, isAckOf } from '../session-end.js';
import { answerThen } from './copies.js';

/** The request the victim leaves unACKed and the intruder ACKs, and the one it leaves unACKed as a control. */
const HELD_ROUND = 3;
const CONTROL_ROUND = 2;

async function isolationRun(ctx: CaseContext): Promise<Verdict> {
  const t = ctx.timings;
  const victim = await ctx.open('peer-isolation/victim');
  const intruder = await ctx.open('peer-isolation/intruder');
  intruder.quiet();
  const progress = newProgress();
  // The victim leaves two requests unACKed: round 2's shows the server re-sends at all, round 3's is the one forged.
  let holding = true;
  victim.withhold = (m) =>
    holding && isChecksumRequest(m) && (requestIsRound(m, CONTROL_ROUND) || requestIsRound(m, HELD_ROUND));
  const control = await joinUntilRequest(victim, ctx.manifest, progress, CONTROL_ROUND, t);
  if (control === null) return notExercised(`join stopped: ${progress.stopped}`);
  const held = await answerThen(victim, ctx, progress, control, HELD_ROUND);
  if (held === null) return notExercised(`join stopped: ${progress.stopped}`);
  const seq = (held.message as DataMessage).seq as number;
  const slot = victim.slot ?? 0;
  // At once, before any re-send is due: the intruder speaks as the victim (its peer id), ACKs the held
  // request and sends a Disconnect in its name.
  intruder.slot = slot;
  const forgedAt = victim.now;
  const intruderAt = intruder.now;
  const forgedBytes = intruder.send(
    [
      ackMessage(seq, false),
      intruder.reliable(TYPE_DISCONNECT, disconnectPayload({ address: [127, 0, 0, 1], name: '' }, slot), true),
    ],
    `from another address: an ACK of the victim's round-${HELD_ROUND} request (seq ${seq}) and a Disconnect naming its slot ${slot}`,
    { fault: 'forged-peer' },
  );
  intruder.slot = null;
  const copyOf = (request: ServerMessage) => (m: ServerMessage) =>
    m !== request && isChecksumRequest(m) && requestIsRound(m, (request.message as DataMessage).payload[1]);
  const [controlCopy, heldCopy] = await Promise.all([
    victim.waitFor(copyOf(control), t.resendWaitMs, control.timeMs + 1),
    victim.waitFor(copyOf(held), t.resendWaitMs, forgedAt + 1),
  ]);
  if (controlCopy === null && heldCopy === null)
    return notExercised(
      `the server re-sent neither of two unACKed requests in ${seconds(t.resendWaitMs)}: no re-sends to judge a forged ACK by (see the retransmit case)`,
    );
  const found = [];
  if (heldCopy === null)
    found.push(
      evidence(
        victim,
        `the victim's round-${HELD_ROUND} request (seq ${seq} high), unACKed by the victim, was never re-sent after another address ACKed it: the forged ACK cleared it (the round-${CONTROL_ROUND} request, also unACKed, was re-sent)`,
        held,
      ),
    );
  // Still served? A keepalive of the victim must be ACKed.
  const probe = keepaliveMessage(victim) as DataMessage;
  const probeAt = victim.now;
  victim.send([probe], 'Keepalive: is the victim still served?', { proof: 'all' });
  // Served at all is the claim, not how fast (the ack-category and retransmit cases time ACKs): a busy server has the whole wait.
  const served = await victim.waitFor((m) => isAckOf(m.message, probe), t.resendWaitMs, probeAt);
  if (victim.ended !== null || served === null)
    found.push(
      evidence(
        victim,
        `after another address sent a Disconnect naming slot ${slot}, the victim's keepalive got no ACK in ${seconds(t.resendWaitMs)}${victim.ended ? ` and ${describeEnd(victim.ended)}` : ''}: the forged Disconnect removed it`,
        victim.arrivals.at(-1) ?? null,
      ),
    );
  const leaked = intruder.arrivals.find((a) => a.messages?.some((m) => isData(m)));
  if (leaked !== undefined)
    found.push(evidence(intruder, "the server sent a player's messages to the other address", leaked));
  // The victim's own ACKs, witnessed, end it: the server reads the victim.
  holding = false;
  victim.sendWitnessed(
    [ackMessage((control.message as DataMessage).seq as number, false), ackMessage(seq, false)],
    `the victim's own ACKs of the two requests`,
    'late-ack',
    keepaliveMessage(victim) as DataMessage,
  );
  if (found.length > 0)
    return fail("a datagram from another address naming a player changed that player's connection", [
      ...found,
      evidence(intruder, "the other address's datagram", { timeMs: intruderAt, bytes: forgedBytes }),
    ]);
  return pass(
    `an ACK and a Disconnect from another address naming slot ${slot} changed nothing: the forged-ACKed request was still re-sent, the player still served, and nothing went to the other address`,
  );
}

const peerIsolation: ConformCase = {
  id: 'peer-isolation',
  title:
    "A datagram from another address that names a player's slot changes nothing of that player's connection, and gets none of its messages.",
  probe:
    "A player leaves two requests unACKed. From another address, a datagram with that player's slot as peer id ACKs one of them and sends a Disconnect in its name. The request must still be re-sent (the other one is the control), the player must still be served, and nothing may go to the other address.",
  windows: ['resendWaitMs'],
  plantedBugs: ['peer-by-id'],
  sessions: 2,
  probes: { 'forged-peer': "a datagram from another address naming this session's slot" },
  run: isolationRun,
};

/** The cases on one player's faults kept from the others, in the order a report lists them (cases/index.ts joins the groups). */
export const ISOLATION_CASES: readonly ConformCase[] = [peerIsolation];
