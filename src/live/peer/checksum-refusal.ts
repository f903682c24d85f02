// The first thing `bcsim peer client` says when its server refused a checksum
// answer: a server that checks file hashes against its manifest removes a
// client whose hashes differ (docs/sources.md 34), and without this the run only
// says the join did not complete. Read from the wire log: our last checksum
// answer (a fragmented one put back together), and what the server did after
// it — a Boot, a game BootPlayer, a Disconnect, or nothing but ACKs.
import {
  TYPE_ACK,
  TYPE_BOOT,
  TYPE_DISCONNECT,
  TYPE_GAME,
  decodeDatagram,
  packDataKey,
  toHex,
} from '../../core/codec/index.js';
import type { DataMessage } from '../../core/codec/index.js';
import { micros, usToSeconds } from '../../core/engine/index.js';
import {
  Opcode,
  answerHashesText,
  checksumAnswerHashes,
  findRound,
  parseChecksumResponse,
  roundLabel,
} from '../../model/traffic/index.js';
import type { ChecksumAnswerHashes, ChecksumManifest } from '../../model/traffic/index.js';
import type { WireRecord } from '../wire-log.js';

/** Silence shorter than this after our answer may be a slow server, not a refusal. */
const MIN_SILENCE_US = micros(3_000_000);
/** Fragmented messages of ours being put back together at once (a join sends one at a time); answers' seqs remembered against re-sends. */
const MAX_PENDING_FRAGMENTED = 4;
const MAX_DONE_SEQS = 64;
/** The server's messages before our answer, remembered to tell a re-send of one from news (past this, news: no verdict). */
const MAX_KEYS_BEFORE = 4096;
/** Files the JSON lists per answer, and the sentence names. */
const MAX_LISTED_FILES = 64;

/** What the server did after our last checksum answer. */
interface RefusalAction {
  readonly kind: 'boot' | 'boot-player' | 'disconnect' | 'silence';
  /** When it did it (null for silence), and how long after our answer. */
  readonly atS: number | null;
  readonly afterS: number | null;
  /** Its ACKs after our answer, and over how long it sent nothing else. */
  readonly acks: number;
  readonly silentS: number | null;
  readonly detail: string;
}

export interface ChecksumRefusal {
  readonly round: number;
  readonly seq: number;
  readonly fragments: number;
  /** When the answer's last piece first went out. */
  readonly answeredAtS: number;
  /** The hashes we sent (null when our own answer does not parse). */
  readonly hashes: ChecksumAnswerHashes | null;
  readonly action: RefusalAction;
  /** What happened, in one sentence; the first line of the output is `sentence`, this with the command's name. */
  readonly summary: string;
  readonly sentence: string;
}

interface Answer {
  readonly seq: number;
  readonly payload: Uint8Array;
  readonly fragments: number;
  readonly timeUs: number;
  /** Index of the record that completed it. */
  readonly record: number;
}

interface Pending {
  count: number;
  readonly pieces: Map<number, Uint8Array>;
}

/**
 * A client's refused checksum answer, or null when the wire does not show one: no answer sent, the
 * server went on (another request, its settings, anything new), or it stayed silent under 3 s.
 * `manifest` is the one we answered from (it names the files); `manifestFile` the --manifest given, if any.
 */
export function checksumRefusal(
  records: readonly WireRecord[],
  manifest: ChecksumManifest,
  endUs: number,
  manifestFile: string | null,
): ChecksumRefusal | null {
  const answer = lastAnswer(records);
  if (answer === null) return null;
  const action = serverAction(records, answer, endUs);
  if (action === null) return null;
  const parsed = parseChecksumResponse(answer.payload);
  const hashes = parsed.ok ? checksumAnswerHashes(parsed.value, MAX_LISTED_FILES) : null;
  const round = parsed.ok ? parsed.value.round : (answer.payload[1] ?? 0);
  const what = parsed.ok
    ? answerHashesText(parsed.value, findRound(manifest, round)?.tree ?? null)
    : `it does not parse at offset ${parsed.error.offset}: ${parsed.error.reason}`;
  const hint =
    manifestFile === null
      ? 'if it checks file hashes, give it its manifest with --manifest FILE'
      : `if it checks file hashes, its manifest differs from ${manifestFile}`;
  const summary = `the server refused our round-${roundLabel(round)} checksum answer (${what}): ${action.detail} — ${hint}`;
  return {
    round,
    seq: answer.seq,
    fragments: answer.fragments,
    answeredAtS: usToSeconds(answer.timeUs),
    hashes,
    action,
    summary,
    sentence: `bcsim peer client: ${summary}`,
  };
}

/** Our last checksum answer, whole: a fragmented one once every piece has gone out. */
function lastAnswer(records: readonly WireRecord[]): Answer | null {
  let last: Answer | null = null;
  const done = new Set<number>();
  const pending = new Map<number, Pending>();
  for (let i = 0; i < records.length; i++) {
    const r = records[i];
    if (r.from !== 'local') continue;
    for (const m of gameMessages(r.bytes)) {
      const seq = m.seq as number;
      if (done.has(seq)) continue;
      if (!m.fragment) {
        if (m.payload[0] !== Opcode.ChecksumResponse) continue;
        remember(done, seq);
        last = { seq, payload: m.payload, fragments: 1, timeUs: r.timeUs, record: i };
        continue;
      }
      let p = pending.get(seq);
      if (p === undefined) {
        if (m.fragIndex !== 0 || m.payload[0] !== Opcode.ChecksumResponse) continue;
        if (pending.size >= MAX_PENDING_FRAGMENTED) pending.delete(pending.keys().next().value as number);
        p = { count: 0, pieces: new Map() };
        pending.set(seq, p);
      }
      if (m.fragIndex === 0) p.count = m.fragCount ?? 0;
      p.pieces.set(m.fragIndex as number, m.payload);
      if (p.count === 0 || p.pieces.size < p.count) continue;
      const parts = Array.from({ length: p.count }, (_, k) => p.pieces.get(k));
      if (parts.some((x) => x === undefined)) continue;
      pending.delete(seq);
      remember(done, seq);
      last = { seq, payload: concat(parts as Uint8Array[]), fragments: p.count, timeUs: r.timeUs, record: i };
    }
  }
  return last;
}

function remember(done: Set<number>, seq: number): void {
  if (done.size >= MAX_DONE_SEQS) done.delete(done.values().next().value as number);
  done.add(seq);
}

/** Reliable game messages of a datagram (the log holds what the transport read, so it decodes). */
function gameMessages(bytes: Uint8Array): DataMessage[] {
  const decoded = decodeDatagram(bytes);
  if (!decoded.ok) return [];
  return decoded.datagram.messages.filter((m): m is DataMessage & { offset: number; size: number } => {
    return m.type === TYPE_GAME && (m as DataMessage).reliable;
  });
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** What the server sent after `answer`: a removal, or only ACKs (and re-sends of what it sent before) for 3 s or more. */
function serverAction(records: readonly WireRecord[], answer: Answer, endUs: number): RefusalAction | null {
  const before = new Set<number>();
  for (let i = 0; i < answer.record; i++) {
    const r = records[i];
    if (r.from !== 'remote') continue;
    const decoded = decodeDatagram(r.bytes);
    if (!decoded.ok) continue;
    for (const m of decoded.datagram.messages)
      if (m.type !== TYPE_ACK && (m as DataMessage).reliable && before.size < MAX_KEYS_BEFORE)
        before.add(packDataKey(m as DataMessage));
  }
  let acks = 0;
  let lastAckUs = Number.NaN;
  const removal = (kind: RefusalAction['kind'], timeUs: number, what: string, how: string): RefusalAction => {
    const afterS = usToSeconds(timeUs - answer.timeUs);
    const detail = `${what} ${seconds(afterS)} later (${how})`;
    return { kind, atS: usToSeconds(timeUs), afterS, acks, silentS: null, detail };
  };
  for (let i = answer.record + 1; i < records.length; i++) {
    const r = records[i];
    if (r.from !== 'remote') continue;
    const decoded = decodeDatagram(r.bytes);
    if (!decoded.ok) return null;
    for (const m of decoded.datagram.messages) {
      if (m.type === TYPE_ACK) {
        acks++;
        lastAckUs = r.timeUs;
        continue;
      }
      const data = m as DataMessage;
      if (data.type === TYPE_BOOT)
        return removal('boot', r.timeUs, 'it Booted us', `a transport Boot, type 0x04, payload ${payloadText(data)}`);
      if (data.type === TYPE_DISCONNECT) {
        const alt = r.deviations?.some((d) => d.code === 'disconnect-type-06') ?? false;
        return removal('disconnect', r.timeUs, 'it disconnected us', `a Disconnect, type 0x0${alt ? 6 : 5}`);
      }
      if (data.type === TYPE_GAME && !data.fragment && data.payload[0] === Opcode.BootPlayer) {
        const reason = data.payload.length > 1 ? `, reason ${data.payload[1]}` : ', no reason';
        return removal('boot-player', r.timeUs, 'it removed us', `a game BootPlayer, opcode 0x04${reason}`);
      }
      // A re-send of what it sent before our answer is not news; anything else is: it went on.
      if (!(data.reliable && before.has(packDataKey(data)))) return null;
    }
  }
  const silentUs = endUs - answer.timeUs;
  if (silentUs < MIN_SILENCE_US) return null;
  const silentS = usToSeconds(silentUs);
  const detail =
    acks === 0
      ? `it went silent: not even an ACK of it in the ${seconds(silentS)} that followed`
      : `it went silent: nothing but ${acks} ACK${acks === 1 ? '' : 's'} in the ${seconds(silentS)} that followed (the last ${seconds(usToSeconds(lastAckUs - answer.timeUs))} after it)`;
  return { kind: 'silence', atS: null, afterS: null, acks, silentS, detail };
}

function payloadText(m: DataMessage): string {
  return m.payload.length === 0 ? 'empty' : toHex(m.payload.subarray(0, 16));
}

function seconds(s: number): string {
  return `${s.toFixed(2)} s`;
}
