// Cases on how a connection ends: a peer the server removes (a protocol
// error, or the peer timeout) is sent a Boot first and its queued ACKs are
// flushed (docs/sources.md 19); a Disconnect is ACKed and the peer is gone within
// the documented time (docs/sources.md 21, 28).
import { TYPE_BOOT, TYPE_DISCONNECT, TYPE_GAME, isLowType } from '../../../core/codec/index.js';
import type { DataMessage } from '../../../core/codec/index.js';
import { FINAL_ROUND, Opcode } from '../../../model/traffic/index.js';
import { disconnectPayload } from '../../../model/transport/index.js';
import type { CaseContext, ConformCase, Verdict } from '../case-types.js';
import { combine, evidence, fail, notExercised, pass, seconds, seqLabel } from '../case-types.js';
import type { ServerMessage } from '../client.js';
import { isData, opcodeOf } from '../client.js';
import { messageInBrief } from '../describe.js';
import { join, joined, joinUntilRequest, keepaliveMessage, newProgress } from '../join.js';
import { bootsUs, isBoot } from '../session-end.js';
import { serverAckOf } from './processing.js';

/** How long after its removal a session listens for late datagrams. */
const SILENCE_CHECK_MS = 2000;

/** A round-0xFF answer whose tree cannot be read: a file count that runs past the end. */
function unreadableFinalAnswer(): Uint8Array {
  return Uint8Array.of(Opcode.ChecksumResponse, FINAL_ROUND, 0x11, 0x22, 0x33, 0x44, 0xff, 0xff, 0x01);
}

function bootLabel(m: ServerMessage): string {
  const d = m.message as DataMessage;
  return d.type === TYPE_BOOT
    ? `transport Boot (type 0x04, payload ${[...d.payload].map((b) => b.toString(16).padStart(2, '0')).join(' ')})`
    : `game BootPlayer (opcode 0x04, reason ${d.payload[1] ?? '?'})`;
}

async function protocolErrorProbe(ctx: CaseContext): Promise<Verdict> {
  const client = await ctx.open('removal/protocol-error');
  const t = ctx.timings;
  const progress = newProgress();
  const final = await joinUntilRequest(client, ctx.manifest, progress, FINAL_ROUND, t, 3);
  if (final === null) return notExercised(`protocol error: join stopped before round 0xFF: ${progress.stopped}`);
  const keepalive = keepaliveMessage(client) as DataMessage;
  client.send([keepalive], 'Keepalive, its ACK queued when the bad answer arrives');
  const bad = client.reliable(TYPE_GAME, unreadableFinalAnswer());
  const witness = keepaliveMessage(client) as DataMessage;
  const badAt = client.now;
  const badBytes = client.sendWitnessed([bad], 'an unreadable round-0xFF answer', 'bad-answer', witness);
  const reaction = await client.waitFor(
    (m) => bootsUs(client, m) || opcodeOf(m.message) === Opcode.Settings || opcodeOf(m.message) === Opcode.GameInit,
    t.stepMs,
    badAt,
  );
  if (reaction !== null && !bootsUs(client, reaction))
    return notExercised(
      'protocol error: the server accepted an unreadable round-0xFF answer and went on to its settings, so it removed nobody',
      [evidence(client, 'the server answered our unreadable round-0xFF answer with its settings', reaction)],
    );
  await client.sleep(SILENCE_CHECK_MS);
  const unacked = [keepalive, bad, witness].filter((m) => serverAckOf(client, m, badAt - 50) === undefined);
  if (reaction === null) {
    // Quiet: removed without a word, or still holding us? A keepalive tells.
    const poke = keepaliveMessage(client) as DataMessage;
    const pokeAt = client.now;
    client.send([poke], 'Keepalive: are we still a peer?');
    await client.sleep(t.ackWithinMs + 500);
    if (serverAckOf(client, poke, pokeAt) !== undefined) {
      if (unacked.includes(witness))
        return fail('protocol error: the server did not read our datagram with the unreadable round-0xFF answer', [
          evidence(
            client,
            `neither the answer (${seqLabel(bad.seq as number, false)}) nor the keepalive after it in the same datagram was ACKed, while a later keepalive was: the datagram was dropped unread`,
            { timeMs: badAt, bytes: badBytes },
          ),
        ]);
      return notExercised(
        'protocol error: the server read our unreadable round-0xFF answer (it ACKed it) but neither removed us nor answered it',
      );
    }
    return fail('protocol error: removed without a Boot', [
      evidence(
        client,
        `after our unreadable round-0xFF answer the server went silent and ACKs nothing: removed, but no Boot came (the stock server Boots a peer before it removes it)${unacked.length ? `; ${unacked.map((m) => seqLabel(m.seq as number, isLowType(m.type))).join(', ')} never ACKed` : ''}`,
        { timeMs: badAt, bytes: badBytes },
      ),
    ]);
  }
  if (unacked.length > 0) {
    return fail('protocol error: Booted, but queued ACKs were not flushed', [
      evidence(
        client,
        `the ${bootLabel(reaction)} came, but ${unacked.map((m) => seqLabel(m.seq as number, isLowType(m.type))).join(' and ')} that we sent before it never got its ACK`,
        reaction,
      ),
      evidence(client, 'our unreadable round-0xFF answer', { timeMs: badAt, bytes: badBytes }),
    ]);
  }
  return pass(
    `protocol error: ${bootLabel(reaction)} ${seconds(reaction.timeMs - badAt)} after our unreadable answer, with our messages ACKed`,
  );
}

async function timeoutProbe(ctx: CaseContext): Promise<Verdict> {
  const t = ctx.timings;
  const observer = await ctx.open('removal/observer');
  {
    const seen = await join(observer, ctx.manifest, newProgress(), t);
    if (!joined(seen)) return notExercised(`timeout: the observer's join stopped: ${seen.stopped}`);
    const silent = await ctx.open('removal/silent');
    const progress = await join(silent, ctx.manifest, newProgress(), t);
    if (!joined(progress)) return notExercised(`timeout: the silent client's join stopped: ${progress.stopped}`);
    const slot = silent.slot;
    silent.withhold = () => true;
    silent.quiet();
    const quietFrom = silent.now;
    const observerFrom = observer.now;
    const windowMs = t.peerTimeoutMs + t.timeoutGraceMs;
    const isBootOf = (m: ServerMessage) =>
      isBoot(m) && (m.message as DataMessage).type === TYPE_BOOT && (m.message as DataMessage).payload[0] === slot;
    const boot = await observer.waitFor(isBootOf, windowMs, observerFrom);
    const own = silent.serverMessages().find((m) => m.timeMs >= quietFrom && bootsUs(silent, m));
    const lastToSilent = silent.arrivals.at(-1)?.timeMs ?? quietFrom;
    if (boot !== null || own !== undefined) {
      const at = boot ?? (own as ServerMessage);
      return pass(
        `timeout: ${boot ? `the other client got a ${bootLabel(boot)} for slot ${slot}` : `the silent client got a ${bootLabel(at)}`} ${seconds(boot ? boot.timeMs - observerFrom : at.timeMs - quietFrom)} after it fell silent`,
      );
    }
    if (silent.now - lastToSilent < SILENCE_CHECK_MS)
      return notExercised(
        `timeout: the server still sends to a client silent for ${seconds(windowMs)}: it was never timed out`,
      );
    // What the other client heard around the removal (game messages; keepalives are noise here).
    const told = observer
      .serverMessages()
      .filter(
        (m) =>
          m.timeMs >= observerFrom + lastToSilent - quietFrom - 1000 &&
          isData(m.message) &&
          m.message.reliable &&
          m.message.type === TYPE_GAME,
      )
      .slice(0, 3);
    return fail(
      `timeout: the silent client was dropped ${seconds(lastToSilent - quietFrom)} after it fell silent, with no Boot`,
      [
        evidence(
          silent,
          `the server's last datagram to the silent client (slot ${slot}); no Boot to it or to the other client in ${seconds(windowMs)} (the stock server Boots a timed-out peer to every other peer)`,
          silent.arrivals.at(-1) ?? null,
        ),
        ...told.map((m) =>
          evidence(observer, `what the other client was told instead: ${messageInBrief(m.message)}`, m),
        ),
      ],
    );
  }
}

const removal: ConformCase = {
  id: 'removal',
  title: 'A peer the server removes (protocol error, timeout) is sent a Boot first, and its queued ACKs are flushed.',
  probe:
    "Protocol error: an unreadable round-0xFF answer right after a keepalive. The Boot must come, with both messages ACKed. Timeout: one client falls silent while another watches; a Boot must name the silent client's slot, as the stock server's does.",
  windows: ['ackWithinMs', 'peerTimeoutMs', 'timeoutGraceMs'],
  plantedBugs: ['remove-without-boot'],
  sessions: 3,
  probes: { 'bad-answer': 'an unreadable checksum answer' },
  endsSessions: true,
  run: async (ctx) => combine(await Promise.all([protocolErrorProbe(ctx), timeoutProbe(ctx)])),
};

async function disconnectRun(ctx: CaseContext): Promise<Verdict> {
  const client = await ctx.open('disconnect');
  const t = ctx.timings;
  const progress = await join(client, ctx.manifest, newProgress(), t);
  if (!joined(progress)) return notExercised(`join stopped: ${progress.stopped}`);
  const bye = client.reliable(
    TYPE_DISCONNECT,
    disconnectPayload({ address: [127, 0, 0, 1], name: '' }, client.slot ?? 0),
    true,
  );
  const byeAt = client.now;
  const bytes = client.send([bye], 'Disconnect', { fault: 'disconnect', proof: 'all' });
  await client.sleep(t.removalMaxMs + SILENCE_CHECK_MS);
  const found = [];
  const ack = serverAckOf(client, bye, byeAt);
  if (ack === undefined)
    found.push(
      evidence(client, `our Disconnect (${seqLabel(bye.seq as number, true)}) was never ACKed`, {
        timeMs: byeAt,
        bytes,
      }),
    );
  else if (ack.timeMs - byeAt > t.ackWithinMs)
    found.push(evidence(client, `our Disconnect was ACKed only after ${seconds(ack.timeMs - byeAt)}`, ack));
  const last = client.arrivals.at(-1);
  if (last !== undefined && last.timeMs - byeAt > t.removalMaxMs) {
    found.push(
      evidence(
        client,
        `the server still sent to us ${seconds(last.timeMs - byeAt)} after our Disconnect: not removed within ${seconds(t.removalMaxMs)} (the stock server: ~4.16 s, measured)`,
        last,
      ),
    );
  }
  if (found.length > 0) return fail('the Disconnect was not handled as documented', found);
  const gone = last === undefined ? 0 : last.timeMs - byeAt;
  return pass(
    `ACKed after ${seconds((ack as ServerMessage).timeMs - byeAt)}; the server's last datagram ${seconds(Math.max(0, gone))} after our Disconnect`,
  );
}

const disconnect: ConformCase = {
  id: 'disconnect',
  title: 'The Disconnect is ACKed, and the peer is removed within the documented time.',
  probe:
    'After the join, a Disconnect. Its ACK must come within 1 s, and the server must stop sending within 6 s (the stock server: ~4.16 s, measured).',
  windows: ['ackWithinMs', 'removalMaxMs'],
  plantedBugs: ['disconnect-ignored'],
  sessions: 1,
  probes: { disconnect: 'our Disconnect' },
  endsSessions: true,
  run: disconnectRun,
};

/** The cases on how a session ends, in the order a report lists them (cases/index.ts joins the groups). */
export const LIFECYCLE_CASES: readonly ConformCase[] = [removal, disconnect];
