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
import {
  answerRounds,
  awaitRequest,
  connect,
  isChecksumRequest,
  keepaliveMessage,
  newProgress,
  requestIsRound,
} from '../join.js';
import { isAckOf } from '../session-end.js';

/** The request the victim leaves unACKed (its seq is what the intruder ACKs). */
const HELD_ROUND = 3;

async function isolationRun(ctx: CaseContext): Promise<Verdict> {
  const t = ctx.timings;
  const victim = await ctx.open('peer-isolation/victim');
  const intruder = await ctx.open('peer-isolation/intruder');
  intruder.quiet();
  const progress = newProgress();
  victim.withhold = (m) => isChecksumRequest(m) && requestIsRound(m, HELD_ROUND);
  if (!(await connect(victim, progress, t))) return notExercised(`join stopped: ${progress.stopped}`);
  victim.send([keepaliveMessage(victim)], 'Keepalive');
  if (!(await answerRounds(victim, ctx.manifest, progress, { untilRound: HELD_ROUND - 1, timings: t })))
    return notExercised(`join stopped: ${progress.stopped}`);
  const held = await awaitRequest(victim, ctx.manifest, progress, HELD_ROUND, { timings: t });
  if (held === null) return notExercised(`join stopped: ${progress.stopped}`);
  const seq = (held.message as DataMessage).seq as number;
  const sameAsHeld = (m: ServerMessage) => m !== held && isChecksumRequest(m) && requestIsRound(m, HELD_ROUND);
  // Control: the server re-sends the unACKed request at all.
  const control = await victim.waitFor(sameAsHeld, t.resendWaitMs, held.timeMs + 1);
  if (control === null)
    return notExercised(
      `the server did not re-send the unACKed round-${HELD_ROUND} request in ${seconds(t.resendWaitMs)}: no re-sends to judge a forged ACK by`,
    );
  const slot = victim.slot ?? 0;
  // The intruder speaks as the victim: its peer id, an ACK of the held request, a Disconnect in its name.
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
  await victim.sleep(t.resendMaxMs + t.ackGraceMs);
  const found = [];
  const again = victim.serverMessages().find((m) => m.timeMs > forgedAt + t.ackGraceMs && sameAsHeld(m));
  if (again === undefined)
    found.push(
      evidence(
        victim,
        `the victim's round-${HELD_ROUND} request (seq ${seq} high), unACKed by the victim, was never re-sent after the other address ACKed it: the forged ACK cleared it`,
        control,
      ),
    );
  // Still served? A keepalive of the victim must be ACKed.
  const probe = keepaliveMessage(victim) as DataMessage;
  const probeAt = victim.now;
  victim.send([probe], 'Keepalive: is the victim still served?', { proof: 'all' });
  await victim.sleep(t.ackWithinMs + 500);
  if (victim.ended !== null || !victim.serverMessages().some((m) => m.timeMs >= probeAt && isAckOf(m.message, probe)))
    found.push(
      evidence(
        victim,
        `after the other address sent a Disconnect naming slot ${slot}, the victim's keepalive got no ACK${victim.ended ? ` and the server sent ${victim.ended.detail}` : ''}: the forged Disconnect removed it`,
        victim.arrivals.at(-1) ?? null,
      ),
    );
  const leaked = intruder.arrivals.find((a) => a.messages?.some((m) => isData(m)));
  if (leaked !== undefined)
    found.push(evidence(intruder, "the server sent a player's messages to the other address", leaked));
  // The victim's own ACK, witnessed, must end the re-sends: the server reads the victim.
  victim.withhold = () => false;
  const ackAt = victim.now;
  victim.sendWitnessed(
    [ackMessage(seq, false)],
    `the victim's own ACK of seq ${seq}`,
    'late-ack',
    keepaliveMessage(victim) as DataMessage,
  );
  await victim.sleep(t.resendMaxMs + t.ackGraceMs);
  const after = victim.serverMessages().find((m) => m.timeMs > ackAt + t.ackGraceMs && sameAsHeld(m));
  if (after !== undefined && found.length === 0)
    found.push(evidence(victim, `the request was re-sent after the victim's own ACK of it`, after));
  if (found.length > 0)
    return fail('a datagram from another address naming a player changed that player’s connection', [
      ...found,
      evidence(intruder, "the other address's datagram", { timeMs: intruderAt, bytes: forgedBytes }),
    ]);
  return pass(
    `an ACK and a Disconnect from another address naming slot ${slot} changed nothing: the request was still re-sent, the player still served, nothing went to the other address, and the player's own ACK ended the re-sends`,
  );
}

export const peerIsolation: ConformCase = {
  id: 'peer-isolation',
  title:
    "A datagram from another address that names a player's slot changes nothing of that player's connection, and gets none of its messages.",
  sessions: 2,
  probes: ['forged-peer'],
  run: isolationRun,
};
