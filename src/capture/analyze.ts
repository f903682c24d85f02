// The figures bcsim's model reports, measured from the wire alone (issue 13,
// item 3). One WireAnalyzer takes datagrams in time order, from a capture
// (analyzeCapture) or from a simulated run (analyze-against.ts feeds it from
// an observer), so both columns of `bcsim analyze --against` come from the
// same code.
//
// Per connection and direction (named by the sender): datagrams, bytes,
// messages and ACK bytes per datagram, reliable messages per category with
// their retransmissions (the same seq and fragment index again from the same
// sender), fragment retransmit rounds and their period, keepalives, and the
// ACKs the sender puts on the wire: how often each ACK key is sent, stale and
// late ACKs. Per connection end, an estimate of its ACK-outbox over time and
// the fragment-ACK signature verdict of `bcsim reproduce fragment-ack`.
//
// The ACK-outbox estimate (README "Reading captures"): an ACK entry is an ACK
// key (seq, low/high, fragment flag and index) its sender holds. It is born
// when the message it answers is read, one network update before the first
// send of its key (never before the message was on the wire, nor more than
// 1 s before that send), and freed at its F-th send (DECISIONS.md 8: the
// stock two-pass outbox frees an entry at its 9th send, the fixed single pass
// at its 3rd); a key sent again after that is a new entry. The estimate at a
// sample time t counts the entries born before t and not freed before t (a
// sample taken at an update's instant sees the state before it, as the
// simulator samples). F is read from the wire: 9 when some key is sent more
// than 3 times with no re-send of its message in between (pass 2 at work),
// otherwise 3. The estimate of an end is defined from the connection's first
// datagram, when the capture holds the connection from its start (the
// client's first datagram has peer id 0xFF), until the connection's
// Disconnect or Boot, or one second before the capture ends, or the end's
// own last datagram if it then stays silent for more than 10 s (it went away).
import { usToMs, usToSeconds, msToUsUnrounded } from '../engine/index.js';
import {
  DATAGRAM_HEADER_BYTES,
  TYPE_ACK,
  TYPE_BOOT,
  TYPE_DATA,
  TYPE_CONNECT,
  TYPE_DISCONNECT,
  ackBytesOfFlags,
  ackFlagsAt,
  ackFlagsFragment,
  ackFlagsLowType,
  ackFlagsOther,
  ackFragIndexAt,
  ackSeqAt,
  afterSeqOffset,
  dataFragCountAt,
  dataFragIndexAt,
  dataSeqAt,
  flagsLenAt,
  flagsLenFragment,
  flagsLenReliable,
  flagsLenSize,
  isLowType,
  packKeyOf,
  newDeviationCounts,
  countDeviations,
  readMessage,
  seqBefore,
} from '../codec/index.js';
import type { Deviation, Located } from '../codec/index.js';
import { measureSignature, median } from '../reproduce/index.js';
import type { Signature } from '../reproduce/index.js';
import type { SendEvent, TraceEvent } from '../trace/index.js';
import { SendNote } from '../transport/index.js';
import type { Role } from '../transport/index.js';
import type { CaptureConnection } from './bc-packets.js';
import { datagramMessages } from './wire-walk.js';
import type {
  AckRule,
  AckRuleName,
  AnalyzerOptions,
  CategoryFigures,
  ConnectionAnalysis,
  DirectionFigures,
  OutboxEstimate,
  OutboxSeries,
  WireAnalysis,
} from './analysis-types.js';
export type * from './analysis-types.js';

export const ANALYSIS_SCHEMA = 'bcsim.analyze/1';

/** One end's live figures (WireAnalyzer.live). */
export interface LiveDirection {
  readonly datagrams: number;
  /** Re-sends of reliable messages (fragments included), low and high category. */
  readonly retransmissions: number;
  readonly fragmentRounds: number;
  readonly staleAcks: number;
  readonly ackOutbox: number;
}

export interface LiveConnection {
  readonly index: number;
  readonly client: LiveDirection;
  readonly server: LiveDirection;
}

/** One outbox sample per simulated second, as the metrics recorder samples. */
export const SAMPLE_STEP_US = 1_000_000;
/** Samples kept per series before the step doubles (a 5.5-hour capture at 1 s). */
export const MAX_SAMPLES = 20_000;
/** A birth is dated back at most this far (to the estimated creation of its entry). */
const MAX_BACKDATE_US = 1_000_000;
/** The end of a capture can hold entries created but not yet ACKed on the wire: the estimate stops this much before it. */
const UNSEEN_TAIL_US = 1_000_000;
/** Samples are settled once the input is this far past them. */
const SETTLE_LAG_US = 1_500_000;
/** Retransmissions closer than this belong to one round (reproduce/signature.ts). */
const ROUND_GAP_US = 1_000_000;
/** An ACK sent this long after the last transmission of its message is late: past pass 1's three sends 0.667 s apart. */
export const LATE_ACK_US = 2_500_000;
/** A re-sent message whose entry had its 3 sends is "answered" when its ACK follows within this. */
const ANSWER_WINDOW_US = 1_500_000;
/** ACK keys idle this long and no longer held are summed up and forgotten. */
const FORGET_IDLE_US = 120_000_000;
const SWEEP_EVERY_US = 120_000_000;
/** "3 then silence": a key sent exactly 3 times and not again for at least this long. */
const SILENCE_US = 5_000_000;
/** Round-start gaps kept per direction for the median period. */
const MAX_GAPS = 100_000;
/** ACK keys tracked per end: far above any real outbox (the model stops at 131,072 entries), a bound on hostile input. */
export const MAX_ACK_KEYS = 262_144;
/** Fragmented messages tracked per end at once (idle ones are forgotten after FORGET_FRAGMENTED_US). */
const MAX_FRAGMENTED = 16_384;
const FORGET_FRAGMENTED_US = 300_000_000;
/** Reduced events kept per connection for the signature. */
const MAX_SIGNATURE_EVENTS = 200_000;
/** An end silent this long at the end of its connection (two keepalive intervals, DECISIONS.md 12) has gone away. */
const GONE_SILENCE_US = 10_000_000;
/** Stock message lifetime for the signature's criterion 3 (messageLifetime peer-timeout). */
export const DEFAULT_LIFETIME_S = 45;


// ---- bookkeeping --------------------------------------------------------

const NOT_SEEN = Number.NaN;
const PAGE_BITS = 12;
const PAGE = 1 << PAGE_BITS;

/** Per sequence number of one category: transmissions and the last one's time, in pages allocated on use. */
class SeqTable {
  highest = -1;
  private readonly counts: Array<Uint32Array | undefined> = [];
  private readonly last: Array<Float64Array | undefined> = [];
  /** Fragmented messages by seq. */
  readonly fragmented = new Map<number, FragmentedMessage>();

  count(seq: number): number {
    return this.counts[seq >> PAGE_BITS]?.[seq & (PAGE - 1)] ?? 0;
  }

  lastUs(seq: number): number {
    const page = this.last[seq >> PAGE_BITS];
    return page === undefined ? NOT_SEEN : page[seq & (PAGE - 1)];
  }

  record(seq: number, timeUs: number, count: number): void {
    const p = seq >> PAGE_BITS;
    let counts = this.counts[p];
    let last = this.last[p];
    if (counts === undefined || last === undefined) {
      counts = this.counts[p] = new Uint32Array(PAGE);
      last = this.last[p] = new Float64Array(PAGE).fill(NOT_SEEN);
    }
    counts[seq & (PAGE - 1)] = count;
    last[seq & (PAGE - 1)] = timeUs;
  }
}

interface FragmentState {
  count: number;
  lastUs: number;
}

interface FragmentedMessage {
  fragCount: number | null;
  readonly frags: Map<number, FragmentState>;
  rounds: number;
  completeRounds: number;
  roundStartUs: number;
  lastResendUs: number;
  readonly roundIndices: Set<number>;
  lastUs: number;
}

/** One ACK key as its sender puts it on the wire. */
interface AckState {
  sends: number;
  firstSendUs: number;
  lastSendUs: number;
  run: number;
  /** Sends in the current entry under each rule; 0 = no entry held. */
  n3: number;
  n9: number;
  /** First ACK after the message's latest transmission. */
  answeredUs: number;
  /** Repeats since that answer, not yet known to be stale. */
  pending: number;
  /** A re-send of the message reached an entry past its 3 sends: waiting for an answer (-1: none). */
  awaitUs: number;
}

/**
 * A count over time, sampled at whole steps. A change effective at time b counts
 * at the samples k with k·step > b; since births are dated back a little (to
 * the entry's estimated creation), a sample is settled only once the input is
 * SETTLE_LAG_US past it. `current` is the live count as changes arrive (peak).
 */
class StepSeries {
  current = 0;
  peak = 0;
  peakUs = Number.NaN;
  readonly values: number[] = [];
  /** Changes dated before a sample already settled (out-of-order input): moved to the next sample. */
  late = 0;
  private stride = 1;
  private next: number;
  private settled = 0;
  private readonly pending = new Map<number, number>();

  constructor(private readonly startIndex: number) {
    this.next = startIndex;
  }

  /** Settles the samples more than SETTLE_LAG_US before `timeUs`. */
  advance(timeUs: number): void {
    while (this.next * SAMPLE_STEP_US < timeUs - SETTLE_LAG_US) this.settle();
  }

  /** Settles every sample at or before `endUs`: the input is over. */
  finish(endUs: number): void {
    while (this.next * SAMPLE_STEP_US <= endUs) this.settle();
  }

  /** A change of `delta` effective at `effectiveUs`, seen at `nowUs`. */
  add(delta: number, effectiveUs: number, nowUs: number): void {
    this.current += delta;
    if (this.current > this.peak) {
      this.peak = this.current;
      this.peakUs = nowUs;
    }
    // Strictly after: a sample taken at the very instant of an update sees the state before it, as the simulator samples.
    let index = Math.floor(effectiveUs / SAMPLE_STEP_US) + 1;
    if (index < this.next) {
      this.late++;
      index = this.next;
    }
    this.pending.set(index, (this.pending.get(index) ?? 0) + delta);
  }

  series(): OutboxSeries {
    return { startS: usToSeconds(this.startIndex * SAMPLE_STEP_US), stepS: usToSeconds(this.stride * SAMPLE_STEP_US), values: this.values };
  }

  private settle(): void {
    const delta = this.pending.get(this.next);
    if (delta !== undefined) {
      this.settled += delta;
      this.pending.delete(this.next);
    }
    if ((this.next - this.startIndex) % this.stride === 0) {
      this.values.push(this.settled);
      if (this.values.length >= MAX_SAMPLES) this.halve();
    }
    this.next++;
  }

  private halve(): void {
    let j = 0;
    for (let i = 0; i < this.values.length; i += 2) this.values[j++] = this.values[i];
    this.values.length = j;
    this.stride *= 2;
  }
}

/**
 * A sender's network update period: the shortest gap between its datagrams
 * (1 ms buckets, 1..999 ms) seen at least three times. An end that does not
 * send at every update leaves gaps of whole multiples of the period, so the
 * most common gap can be a multiple; the shortest recurring one is not.
 */
class PeriodEstimate {
  private readonly counts = new Uint8Array(1000);
  private best = 1000;
  private lastUs = Number.NaN;

  datagram(timeUs: number): void {
    const gap = Math.round(usToMs(timeUs - this.lastUs));
    this.lastUs = timeUs;
    if (!(gap >= 1 && gap < this.best)) return;
    if (++this.counts[gap] >= 3) this.best = gap;
  }

  /** In µs; NaN until some gap has recurred three times. */
  get periodUs(): number {
    return this.best < 1000 ? msToUsUnrounded(this.best) : Number.NaN;
  }
}

class Direction {
  datagrams = 0;
  bytes = 0;
  messages = 0;
  messagesMax = 0;
  ackBytes = 0;
  ackBytesMax = 0;
  unreliable = 0;
  readonly low: CategoryFigures = { messages: 0, transmissions: 0, retransmissions: 0 };
  readonly high: CategoryFigures = { messages: 0, transmissions: 0, retransmissions: 0 };
  fragMessages = 0;
  fragTransmissions = 0;
  fragRetransmissions = 0;
  fragMessagesResent = 0;
  rounds = 0;
  completeRounds = 0;
  readonly roundGaps: number[] = [];
  firstRoundUs = Number.NaN;
  lastRoundUs = Number.NaN;
  type00 = 0;
  type02 = 0;
  disconnects = 0;
  boots = 0;
  readonly deviations = newDeviationCounts();
  // The messages this end sends, per category.
  readonly seqs: [SeqTable, SeqTable] = [new SeqTable(), new SeqTable()];
  // The ACKs this end sends.
  readonly acks = new Map<number, AckState>();
  ackSends = 0;
  ackKeys = 0;
  /** ACK sends past MAX_ACK_KEYS distinct keys held: not followed. */
  untrackedAckSends = 0;
  readonly sendsPerKey = new Array<number>(11).fill(0);
  threeThenSilence = 0;
  stale = 0;
  repeatsWhileOutstanding = 0;
  late = 0;
  forUnseen = 0;
  maxAgeUs = Number.NaN;
  maxRun = 0;
  unanswered = 0;
  answered = 0;
  lastSweepUs = 0;
  /** Time of this end's last datagram. */
  lastUs = Number.NaN;
  readonly period = new PeriodEstimate();
  // This end's ACK-outbox under each rule, and the dead zone under the two-pass rule.
  readonly out3: StepSeries;
  readonly out9: StepSeries;
  readonly dead9: StepSeries;

  constructor(
    readonly from: Role,
    startIndex: number,
  ) {
    this.out3 = new StepSeries(startIndex);
    this.out9 = new StepSeries(startIndex);
    this.dead9 = new StepSeries(startIndex);
  }
}

class ConnectionState {
  readonly dirs: Record<Role, Direction>;
  endedUs = Number.NaN;
  /** Reduced events for measureSignature: the client's first fragmented message and the server's ACKs of its seq. */
  readonly signatureEvents: TraceEvent[] = [];
  signatureSeq: number | null = null;
  signatureCapped = false;
  resentAfterAck = 0;

  constructor(readonly ref: CaptureConnection) {
    const startIndex = Math.ceil(ref.firstUs / SAMPLE_STEP_US);
    this.dirs = { server: new Direction('server', startIndex), client: new Direction('client', startIndex) };
  }
}

const EMPTY = new Uint8Array(0);
const NO_DEVIATIONS: readonly Deviation[] = [];

/** The codec's reading of the (valid) message at bytes[pos], kept without its payload: the bytes are not ours to hold. */
function located(bytes: Uint8Array, pos: number): Located {
  const read = readMessage(bytes, pos, bytes.length) as Located;
  return read.type === TYPE_ACK ? read : { ...read, payload: EMPTY };
}

export class WireAnalyzer {
  private readonly states = new Map<CaptureConnection, ConnectionState>();
  private readonly order: ConnectionState[] = [];
  private lastUs = 0;
  /** Datagrams refused because the codec would reject them. */
  rejected = 0;

  constructor(private readonly options: AnalyzerOptions = {}) {}

  /**
   * One plaintext datagram `from` sent on `connection` at `timeUs` (relative),
   * `length` bytes on the wire. Returns false, and counts nothing, when the
   * codec would reject the bytes. The bytes are read during the call only.
   * `deviations`: what a dialect reading (DECISIONS.md 30) named before `bytes`
   * were put in the stock form; ACK flag bits stay in the bytes and are counted from them.
   */
  add(connection: CaptureConnection, from: Role, timeUs: number, length: number, bytes: Uint8Array, end: number = bytes.length, deviations: readonly Deviation[] = NO_DEVIATIONS): boolean {
    const n = datagramMessages(bytes, end);
    if (n < 0) {
      this.rejected++;
      return false;
    }
    let c = this.states.get(connection);
    if (c === undefined) {
      c = new ConnectionState(connection);
      this.states.set(connection, c);
      this.order.push(c);
    }
    if (timeUs > this.lastUs) this.lastUs = timeUs;
    const d = c.dirs[from];
    const other = c.dirs[from === 'server' ? 'client' : 'server'];
    advance(d, timeUs);
    advance(other, timeUs);
    d.datagrams++;
    d.lastUs = timeUs;
    d.period.datagram(timeUs);
    d.bytes += length;
    d.messages += n;
    if (n > d.messagesMax) d.messagesMax = n;
    let ackBytes = 0;
    let ackFlagBits = 0;
    let pos = DATAGRAM_HEADER_BYTES;
    for (let i = 0; i < n; i++) {
      const type = bytes[pos];
      if (type === TYPE_ACK) {
        const flags = ackFlagsAt(bytes, pos);
        if (ackFlagsOther(flags) !== 0) ackFlagBits++;
        const size = ackBytesOfFlags(flags);
        ackBytes += size;
        this.ackSent(c, d, other, bytes, pos, flags, timeUs);
        pos += size;
        continue;
      }
      const flagsLen = flagsLenAt(bytes, pos);
      const size = flagsLenSize(type, flagsLen);
      const reliable = flagsLenReliable(flagsLen);
      if (type === TYPE_DATA) d.type00++;
      else if (type === TYPE_CONNECT) d.type02++;
      else if (type === TYPE_DISCONNECT) {
        d.disconnects++;
        if (Number.isNaN(c.endedUs)) c.endedUs = timeUs;
      } else if (type === TYPE_BOOT) {
        d.boots++;
        const payloadAt = pos + afterSeqOffset(reliable);
        if (payloadAt < pos + size) this.booted(connection, bytes[payloadAt], timeUs);
      }
      if (reliable) this.reliableSent(c, d, other, bytes, pos, type, flagsLen, timeUs);
      else d.unreliable++;
      pos += size;
    }
    d.ackBytes += ackBytes;
    if (ackBytes > d.ackBytesMax) d.ackBytesMax = ackBytes;
    if (ackFlagBits > 0 || deviations.length > 0) countEndDeviations(d, deviations, ackFlagBits);
    if (timeUs - d.lastSweepUs >= SWEEP_EVERY_US) {
      d.lastSweepUs = timeUs;
      sweep(d, timeUs);
    }
    return true;
  }

  /** A Boot names the slot of the peer the server removed: that connection (same server) has ended. */
  private booted(connection: CaptureConnection, slot: number, timeUs: number): void {
    for (const s of this.order) {
      if (s.ref.server === connection.server && s.ref.slot === slot && Number.isNaN(s.endedUs)) s.endedUs = timeUs;
    }
  }

  /** A reliable message at bytes[pos] (type and flags_len already read). */
  private reliableSent(c: ConnectionState, d: Direction, ackSender: Direction, bytes: Uint8Array, pos: number, type: number, flagsLen: number, t: number): void {
    const low = isLowType(type);
    const seq = dataSeqAt(bytes, pos);
    const fragment = flagsLenFragment(type, flagsLen);
    const fragIndex = fragment ? dataFragIndexAt(bytes, pos) : 0;
    const fragCount = fragment && fragIndex === 0 ? dataFragCountAt(bytes, pos) : -1;
    const table = d.seqs[low ? 0 : 1];
    const category = low ? d.low : d.high;
    let newMessage = false;
    if (table.highest < 0 || seqBefore(table.highest, seq)) {
      table.highest = seq;
      if (table.count(seq) > 0) {
        // The seq wrapped: a new message takes an old one's number.
        newMessage = true;
        const old = table.fragmented.get(seq);
        if (old !== undefined) closeFragmented(d, old);
        table.fragmented.delete(seq);
        table.record(seq, t, 0);
      }
    }
    const seen = table.count(seq);
    let previous: number; // earlier transmissions of this (seq, fragment index)
    if (fragment) {
      let fm = table.fragmented.get(seq);
      if (fm === undefined) {
        if (table.fragmented.size >= MAX_FRAGMENTED) forgetFragmented(d, table, t, 0);
        fm = { fragCount: null, frags: new Map(), rounds: 0, completeRounds: 0, roundStartUs: Number.NaN, lastResendUs: Number.NEGATIVE_INFINITY, roundIndices: new Set(), lastUs: t };
        table.fragmented.set(seq, fm);
        d.fragMessages++;
      }
      fm.lastUs = t;
      if (fragCount >= 0) fm.fragCount = fragCount;
      const index = fragIndex;
      let fs = fm.frags.get(index);
      if (fs === undefined) fm.frags.set(index, (fs = { count: 0, lastUs: t }));
      previous = fs.count;
      fs.count++;
      fs.lastUs = t;
      d.fragTransmissions++;
      if (previous > 0) {
        d.fragRetransmissions++;
        resendRound(d, fm, index, t);
      }
      if (d.from === 'client') this.signatureFragment(c, bytes, pos, seq, fragCount, previous, t);
    } else {
      previous = seen;
    }
    if (seen === 0) category.messages++;
    category.transmissions++;
    if (previous > 0) category.retransmissions++;
    table.record(seq, t, seen + 1);

    // The other end's ACK entry for this message.
    const key = packKeyOf(low, seq, fragment, fragIndex);
    const st = ackSender.acks.get(key);
    if (st === undefined) return;
    if (newMessage) {
      // Repeats of the old message's ACK that nothing re-sent: stale.
      ackSender.stale += st.pending;
      st.pending = 0;
      st.answeredUs = Number.NEGATIVE_INFINITY;
    } else if (previous > 0) {
      // The sender still had it outstanding: the repeats before this re-send were not stale.
      ackSender.repeatsWhileOutstanding += st.pending;
      st.pending = 0;
      if (!fragment && st.firstSendUs < t) c.resentAfterAck++;
    }
    if (st.n9 >= 3) {
      // A re-send reaching an entry past its three sends: single-pass would free it and answer afresh.
      if (st.awaitUs >= 0 && t - st.awaitUs > ANSWER_WINDOW_US) ackSender.unanswered++;
      st.awaitUs = t;
    }
  }

  /** An ACK at bytes[pos] with its flags byte. */
  private ackSent(c: ConnectionState, x: Direction, y: Direction, bytes: Uint8Array, pos: number, flags: number, t: number): void {
    const seq = ackSeqAt(bytes, pos);
    const low = ackFlagsLowType(flags);
    const fragment = ackFlagsFragment(flags);
    const index = fragment ? ackFragIndexAt(bytes, pos) : 0;
    const key = packKeyOf(low, seq, fragment, index);
    let st = x.acks.get(key);
    if (st === undefined && x.acks.size >= MAX_ACK_KEYS) {
      sweep(x, t);
      if (x.acks.size >= MAX_ACK_KEYS) {
        // Past any real outbox: counted, not followed (the estimate is then not defined).
        x.ackSends++;
        x.untrackedAckSends++;
        return;
      }
    }
    if (st === undefined) {
      st = { sends: 0, firstSendUs: t, lastSendUs: Number.NEGATIVE_INFINITY, run: 0, n3: 0, n9: 0, answeredUs: Number.NEGATIVE_INFINITY, pending: 0, awaitUs: -1 };
      x.acks.set(key, st);
      x.ackKeys++;
    }
    x.ackSends++;
    // When the acknowledged message was last on the wire from the other end.
    const table = y.seqs[low ? 0 : 1];
    let yLast: number;
    if (fragment) {
      const fm = table.fragmented.get(seq);
      yLast = fm?.frags.get(index)?.lastUs ?? table.lastUs(seq);
    } else {
      yLast = table.lastUs(seq);
    }
    if (Number.isNaN(yLast)) {
      x.forUnseen++;
      st.run++;
    } else {
      st.run = yLast > st.lastSendUs ? 1 : st.run + 1;
      const age = t - yLast;
      if (!(age <= x.maxAgeUs)) x.maxAgeUs = age;
      if (age > LATE_ACK_US) x.late++;
      if (st.answeredUs >= yLast) st.pending++;
      else st.answeredUs = t;
    }
    if (st.run > x.maxRun) x.maxRun = st.run;
    if (st.awaitUs >= 0) {
      if (t - st.awaitUs <= ANSWER_WINDOW_US) x.answered++;
      else x.unanswered++;
      st.awaitUs = -1;
    }
    // Entries under both rules: born with the first send of a key not held, freed at the F-th send.
    // The entry was created when its message was read, one update before that first send
    // (DECISIONS.md 16): its birth is dated back by the sender's update period, not before
    // the message was on the wire, nor more than 1 s.
    let birth = t;
    if (st.n3 === 0 || st.n9 === 0) {
      const period = x.period.periodUs;
      // Until the period is known, the message's own time on the wire stands in for the creation.
      birth = Number.isNaN(period) ? (Number.isNaN(yLast) ? t : yLast) : t - period;
      if (!Number.isNaN(yLast) && yLast > birth) birth = yLast;
      if (birth > t) birth = t;
      if (birth < t - MAX_BACKDATE_US) birth = t - MAX_BACKDATE_US;
    }
    if (st.n3 === 0) x.out3.add(1, birth, t);
    if (++st.n3 === 3) {
      st.n3 = 0;
      x.out3.add(-1, t, t);
    }
    if (st.n9 === 0) x.out9.add(1, birth, t);
    st.n9++;
    if (st.n9 === 3) x.dead9.add(1, t, t);
    if (st.n9 === 9) {
      st.n9 = 0;
      x.out9.add(-1, t, t);
      x.dead9.add(-1, t, t);
    }
    st.sends++;
    st.lastSendUs = t;
    if (x.from === 'server' && c.signatureSeq !== null && seq === c.signatureSeq && !low) {
      this.signatureEvent(c, { kind: 'send', timeUs: t, client: c.ref.index, slot: c.ref.slot, from: 'server', bytes: EMPTY, messages: [located(bytes, pos)], notes: [SendNote.Ack], transmission: [0] });
    }
  }

  /** A fragment the client sent: the reduced events of the signature follow its first fragmented message. */
  private signatureFragment(c: ConnectionState, bytes: Uint8Array, pos: number, seq: number, fragCount: number, previous: number, t: number): void {
    if (c.signatureSeq === null) {
      if (fragCount < 0) return;
      c.signatureSeq = seq;
    }
    if (seq !== c.signatureSeq) return;
    const note = previous > 0 ? SendNote.Retransmit : SendNote.FirstSend;
    this.signatureEvent(c, { kind: 'send', timeUs: t, client: c.ref.index, slot: c.ref.slot, from: 'client', bytes: EMPTY, messages: [located(bytes, pos)], notes: [note], transmission: [previous] });
  }

  private signatureEvent(c: ConnectionState, event: SendEvent): void {
    if (c.signatureEvents.length >= MAX_SIGNATURE_EVENTS) {
      c.signatureCapped = true;
      return;
    }
    c.signatureEvents.push(event);
  }

  /**
   * Live figures per connection while datagrams still arrive (the proxy's status
   * line, issue 14): read-only, unlike finish(), so input can go on after it.
   * Stale ACKs are those already known stale; the ACK-outbox is the current
   * estimate under the rule the wire shows so far.
   */
  live(): LiveConnection[] {
    let maxRun = 0;
    for (const c of this.order) maxRun = Math.max(maxRun, c.dirs.client.maxRun, c.dirs.server.maxRun);
    const twoPass = this.options.ackRule === undefined ? maxRun > 3 : this.options.ackRule === 'two-pass';
    const figures = (d: Direction): LiveDirection => ({
      datagrams: d.datagrams,
      retransmissions: d.low.retransmissions + d.high.retransmissions,
      fragmentRounds: d.rounds,
      staleAcks: d.stale,
      ackOutbox: twoPass ? d.out9.current : d.out3.current,
    });
    return this.order.map((c) => ({ index: c.ref.index, client: figures(c.dirs.client), server: figures(c.dirs.server) }));
  }

  /** The figures, once every datagram is in; `endUs` is the end of the input (relative). */
  finish(endUs: number = this.lastUs): WireAnalysis {
    const end = Math.max(endUs, this.lastUs);
    let maxRun = 0;
    let unanswered = 0;
    let answered = 0;
    for (const c of this.order) {
      for (const d of [c.dirs.client, c.dirs.server]) {
        finishDirection(d, end);
        maxRun = Math.max(maxRun, d.maxRun);
        unanswered += d.unanswered;
        answered += d.answered;
      }
    }
    const rule = chooseRule(this.options.ackRule, maxRun, unanswered, answered);
    const lifetimeS = this.options.lifetimeS ?? DEFAULT_LIFETIME_S;
    return {
      endS: usToSeconds(end),
      ackRule: rule,
      connections: this.order.map((c) => connectionFigures(c, rule, end, lifetimeS)),
    };
  }
}

function advance(d: Direction, t: number): void {
  d.out3.advance(t);
  d.out9.advance(t);
  d.dead9.advance(t);
}

/** A re-sent fragment: a new round after a pause or when an index comes again (reproduce/signature.ts). */
function resendRound(d: Direction, fm: FragmentedMessage, index: number, t: number): void {
  if (t - fm.lastResendUs > ROUND_GAP_US || fm.roundIndices.has(index)) {
    closeRound(fm);
    if (fm.rounds === 0) d.fragMessagesResent++;
    else if (d.roundGaps.length < MAX_GAPS) d.roundGaps.push(t - fm.roundStartUs);
    fm.rounds++;
    fm.roundStartUs = t;
    d.rounds++;
    if (Number.isNaN(d.firstRoundUs)) d.firstRoundUs = t;
    d.lastRoundUs = t;
  }
  fm.roundIndices.add(index);
  fm.lastResendUs = t;
}

function closeRound(fm: FragmentedMessage): void {
  if (fm.roundIndices.size > 0 && fm.fragCount !== null && fm.roundIndices.size >= fm.fragCount) fm.completeRounds++;
  fm.roundIndices.clear();
}

function closeFragmented(d: Direction, fm: FragmentedMessage): void {
  closeRound(fm);
  d.completeRounds += fm.completeRounds;
  fm.completeRounds = 0;
}

/** Sums up and forgets ACK keys no longer held and idle for a while (bounded memory on long captures). */
function sweep(d: Direction, t: number): void {
  for (const [key, st] of d.acks) {
    if (st.n9 !== 0 || st.awaitUs >= 0 || t - st.lastSendUs < FORGET_IDLE_US) continue;
    retireKey(d, st, t);
    d.acks.delete(key);
  }
  for (const table of d.seqs) forgetFragmented(d, table, t, FORGET_FRAGMENTED_US);
}

/**
 * Closes and forgets fragmented messages idle for `idleUs`; with 0 (the table is full), the
 * oldest half. A message the sender still re-sends (every 2 s in stock) is never idle that long.
 */
function forgetFragmented(d: Direction, table: SeqTable, t: number, idleUs: number): void {
  let budget = idleUs === 0 ? Math.ceil(table.fragmented.size / 2) : Number.POSITIVE_INFINITY;
  for (const [seq, fm] of table.fragmented) {
    if (budget <= 0) break;
    if (idleUs > 0 && t - fm.lastUs < idleUs) continue;
    closeFragmented(d, fm);
    table.fragmented.delete(seq);
    budget--;
  }
}

function retireKey(d: Direction, st: AckState, t: number): void {
  d.sendsPerKey[Math.min(st.sends, 10)]++;
  if (st.sends === 3 && t - st.lastSendUs >= SILENCE_US) d.threeThenSilence++;
  d.stale += st.pending;
  st.pending = 0;
  if (st.awaitUs >= 0) {
    if (t - st.awaitUs > ANSWER_WINDOW_US) d.unanswered++;
    st.awaitUs = -1;
  }
}

function finishDirection(d: Direction, end: number): void {
  // Samples up to and including the last whole step at or before the end.
  d.out3.finish(end);
  d.out9.finish(end);
  d.dead9.finish(end);
  for (const st of d.acks.values()) retireKey(d, st, end);
  d.acks.clear();
  for (const table of d.seqs) {
    for (const fm of table.fragmented.values()) closeFragmented(d, fm);
    table.fragmented.clear();
  }
}

function chooseRule(forced: AckRuleName | undefined, maxRun: number, unanswered: number, answered: number): AckRule {
  const base = { maxRun, unansweredDuplicates: unanswered, answeredDuplicates: answered };
  if (forced !== undefined) return { rule: forced, freeAt: forced === 'two-pass' ? 9 : 3, basis: 'forced', ...base };
  if (maxRun > 3) return { rule: 'two-pass', freeAt: 9, basis: 'runs', ...base };
  return { rule: 'single-pass', freeAt: 3, basis: 'no-evidence', ...base };
}

function seconds(us: number): number | null {
  return Number.isNaN(us) ? null : usToSeconds(us);
}

function directionFigures(d: Direction): DirectionFigures {
  const sendsPerKey: Record<string, number> = {};
  let keys = 0;
  let sends = 0;
  for (let i = 1; i <= 10; i++) {
    if (d.sendsPerKey[i] === 0) continue;
    sendsPerKey[i === 10 ? '10+' : String(i)] = d.sendsPerKey[i];
    keys += d.sendsPerKey[i];
  }
  sends = d.ackSends;
  return {
    from: d.from,
    datagrams: d.datagrams,
    bytes: d.bytes,
    messages: d.messages,
    messagesPerDatagram: { mean: d.datagrams === 0 ? null : d.messages / d.datagrams, max: d.messagesMax },
    ackBytesPerDatagram: { mean: d.datagrams === 0 ? null : d.ackBytes / d.datagrams, max: d.ackBytesMax, total: d.ackBytes },
    unreliable: d.unreliable,
    reliable: { low: { ...d.low }, high: { ...d.high } },
    fragments: {
      messages: d.fragMessages,
      transmissions: d.fragTransmissions,
      retransmissions: d.fragRetransmissions,
      messagesResent: d.fragMessagesResent,
      rounds: d.rounds,
      completeRounds: d.completeRounds,
      periodS: d.roundGaps.length === 0 ? null : usToSeconds(median(d.roundGaps)),
      firstRoundS: seconds(d.firstRoundUs),
      lastRoundS: seconds(d.lastRoundUs),
    },
    keepalives: { type00: d.type00, type02: d.type02 },
    disconnects: d.disconnects,
    boots: d.boots,
    deviations: { datagrams: d.deviations.datagrams, byCode: { ...d.deviations.byCode } },
    acks: {
      sent: d.ackSends,
      keys: d.ackKeys,
      sendsPerKey,
      meanSendsPerKey: keys === 0 ? null : sends / keys,
      threeThenSilence: d.threeThenSilence,
      stale: d.stale,
      repeatsWhileOutstanding: d.repeatsWhileOutstanding,
      late: d.late,
      forUnseenMessages: d.forUnseen,
      maxAgeS: seconds(d.maxAgeUs),
      maxRun: d.maxRun,
      untracked: d.untrackedAckSends,
    },
  };
}

function outboxEstimate(c: ConnectionState, d: Direction, rule: AckRule, end: number): OutboxEstimate {
  const chosen = rule.rule === 'two-pass' ? d.out9 : d.out3;
  const other = rule.rule === 'two-pass' ? d.out3 : d.out9;
  const twoPass = rule.rule === 'two-pass';
  const ref = c.ref;
  // The connection ends at its Disconnect or Boot; otherwise with the capture, less its last second,
  // in which an entry may have been created without its first ACK on the wire yet.
  const connectionEnd = Number.isNaN(c.endedUs) ? end - UNSEEN_TAIL_US : c.endedUs;
  // An end that falls silent for good (longer than two keepalive intervals, DECISIONS.md 12) has gone
  // away (its host died, it was removed): its outbox is not known past its last datagram.
  const until = connectionEnd - d.lastUs > GONE_SILENCE_US ? d.lastUs : connectionEnd;
  const deadSeries = twoPass ? d.dead9.series() : { ...d.dead9.series(), values: d.dead9.values.map(() => 0) };
  return {
    side: d.from,
    peak: chosen.peak,
    peakS: chosen.peak === 0 ? null : seconds(chosen.peakUs),
    final: chosen.current,
    deadZone: twoPass ? { peak: d.dead9.peak, final: d.dead9.current } : { peak: 0, final: 0 },
    defined: ref.startSeen && d.untrackedAckSends === 0 ? { fromS: usToSeconds(ref.firstUs), untilS: usToSeconds(until) } : null,
    samples: chosen.series(),
    deadZoneSamples: deadSeries,
    otherRule: { rule: twoPass ? 'single-pass' : 'two-pass', peak: other.peak, final: other.current },
  };
}

function connectionFigures(c: ConnectionState, rule: AckRule, end: number, lifetimeS: number): ConnectionAnalysis {
  const ref = c.ref;
  const criteria = measureSignature(c.signatureEvents, usToSeconds(end), lifetimeS);
  // Criterion 4 from the whole stream: the reduced events hold only the fragmented message and its ACKs.
  const signature: Signature = {
    ...criteria,
    nonFragmentsNotResentAfterAck: { pass: c.resentAfterAck === 0, measured: `${c.resentAfterAck} after ACK` },
  };
  return {
    index: ref.index,
    server: ref.server.label,
    client: ref.client.label,
    slot: ref.slot,
    startSeen: ref.startSeen,
    firstS: usToSeconds(ref.firstUs),
    lastS: usToSeconds(ref.lastUs),
    endedS: seconds(c.endedUs),
    clientToServer: directionFigures(c.dirs.client),
    serverToClient: directionFigures(c.dirs.server),
    ackOutbox: { server: outboxEstimate(c, c.dirs.server, rule, end), client: outboxEstimate(c, c.dirs.client, rule, end) },
    fragmentAck: {
      seq: c.signatureSeq,
      lifetimeS,
      criteria: signature,
      matches: Object.values(signature).every((x) => x.pass),
      eventsCapped: c.signatureCapped,
    },
  };
}

/** The direction label of a connection: `C>S` / `S>C` with one, `C2>S` (by slot) with more. */
export function directionLabel(connection: Pick<ConnectionAnalysis, 'index' | 'slot'>, from: Role, many: boolean): string {
  const client = !many ? 'C' : connection.slot === null ? `c${connection.index}` : `C${connection.slot}`;
  return from === 'client' ? `${client}>S` : `S>${client}`;
}

/** One datagram's deviations (DECISIONS.md 30): those named by its reader, and its ACK flag bits outside 0-1. */
function countEndDeviations(d: Direction, deviations: readonly Deviation[], ackFlagBits: number): void {
  countDeviations(d.deviations, deviations.filter((x) => x.code !== 'ack-flag-bits'));
  if (ackFlagBits === 0) return;
  if (!deviations.some((x) => x.code !== 'ack-flag-bits')) d.deviations.datagrams++;
  d.deviations.byCode['ack-flag-bits'] = (d.deviations.byCode['ack-flag-bits'] ?? 0) + ackFlagBits;
}
