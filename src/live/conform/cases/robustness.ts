// Cases on what the server survives and how it answers the keepalive:
// garbage, truncated and oversize datagrams neither crash nor stall it
// (docs/sources.md 5: a decoder reports an error, never reads out of bounds), and
// it echoes the keepalive in the stock form (docs/sources.md 12, 26).
import {
  MAX_DATAGRAM_BYTES,
  TYPE_ACK,
  TYPE_CONNECT,
  TYPE_DATA,
  TYPE_GAME,
  isLowType,
  seqNext,
} from '../../../core/codec/index.js';
import type { DataMessage } from '../../../core/codec/index.js';
import type { RandomStream } from '../../../core/engine/index.js';
import type { CaseContext, ConformCase, Verdict } from '../case-types.js';
import { evidence, fail, notExercised, pass, seconds, seqLabel } from '../case-types.js';
import type { ConformClient } from '../client.js';
import { isData } from '../client.js';
import { reactionSince } from '../describe.js';
import { join, joined, keepaliveMessage, newProgress } from '../join.js';
import { bootsUs } from '../session-end.js';
import { serverAckOf } from './processing.js';
import { FILLER_OPCODE } from './wrap.js';

interface Hostile {
  readonly label: string;
  readonly bytes: Uint8Array;
  /** Sent as they are (no cipher), or encrypted so the server reads this plaintext. */
  readonly raw: boolean;
}

function randomBytes(draw: RandomStream, n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(draw.next() * 256);
  return out;
}

/** The hostile datagrams, in groups; a liveness probe follows each group. */
export function hostileGroups(
  slot: number,
  sample: Uint8Array,
  draw: RandomStream,
): Array<{ name: string; datagrams: Hostile[] }> {
  const plain = (label: string, ...bytes: number[]): Hostile => ({ label, bytes: Uint8Array.from(bytes), raw: false });
  const truncated: Hostile[] = [];
  for (let n = 1; n < sample.length; n++)
    truncated.push({
      label: `a real datagram cut to ${n} of ${sample.length} bytes`,
      bytes: sample.slice(0, n),
      raw: false,
    });
  const oversize = [MAX_DATAGRAM_BYTES + 1, 1400, 8192, 65_000].map(
    (n): Hostile => ({
      label: `${n} bytes (stock limit ${MAX_DATAGRAM_BYTES})`,
      bytes: oversizeDatagram(slot, n),
      raw: false,
    }),
  );
  return [
    {
      name: 'empty and one-byte datagrams',
      datagrams: [{ label: 'an empty datagram', bytes: new Uint8Array(0), raw: true }, plain('one byte', slot)],
    },
    { name: 'truncated datagrams', datagrams: truncated },
    {
      name: 'malformed headers',
      datagrams: [
        plain('msg_count 5 with one message', slot, 5, 0x00, 0x03, 0x00),
        plain('a length past the end', slot, 1, 0x32, 0xff, 0x9f, 0x00, 0x00, 0x01),
        plain('a length below its header', slot, 1, 0x32, 0x02, 0x80, 0x00, 0x00),
        plain('bytes after the last message', slot, 1, 0x00, 0x03, 0x00, 0xaa, 0xbb),
        plain('a fragment 0 announcing 0 fragments', slot, 1, 0x32, 0x09, 0xa0, 0x00, 0x00, 0x00, 0x00, 0x21, 0x00),
        plain('a fragment index 255', slot, 1, 0x32, 0x08, 0xa0, 0x00, 0x00, 0xff, 0x21, 0x00),
        plain('a fragment ACK cut short', slot, 1, 0x01, 0x00, 0x00, 0x01),
        plain('msg_count 255 of ACKs cut short', slot, 255, 0x01, 0x00, 0x00, 0x00),
        ...[0x07, 0x20, 0x31, 0x33, 0xff].map((type) =>
          plain(`unknown message type 0x${type.toString(16).padStart(2, '0')}`, slot, 1, type, 0x05, 0x80, 0x00, 0x00),
        ),
        plain('another slot as peer id', (slot % 200) + 1, 1, 0x00, 0x03, 0x00),
      ],
    },
    {
      name: 'random bytes',
      datagrams: Array.from(
        { length: 24 },
        (_, i): Hostile => ({
          label: `random bytes #${i + 1}`,
          bytes: randomBytes(draw, 1 + Math.floor(draw.next() * 300)),
          raw: i % 2 === 0,
        }),
      ),
    },
    { name: 'oversize datagrams', datagrams: oversize },
  ];
}

/** A datagram of `bytes` bytes made of whole ACKs (msg_count saturates at 255). */
function oversizeDatagram(slot: number, bytes: number): Uint8Array {
  const out = new Uint8Array(bytes);
  out[0] = slot;
  out[1] = 255;
  for (let at = 2; at + 4 <= bytes; at += 4) out.set([0x01, 0x00, 0x7f, 0x00], at);
  return out;
}

async function garbageRun(ctx: CaseContext): Promise<Verdict> {
  const t = ctx.timings;
  let client = await ctx.open('garbage');
  const progress = await join(client, ctx.manifest, newProgress(), t);
  if (!joined(progress)) return notExercised(`join stopped: ${progress.stopped}`);
  const groups = hostileGroups(client.slot ?? 0, keepaliveSample(client), ctx.random('garbage'));
  const notes = [];
  let sent = 0;
  let rejoined = false;
  for (const group of groups) {
    let last: Hostile | null = null;
    let lastAt = 0;
    for (const h of group.datagrams) {
      lastAt = client.now;
      if (h.raw) client.sendRaw(h.bytes, h.label);
      else client.sendPlain(h.bytes, `hostile: ${h.label}`, { fault: 'hostile', proof: [] });
      last = h;
      sent++;
    }
    const probe = keepaliveMessage(client) as DataMessage;
    const probeAt = client.now;
    client.send([probe], `liveness probe after ${group.name}`, { proof: 'all' });
    await client.sleep(t.ackWithinMs + 500);
    if (serverAckOf(client, probe, probeAt) !== undefined) continue;
    const lastHostile = evidence(client, `last hostile datagram: ${last?.label}`, {
      timeMs: lastAt,
      bytes: last?.bytes ?? new Uint8Array(0),
    });
    const boot = client.serverMessages().find((m) => m.timeMs >= lastAt && bootsUs(client, m));
    if (boot === undefined) {
      const lastHeard = client.arrivals.at(-1);
      return fail(`the server stopped answering after ${group.name}`, [
        evidence(
          client,
          `no ACK within ${seconds(t.ackWithinMs + 500)} of our keepalive (${seqLabel(probe.seq as number, true)}) sent after ${group.datagrams.length} ${group.name}; the last hostile one: ${last?.label}`,
          { timeMs: lastAt, bytes: last?.bytes ?? new Uint8Array(0) },
        ),
        ...(lastHeard === undefined ? [] : [evidence(client, "the server's last datagram to us", lastHeard)]),
      ]);
    }
    // Removal for a protocol error is allowed, once: a server that still lets a new client join is alive.
    notes.push(
      evidence(client, `the server Booted us after ${group.name}; it may remove a peer that sends garbage`, boot),
    );
    if (rejoined)
      return notExercised(
        `the server Booted us twice (after ${group.name}): the rest of the garbage was not sent`,
        notes,
      );
    rejoined = true;
    client = await ctx.open('garbage/after-boot');
    const again = await join(client, ctx.manifest, newProgress(), t);
    if (!joined(again))
      return fail(`after Booting us for ${group.name}, the server does not let a new client join: ${again.stopped}`, [
        ...notes,
        lastHostile,
      ]);
  }
  return pass(`${sent} hostile datagrams in ${groups.length} groups; the server answered after each group`, notes);
}

/** A real datagram of this session: the bytes of our keepalive. */
function keepaliveSample(client: ConformClient): Uint8Array {
  return (
    client.departures.find((d) => d.note === 'Keepalive')?.bytes ??
    Uint8Array.of(client.slot ?? 0xff, 1, 0x00, 0x03, 0x00)
  );
}

const garbage: ConformCase = {
  id: 'garbage',
  title: 'Garbage, truncated and oversize datagrams neither crash nor stall the server.',
  probe:
    '67 hostile datagrams in five groups: empty, truncated at every length, malformed headers, seeded random bytes, and 513 bytes to 65,000. A keepalive after each group must be ACKed. A server may Boot a peer that sends garbage (once), but a new client must then still join, and the rest goes through it.',
  windows: ['ackWithinMs'],
  plantedBugs: ['stall-on-oversize'],
  sessions: 2,
  probes: { hostile: 'garbage, truncated or oversize datagrams' },
  // A server may Boot a peer that sends garbage: that removal is judged here, not blamed elsewhere.
  endsSessions: true,
  run: garbageRun,
};

/** Fillers that fit one datagram: 102 five-byte low-type messages, 85 six-byte game messages (512 bytes). */
const FULL_LOW = Math.floor((MAX_DATAGRAM_BYTES - 2) / 5);
const FULL_HIGH = Math.floor((MAX_DATAGRAM_BYTES - 2) / 6);
/** The server may spread that many ACKs over a few updates. */
const FULL_ACK_WAIT_MS = 3000;

async function fullDatagramRun(ctx: CaseContext): Promise<Verdict> {
  const client = await ctx.open('full-datagram');
  const progress = await join(client, ctx.manifest, newProgress(), ctx.timings);
  if (!joined(progress)) return notExercised(`join stopped: ${progress.stopped}`);
  const found = [];
  let total = 0;
  for (const low of [true, false]) {
    const batch: DataMessage[] = [];
    for (let i = 0; i < (low ? FULL_LOW : FULL_HIGH); i++)
      batch.push(
        low
          ? client.reliable(TYPE_CONNECT, new Uint8Array(0), true)
          : client.reliable(TYPE_GAME, Uint8Array.of(FILLER_OPCODE), false),
      );
    const at = client.now;
    const bytes = client.send(
      batch,
      `one datagram of ${batch.length} reliable ${low ? 'type-0x02' : 'game'} messages`,
      {
        fault: 'full-datagram',
        proof: 'all',
      },
    );
    await client.sleep(FULL_ACK_WAIT_MS);
    const missing = batch.map((m, i) => ({ m, i })).filter(({ m }) => serverAckOf(client, m, at) === undefined);
    total += batch.length;
    if (missing.length > 0) {
      const first = missing[0];
      const read = batch.length - missing.length;
      // The decisive datagram is the server's last ACK datagram after ours: it shows where its reading stopped.
      const acks = client.arrivals.filter((a) => a.timeMs >= at && a.messages?.some((m) => m.type === TYPE_ACK));
      const shown = acks.at(-1);
      found.push(
        evidence(
          client,
          `${missing.length} of the ${batch.length} messages of one ${bytes.length}-byte datagram were never ACKed, the first: message ${first.i + 1} (${seqLabel(first.m.seq as number, low)}), after ${read} were${shown ? "; the server's last ACK datagram after ours" : ''} (a datagram holds up to 255 messages; stock ones were measured with up to 33)`,
          shown ?? { timeMs: at, bytes },
        ),
        ...(shown ? [evidence(client, 'our datagram', { timeMs: at, bytes })] : []),
      );
    }
  }
  if (found.length > 0) return fail('messages past the first few of a full datagram are lost', found);
  return pass(`every one of ${total} messages in two full 512-byte datagrams was ACKed`);
}

const fullDatagram: ConformCase = {
  id: 'full-datagram',
  title: 'Every message of a full datagram is read: up to 255 messages in 512 bytes.',
  probe:
    'Two 512-byte datagrams of 102 and 85 reliable messages. Every message must be ACKed (up to 255 per datagram; stock datagrams were measured with up to 33).',
  windows: ['ackWithinMs'],
  plantedBugs: ['reads-32-messages'],
  sessions: 1,
  probes: { 'full-datagram': 'a datagram full of reliable messages' },
  run: fullDatagramRun,
};

/** Low seqs we spend before the probe, so a replay of our own seq cannot pass for the server's next one. */
const SEQ_OFFSET = 3;
const ECHO_WAIT_MS = 3000;

async function keepaliveRun(ctx: CaseContext): Promise<Verdict> {
  const client = await ctx.open('keepalive-echo');
  const t = ctx.timings;
  const progress = await join(client, ctx.manifest, newProgress(), t);
  if (!joined(progress)) return notExercised(`join stopped: ${progress.stopped}`);
  // Harmless low-type messages (the decompiled idle type 0x02, docs/sources.md 18) move our low counter ahead.
  client.send(
    Array.from({ length: SEQ_OFFSET }, () => client.reliable(TYPE_CONNECT, new Uint8Array(0), true)),
    'type-0x02 messages',
  );
  await client.sleep(300);
  const lowBefore = client
    .serverMessages()
    .filter((m) => isData(m.message) && m.message.reliable && isLowType(m.message.type))
    .map((m) => (m.message as DataMessage).seq as number);
  const expectedSeq = lowBefore.length === 0 ? 0 : seqNext(Math.max(...lowBefore));
  const keepalive = keepaliveMessage(client) as DataMessage;
  const sentAt = client.now;
  const bytes = client.send([keepalive], 'Keepalive', { fault: 'keepalive', proof: 'all' });
  const echo = await client.waitFor((m) => isData(m.message) && m.message.type === TYPE_DATA, ECHO_WAIT_MS, sentAt);
  await client.sleep(t.resendMaxMs);
  const found = [];
  const ack = serverAckOf(client, keepalive, sentAt);
  if (ack === undefined)
    found.push(
      evidence(
        client,
        `our keepalive (${seqLabel(keepalive.seq as number, true)}) got no low-type ACK (stock: 01 ${hex16(keepalive.seq as number)} 02); ${reactionSince(client, sentAt)}`,
        { timeMs: sentAt, bytes },
      ),
    );
  if (echo === null) {
    found.push(
      evidence(
        client,
        `no type-0x00 message within ${seconds(ECHO_WAIT_MS)} of our keepalive: no echo (the stock server echoes each keepalive)`,
        { timeMs: sentAt, bytes },
      ),
    );
    return fail('the keepalive was not echoed', found);
  }
  const e = echo.message as DataMessage;
  if (!e.reliable || !e.ordered)
    found.push(
      evidence(
        client,
        `the echo is ${e.reliable ? '' : 'not '}reliable and ${e.ordered ? '' : 'not '}ordered; stock sends flags 0xC0`,
        echo,
      ),
    );
  if (!isIdentity(e.payload))
    found.push(
      evidence(
        client,
        `the echo's ${e.payload.length}-byte payload is not identity data ([slot][IPv4][UTF-16LE name, NUL])`,
        echo,
      ),
    );
  if (e.seq === keepalive.seq && e.seq !== expectedSeq)
    found.push(
      evidence(
        client,
        `the echo carries ${seqLabel(e.seq as number, true)}, our keepalive's own seq, not the server's next low seq ${expectedSeq}: a replay of our message, not a message of the server's`,
        echo,
      ),
    );
  const again = client
    .serverMessages()
    .filter(
      (m) =>
        m.timeMs > echo.timeMs + t.ackGraceMs &&
        m !== echo &&
        isData(m.message) &&
        m.message.type === TYPE_DATA &&
        m.message.seq === e.seq &&
        sameBytes(m.message.payload, e.payload),
    );
  if (again.length > 0)
    found.push(
      evidence(
        client,
        `the same echo (${seqLabel(e.seq as number, true)}) came again ${again.length} time(s) after we ACKed it`,
        again[0],
      ),
    );
  if (found.length > 0) return fail('the keepalive echo is not in the stock form', found);
  const mirrors = sameBytes(e.payload, keepalive.payload)
    ? 'our identity data'
    : "identity data other than ours (the stock server mirrors the client's)";
  return pass(
    `ACKed, and echoed as a ${echo.message.size}-byte reliable ordered type-0x00 message with the server's own ${seqLabel(e.seq as number, true)}, carrying ${mirrors}`,
  );
}

/** [slot][IPv4][UTF-16LE name][00 00] (docs/sources.md 12). */
function isIdentity(payload: Uint8Array): boolean {
  const n = payload.length;
  return n >= 7 && (n - 5) % 2 === 0 && payload[n - 1] === 0 && payload[n - 2] === 0;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

function hex16(seq: number): string {
  return `${(seq & 0xff).toString(16).padStart(2, '0').toUpperCase()} ${(seq >>> 8).toString(16).padStart(2, '0').toUpperCase()}`;
}

const keepaliveEcho: ConformCase = {
  id: 'keepalive-echo',
  title:
    "The keepalive is ACKed and echoed in the stock form: a reliable, ordered type-0x00 identity message with the server's own seq.",
  probe:
    "Our 22-byte keepalive must be ACKed with `01 seq 00 02`. Its echo must be reliable and ordered (flags 0xC0), carry identity data, and use the server's own low seq rather than a replay of ours. It must not come again after our ACK. (The stock keepalive is the captured 22-byte message; the stock server echoes it.)",
  windows: ['resendMaxMs', 'ackGraceMs'],
  plantedBugs: ['no-keepalive-echo'],
  sessions: 1,
  probes: { keepalive: 'a keepalive' },
  run: keepaliveRun,
};

/** The cases on datagrams at and past the limits, in the order a report lists them (cases/index.ts joins the groups). */
export const ROBUSTNESS_CASES: readonly ConformCase[] = [fullDatagram, garbage, keepaliveEcho];
