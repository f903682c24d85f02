// Sequence numbers wrap past 65,535 in each category without loss
// (docs/sources.md 1: u16 on the wire, serial arithmetic). The case sends enough
// harmless reliable messages to carry its own counter of each category round
// the circle, every one of which must be ACKed with its exact seq; then a
// message the server must act on goes out with the wrapped seq:
// - high: the answer to a checksum request (the server must ask the next round);
// - low: a keepalive (the server must ACK it, and echo it if it echoes keepalives).
import { TYPE_ACK, TYPE_CONNECT, TYPE_DATA, TYPE_GAME, ackFlagsLowType } from '../../../core/codec/index.js';
import type { DataMessage } from '../../../core/codec/index.js';
import { checksumAnswer, parseChecksumRequest } from '../../../model/traffic/index.js';
import type { CaseContext, CaseEvidence, ConformCase, Verdict } from '../case-types.js';
import { combine, evidence, fail, notExercised, pass, seconds, seqLabel } from '../case-types.js';
import type { Arrival, ConformClient } from '../client.js';
import { isData } from '../client.js';
import {
  isChecksumRequest,
  joinUntilRequest,
  keepaliveMessage,
  newProgress,
  requestIsRound,
  sendGame,
} from '../join.js';
import { serverAckOf } from './processing.js';

/** The high-category filler: a reliable game message with opcode 0x7F, not a BC opcode (a server drops it after ACKing it). */
export const FILLER_OPCODE = 0x7f;
/** Messages in flight at once: fewer than the 127 ACKs one 512-byte datagram can carry. */
const WINDOW = 120;
/** Unanswered fillers are re-sent at the stock interval (docs/sources.md 11) … */
const RESEND_MS = 2000;
/** … and a filler sent this often without an ACK is lost. */
const MAX_SENDS = 3;
/**
 * Messages per datagram: fewer than the 33 measured in stock datagrams (docs/sources.md 25),
 * so this case judges the wrap alone (the full-datagram case judges datagram capacity).
 */
const PER_DATAGRAM = 30;
const SEQ_SPACE = 65536;
/** Explicit bounds: wrong ACKs kept by seq (the rest only counted), and first datagrams kept by seq. */
const MAX_WRONG_ACKS = 4096;
const MAX_KEPT_DATAGRAMS = SEQ_SPACE;

interface PhaseResult {
  readonly ok: boolean;
  readonly sent: number;
  readonly acked: number;
  readonly reason: string;
  readonly lastBytes: Uint8Array;
  readonly lastAt: number;
  /** The first datagram of the server with an ACK of a seq we never sent in this phase. */
  readonly wrongAck: Arrival | null;
  /** The message given up on, when one was. */
  readonly lost: {
    readonly seq: number;
    readonly index: number;
    readonly bytes: Uint8Array;
    readonly atMs: number;
  } | null;
  /** Each seq the server ACKed that we never sent in this phase, with its first datagram and count. */
  readonly wrongAcks: ReadonlyMap<number, { readonly arrival: Arrival; count: number }>;
}

interface InFlight {
  readonly message: DataMessage;
  /** Position in the phase, 1-based. */
  readonly index: number;
  sentAt: number;
  sends: number;
}

/**
 * Sends fillers of one category until its counter reads 0 again, paced by the
 * server's ACKs and re-sent as a stock client would when unACKed.
 */
async function fillToWrap(client: ConformClient, low: boolean, deadlineMs: number): Promise<PhaseResult> {
  const outstanding = new Map<number, InFlight>();
  let acked = 0;
  let sent = 0;
  let scanned = client.arrivals.length;
  let lastBytes: Uint8Array = new Uint8Array(0);
  let lastAt = 0;
  /** ACKs of seqs we never sent in this phase (an ACK sent again is not one). */
  const wrongAcks = new Map<number, { arrival: Arrival; count: number }>();
  const sentSeqs = new Set<number>();
  let wrongAck: Arrival | null = null;
  const sentBytes = new Map<number, { bytes: Uint8Array; atMs: number }>();
  const total = SEQ_SPACE - client.peekSeq(low);
  const send = (batch: DataMessage[], note: string) => {
    lastBytes = client.send(batch, note);
    lastAt = client.now;
  };
  for (;;) {
    // Read the ACKs that came in since the last look.
    for (; scanned < client.arrivals.length; scanned++) {
      for (const m of client.arrivals[scanned].messages ?? []) {
        if (m.type !== TYPE_ACK || ackFlagsLowType(m.flags) !== low) continue;
        if (outstanding.delete(m.seq)) acked++;
        else if (!sentSeqs.has(m.seq)) {
          const seen = wrongAcks.get(m.seq);
          if (seen !== undefined) seen.count++;
          else if (wrongAcks.size < MAX_WRONG_ACKS)
            wrongAcks.set(m.seq, { arrival: client.arrivals[scanned], count: 1 });
          wrongAck ??= client.arrivals[scanned];
        }
      }
    }
    const result = { sent, acked, lastBytes, lastAt, wrongAck, wrongAcks };
    if (acked === total) return { ...result, ok: true, reason: '', lost: null };
    if (client.now > deadlineMs) return { ...result, ok: false, reason: 'budget', lost: null };
    // Re-send what is overdue; a message re-sent MAX_SENDS times without an ACK is lost.
    const overdue = [...outstanding.values()].filter((f) => client.now - f.sentAt >= RESEND_MS);
    const lost = overdue.find((f) => f.sends >= MAX_SENDS);
    if (lost !== undefined) {
      const seq = lost.message.seq as number;
      const reason = `${seqLabel(seq, low)} (message ${lost.index} of ${total}) was sent ${lost.sends} times and never ACKed`;
      const first = sentBytes.get(seq) ?? { bytes: lastBytes, atMs: lastAt };
      return { ...result, ok: false, reason, lost: { seq, index: lost.index, bytes: first.bytes, atMs: first.atMs } };
    }
    for (let i = 0; i < overdue.length; i += PER_DATAGRAM) {
      const group = overdue.slice(i, i + PER_DATAGRAM);
      for (const f of group) {
        f.sentAt = client.now;
        f.sends++;
      }
      send(
        group.map((f) => f.message),
        `${group.length} ${low ? 'low' : 'high'} fillers re-sent`,
      );
    }
    if (sent < total && outstanding.size < WINDOW) {
      const n = Math.min(PER_DATAGRAM, total - sent, WINDOW - outstanding.size);
      const batch: DataMessage[] = [];
      for (let i = 0; i < n; i++) {
        const m = low
          ? client.reliable(TYPE_CONNECT, new Uint8Array(0), true)
          : client.reliable(TYPE_GAME, Uint8Array.of(FILLER_OPCODE), false);
        outstanding.set(m.seq as number, { message: m, index: sent + i + 1, sentAt: client.now, sends: 1 });
        sentSeqs.add(m.seq as number);
        batch.push(m);
      }
      sent += n;
      send(batch, `${n} ${low ? 'low' : 'high'} fillers`);
      for (const m of batch)
        if (sentBytes.size < MAX_KEPT_DATAGRAMS) sentBytes.set(m.seq as number, { bytes: lastBytes, atMs: lastAt });
      if (outstanding.size < WINDOW) continue;
    }
    await client.sleep(2);
  }
}

async function wrapRun(ctx: CaseContext): Promise<Verdict> {
  const client = await ctx.open('seq-wrap');
  const t = ctx.timings;
  const startedAt = client.now;
  const progress = newProgress();
  const r1 = await joinUntilRequest(client, ctx.manifest, progress, 1, t);
  if (r1 === null) return notExercised(`join stopped: ${progress.stopped}`);
  const parts: Verdict[] = [];
  const deadline = startedAt + t.wrapBudgetMs;
  const high = await fillToWrap(client, false, deadline);
  if (!high.ok) return phaseVerdict(client, 'high', high, t.wrapBudgetMs);
  // The high counter reads 0 again: the round-1 answer carries the wrapped seq.
  const parsed = parseChecksumRequest((r1.message as DataMessage).payload);
  if (!parsed.ok) return notExercised('the round-1 request does not parse');
  const answerAt = client.now;
  const [answer] = sendGame(
    client,
    checksumAnswer(ctx.manifest, parsed.value),
    'ChecksumResponse r1 with the wrapped seq',
    'wrapped-seq',
  );
  const r2 = await client.waitFor((m) => isChecksumRequest(m) && requestIsRound(m, 2), t.stepMs, answerAt);
  const answerAck = serverAckOf(client, answer as DataMessage, answerAt);
  if (r2 === null || answerAck === undefined) {
    parts.push(
      fail(
        `high: after ${high.acked} fillers, our answer with the wrapped ${seqLabel((answer as DataMessage).seq as number, false)} was ${answerAck ? 'ACKed but never acted on' : 'not ACKed'}`,
        [
          evidence(
            client,
            `no round-2 request within ${seconds(t.stepMs)} of our round-1 answer sent with the wrapped seq`,
            { timeMs: answerAt, bytes: high.lastBytes },
          ),
        ],
      ),
    );
    return combine(parts);
  }
  parts.push(pass(`high: ${high.acked} messages ACKed, and the answer with the wrapped seq 0 was acted on`));
  const low = await fillToWrap(client, true, deadline);
  if (!low.ok) return combine([...parts, phaseVerdict(client, 'low', low, t.wrapBudgetMs)]);
  // The low counter reads 0 again: a keepalive with the wrapped seq must be ACKed, and echoed
  // if this server echoed the join's keepalive (the sign it was processed, docs/sources.md 12).
  const echoes = (since: number) =>
    client.serverMessages().some((m) => m.timeMs >= since && isData(m.message) && m.message.type === TYPE_DATA);
  const echoedBefore = echoes(0);
  const keepalive = keepaliveMessage(client) as DataMessage;
  const keptAt = client.now;
  const bytes = client.send([keepalive], 'Keepalive with the wrapped low seq', { fault: 'wrapped-seq', proof: 'all' });
  await client.sleep(t.ackWithinMs + 1000);
  const acked = serverAckOf(client, keepalive, keptAt) !== undefined;
  if (!acked || (echoedBefore && !echoes(keptAt))) {
    parts.push(
      fail(
        `low: after ${low.acked} fillers, our keepalive with the wrapped ${seqLabel(keepalive.seq as number, true)} was ${acked ? "ACKed but not echoed (the join's keepalive was)" : 'not ACKed'}`,
        [evidence(client, 'the keepalive after the low wrap', { timeMs: keptAt, bytes })],
      ),
    );
  } else
    parts.push(
      pass(
        `low: ${low.acked} messages ACKed, and the keepalive with the wrapped seq 0 was ACKed${echoedBefore ? ' and echoed' : ''}`,
      ),
    );
  return combine(parts);
}

function phaseVerdict(client: ConformClient, category: string, result: PhaseResult, budgetMs: number): Verdict {
  if (result.reason === 'budget') {
    return notExercised(
      `${category}: the server ACKed ${result.acked} of ${SEQ_SPACE} messages in the ${seconds(budgetMs)} budget; the wrap needs them all (a faster server loop or --wrap-budget)`,
    );
  }
  const found: CaseEvidence[] = [];
  const lost = result.lost;
  // The decisive line: the server ACKed the lost seq under another number: its low byte
  // alone, or its two bytes swapped (a big-endian reading of the wire's little-endian seq).
  const aliases = lost === null ? [] : [lost.seq & 0xff, ((lost.seq & 0xff) << 8) | (lost.seq >>> 8)];
  const aliasSeq = aliases.find((a) => a !== lost?.seq && result.wrongAcks.has(a));
  const aliased = aliasSeq === undefined ? undefined : result.wrongAcks.get(aliasSeq);
  if (lost !== null && aliased !== undefined)
    found.push(
      evidence(
        client,
        `seq ${lost.seq} (${category}) was ACKed as seq ${aliasSeq}: the server's ACK datagram after ours`,
        aliased.arrival,
      ),
    );
  if (lost !== null)
    found.push(
      evidence(
        client,
        `our datagram with seq ${lost.seq} (message ${lost.index}), sent 3 times, never ACKed as seq ${lost.seq}`,
        {
          timeMs: lost.atMs,
          bytes: lost.bytes,
        },
      ),
    );
  else
    found.push(
      evidence(
        client,
        `after ${result.acked} of ${result.sent} sent messages were ACKed: ${result.reason}; our last datagram:`,
        {
          timeMs: result.lastAt,
          bytes: result.lastBytes,
        },
      ),
    );
  const others = [...result.wrongAcks.entries()].filter(([, w]) => w !== aliased);
  if (others.length > 0) {
    const [seq, w] = others[0];
    found.push(
      evidence(
        client,
        `${others.length} more seqs were ACKed that we never sent in this phase, the first: ${seq} (${w.count} time${w.count === 1 ? '' : 's'})`,
        w.arrival,
      ),
    );
  }
  return fail(`${category}: ${result.reason}`, found);
}

const seqWrap: ConformCase = {
  id: 'seq-wrap',
  title: 'Sequence numbers wrap past 65,535 in each category without loss.',
  probe:
    'Harmless fillers carry our counter of each category round the circle, every one ACKed with its exact seq. Then a message the server must act on goes out with the wrapped seq: the round-1 answer (high), then a keepalive (low).',
  windows: ['ackWithinMs', 'wrapBudgetMs'],
  plantedBugs: ['ack-seq-low-byte'],
  sessions: 1,
  probes: { 'wrapped-seq': 'a message of ours whose seq wrapped past 65,535' },
  run: wrapRun,
};

/** The cases on our seqs past 65,535, in the order a report lists them (cases/index.ts joins the groups). */
export const WRAP_CASES: readonly ConformCase[] = [seqWrap];
