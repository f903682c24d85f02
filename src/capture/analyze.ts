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
// at its 3rd, an immediate ACK at its only send); a key sent again after that
// is a new entry. The estimate at a sample time t counts the entries born
// before t and not freed before t (a sample taken at an update's instant sees
// the state before it, as the simulator samples). F follows the behaviour each
// end shows on its own wire (ack-behaviour.ts: two-pass 9, single-pass 3,
// immediate 1); an end whose behaviour is unknown gets no estimate. Only a
// two-pass end has a dead zone (entries at 3 to 8 sends). The estimate of an
// end is defined from the connection's first datagram, when the capture holds
// the connection from its start (the client's first datagram has peer id
// 0xFF), until the connection's Disconnect, Boot or BootPlayer, or one second
// before the capture ends, or the end's own last datagram if it then stays
// silent for more than 10 s (it went away, or the server removed the client:
// connection-end.ts).
import { secondsToUsUnrounded, usToSeconds } from '../engine/index.js';
import {
  DATAGRAM_HEADER_BYTES,
  FRAGMENT_ACK_BYTES,
  MAX_DATAGRAM_BYTES,
  MAX_MESSAGES_PER_DATAGRAM,
  TYPE_ACK,
  TYPE_BOOT,
  TYPE_DATA,
  TYPE_CONNECT,
  TYPE_DISCONNECT,
  TYPE_GAME,
  ackBytesOfFlags,
  ackFlagsAt,
  ackFlagsFragment,
  ackFlagsLowType,
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
  readMessage,
  seqBefore,
} from '../codec/index.js';
import type { Located } from '../codec/index.js';
import { measureSignature, median } from '../reproduce/index.js';
import { Opcode } from '../traffic/index.js';
import type { Signature } from '../reproduce/index.js';
import type { SendEvent, TraceEvent } from '../trace/index.js';
import { SendNote } from '../transport/index.js';
import type { Role } from '../transport/index.js';
import type { CaptureConnection } from './bc-packets.js';
import { datagramMessages } from './wire-walk.js';
import { AckEvidenceTally, GATE_WAIT_US, PASSED_OVER_US, SKIPPED_AT_MOST, inferBehaviour } from './ack-behaviour.js';
import { KeepaliveEchoes, SinceServer, silentRemoval } from './connection-end.js';
import { PeriodEstimate, SAMPLE_STEP_US, SeqTable, StepSeries } from './analyze-tables.js';
import { ExpiryQueue } from './expiry-queue.js';
import type { FragmentedMessage } from './analyze-tables.js';
import type {
  AckBehaviour,
  AckBehaviourName,
  AckEvidence,
  AckRuleName,
  AnalyzerOptions,
  CategoryFigures,
  ConnectionAnalysis,
  DirectionFigures,
  OutboxEstimate,
  Removal,
  WireAnalysis,
} from './analysis-types.js';
export type * from './analysis-types.js';
export { SAMPLE_STEP_US, MAX_SAMPLES } from './analyze-tables.js';

export const ANALYSIS_SCHEMA = 'bcsim.analyze/2';

/** One end's live figures (WireAnalyzer.live). */
export interface LiveDirection {
  readonly datagrams: number;
  /** Re-sends of reliable messages (fragments included), low and high category. */
  readonly retransmissions: number;
  readonly fragmentRounds: number;
  readonly staleAcks: number;
  /** The behaviour the end's wire shows so far, and its ACK-outbox estimate under it (null when unknown). */
  readonly ackBehaviour: AckBehaviourName;
  readonly ackOutbox: number | null;
}

export interface LiveConnection {
  readonly index: number;
  readonly client: LiveDirection;
  readonly server: LiveDirection;
}

/** A birth is dated back at most this far (to the estimated creation of its entry). */
const MAX_BACKDATE_US = 1_000_000;
/** The end of a capture can hold entries created but not yet ACKed on the wire: the estimate stops this much before it. */
const UNSEEN_TAIL_US = 1_000_000;
/** Retransmissions closer than this belong to one round (reproduce/signature.ts). */
const ROUND_GAP_US = 1_000_000;
/** An ACK sent this long after the last transmission of its message is late: past pass 1's three sends 0.667 s apart. */
export const LATE_ACK_US = 2_500_000;
/** A re-sent message whose entry had its 3 sends is "answered" when its ACK follows within this. */
const ANSWER_WINDOW_US = 1_500_000;
/** ACK keys idle this long and no longer held are summed up and forgotten. */
const FORGET_IDLE_US = 120_000_000;
const SWEEP_EVERY_US = 120_000_000;
const CAP_SWEEP_EVERY_US = 1_000_000;
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
/**
 * A held entry is taken as gone this long after its last send, when a datagram that would have
 * carried it went out in between: its due time (PASSED_OVER_US) and one ACK resend interval more
 * (DECISIONS.md 9), in which a held entry whose one send was lost comes back. One that comes back
 * later still (two sends lost in a row) is put back then.
 */
const GONE_MARGIN_US = 700_000;
const GONE_AFTER_US = PASSED_OVER_US + GONE_MARGIN_US;
/** Stock message lifetime for the signature's criterion 3 (messageLifetime peer-timeout). */
export const DEFAULT_LIFETIME_S = 45;


// ---- bookkeeping --------------------------------------------------------

/** One ACK key as its sender puts it on the wire. */
interface AckState {
  sends: number;
  firstSendUs: number;
  lastSendUs: number;
  run: number;
  /** Sends in the current entry under each rule; 0 = no entry held. */
  n3: number;
  n9: number;
  /** Latest transmission of the message: it refreshes the entry's timer (DECISIONS.md 10). */
  refreshUs: number;
  /** Counted among the keys the behaviour is judged by (its message is on the wire). */
  judged: boolean;
  /** Taken out of the single-pass or two-pass series as gone (expire()); put back if the key comes back. */
  gone3: boolean;
  gone9: boolean;
  /** First ACK after the message's latest transmission. */
  answeredUs: number;
  /** Repeats since that answer, not yet known to be stale. */
  pending: number;
  /** A re-send of the message reached an entry past its 3 sends: waiting for an answer (-1: none). */
  awaitUs: number;
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
  echoes = 0;
  echoSeqReused = 0;
  disconnects = 0;
  boots = 0;
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
  silencedByRemoval = 0;
  stale = 0;
  repeatsWhileOutstanding = 0;
  late = 0;
  forUnseen = 0;
  maxAgeUs = Number.NaN;
  maxRun = 0;
  lastSweepUs = 0;
  /** The last sweep forced by the key cap: at most one a second, so a flood of new keys stays linear. */
  lastCapSweepUs = Number.NEGATIVE_INFINITY;
  /** Time of this end's last datagram. */
  lastUs = Number.NaN;
  readonly period = new PeriodEstimate();
  /** What this end's wire shows against each ACK behaviour (ack-behaviour.ts). */
  readonly tally = new AckEvidenceTally();
  /** This end's latest datagram with room for one more ACK, and the latest of those that opened the pass-2 gate. */
  lastRoomyUs = Number.NEGATIVE_INFINITY;
  lastOpenUs = Number.NEGATIVE_INFINITY;
  /** This end's ACK sends of entries still held, looked at again GONE_AFTER_US later (expire()). */
  readonly sent = new ExpiryQueue();
  /** The datagram being read: ACK sends in pass 1 and pass 2 (two-pass bookkeeping). */
  pass1Sends = 0;
  pass2Sends = 0;
  // This end's ACK-outbox under each rule, and the dead zone under the two-pass rule.
  readonly out1: StepSeries;
  readonly out3: StepSeries;
  readonly out9: StepSeries;
  readonly dead9: StepSeries;

  constructor(
    readonly from: Role,
    startIndex: number,
  ) {
    this.out1 = new StepSeries(startIndex);
    this.out3 = new StepSeries(startIndex);
    this.out9 = new StepSeries(startIndex);
    this.dead9 = new StepSeries(startIndex);
  }
}

class ConnectionState {
  readonly dirs: Record<Role, Direction>;
  endedUs = Number.NaN;
  /** A Disconnect or Boot was seen: the pass-2 gate is open whatever a datagram holds (ack-outbox-deadlock.md §1). */
  disconnecting = false;
  removal: Removal | null = null;
  readonly keepalives = new KeepaliveEchoes();
  readonly sinceServer = new SinceServer();
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
   */
  add(connection: CaptureConnection, from: Role, timeUs: number, length: number, bytes: Uint8Array, end: number = bytes.length): boolean {
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
    let others = 0; // messages other than ACKs
    let openers = 0; // of those, the ones that surely open the pass-2 gate
    let reliables = 0;
    let pos = DATAGRAM_HEADER_BYTES;
    for (let i = 0; i < n; i++) {
      const type = bytes[pos];
      if (type === TYPE_ACK) {
        const flags = ackFlagsAt(bytes, pos);
        const size = ackBytesOfFlags(flags);
        ackBytes += size;
        this.ackSent(c, d, other, bytes, pos, flags, timeUs);
        pos += size;
        continue;
      }
      others++;
      // A keepalive may travel outside the queues and then open no gate (DECISIONS.md 18, switch keepalive.path).
      if (type !== TYPE_DATA && type !== TYPE_CONNECT) openers++;
      const flagsLen = flagsLenAt(bytes, pos);
      const size = flagsLenSize(type, flagsLen);
      const reliable = flagsLenReliable(flagsLen);
      const payloadAt = pos + afterSeqOffset(reliable);
      let echo = false;
      if (type === TYPE_DATA) {
        // DECISIONS.md 26: the server echoes the client's keepalive; a copy of it is an echo, not a message of the server's.
        if (from === 'client') c.keepalives.clientKeepalive(bytes, payloadAt, pos + size);
        else echo = c.keepalives.isEcho(bytes, payloadAt, pos + size);
        if (echo) d.echoes++;
        else d.type00++;
      } else if (type === TYPE_CONNECT) d.type02++;
      else if (type === TYPE_DISCONNECT) {
        d.disconnects++;
        c.disconnecting = true;
        if (Number.isNaN(c.endedUs)) c.endedUs = timeUs;
        if (from === 'server') removed(c, { atS: usToSeconds(timeUs), by: 'disconnect', inferred: false, detail: 'a server Disconnect, type 0x05' });
      } else if (type === TYPE_BOOT) {
        d.boots++;
        c.disconnecting = true;
        if (payloadAt < pos + size) this.booted(connection, bytes[payloadAt], timeUs);
      } else if (type === TYPE_GAME && from === 'server' && !flagsLenFragment(type, flagsLen) && payloadAt < pos + size && bytes[payloadAt] === Opcode.BootPlayer) {
        // A game BootPlayer: the server tells the client it is removed.
        if (Number.isNaN(c.endedUs)) c.endedUs = timeUs;
        const reason = payloadAt + 1 < pos + size ? `, reason ${bytes[payloadAt + 1]}` : '';
        removed(c, { atS: usToSeconds(timeUs), by: 'boot-player', inferred: false, detail: `a game BootPlayer, type 0x32 opcode 0x04${reason}` });
      }
      if (reliable) {
        reliables++;
        if (echo) this.echoSent(c, d, other, bytes, pos, timeUs);
        else this.reliableSent(c, d, other, bytes, pos, type, flagsLen, timeUs);
      } else d.unreliable++;
      pos += size;
    }
    d.ackBytes += ackBytes;
    if (ackBytes > d.ackBytesMax) d.ackBytesMax = ackBytes;
    datagramRead(c, d, end, n, others, openers, timeUs);
    if (from === 'server') c.sinceServer.serverSent();
    else c.sinceServer.clientSent(timeUs, reliables);
    if (timeUs - d.lastSweepUs >= SWEEP_EVERY_US) {
      d.lastSweepUs = timeUs;
      sweep(d, timeUs);
    }
    return true;
  }

  /** A Boot names the slot of the peer the server removed: that connection (same server) has ended. */
  private booted(connection: CaptureConnection, slot: number, timeUs: number): void {
    for (const s of this.order) {
      if (s.ref.server !== connection.server || s.ref.slot !== slot) continue;
      if (Number.isNaN(s.endedUs)) s.endedUs = timeUs;
      removed(s, { atS: usToSeconds(timeUs), by: 'boot', inferred: false, detail: `a transport Boot, type 0x04, naming slot ${slot}` });
    }
  }

  /** A type-0x00 echo of the client's keepalive: not a message of the server's, so no re-send; the client's ACK entry is refreshed. */
  private echoSent(c: ConnectionState, d: Direction, ackSender: Direction, bytes: Uint8Array, pos: number, t: number): void {
    const seq = dataSeqAt(bytes, pos);
    if (c.keepalives.echoSeq(seq, t) || d.seqs[0].count(seq) > 0) d.echoSeqReused++;
    const st = ackSender.acks.get(packKeyOf(true, seq, false, 0));
    if (st !== undefined) st.refreshUs = t;
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
    st.refreshUs = t;
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
      if (st.awaitUs >= 0 && t - st.awaitUs > ANSWER_WINDOW_US) ackSender.tally.unansweredDuplicates++;
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
      if (t - x.lastCapSweepUs >= CAP_SWEEP_EVERY_US) {
        x.lastCapSweepUs = t;
        sweep(x, t);
      }
      if (x.acks.size >= MAX_ACK_KEYS) {
        // Past any real outbox: counted, not followed (the estimate is then not defined).
        x.ackSends++;
        x.untrackedAckSends++;
        return;
      }
    }
    if (st === undefined) {
      st = { sends: 0, firstSendUs: t, lastSendUs: Number.NEGATIVE_INFINITY, run: 0, n3: 0, n9: 0, refreshUs: Number.NEGATIVE_INFINITY, judged: false, gone3: false, gone9: false, answeredUs: Number.NEGATIVE_INFINITY, pending: 0, awaitUs: -1 };
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
      // The client's ACK of a keepalive echo (not in the server's tables: connection-end.ts).
      const echoUs = low && x.from === 'client' ? c.keepalives.seqLastUs.get(seq) : undefined;
      if (echoUs !== undefined && !(yLast >= echoUs)) yLast = echoUs;
    }
    if (!Number.isNaN(yLast)) judge(x, st, yLast);
    if (Number.isNaN(yLast)) {
      x.forUnseen++;
      st.run++;
    } else {
      st.run = yLast > st.lastSendUs ? 1 : st.run + 1;
      if (st.run === 4) x.tally.pass2Entries++;
      const age = t - yLast;
      if (!(age <= x.maxAgeUs)) x.maxAgeUs = age;
      if (age > LATE_ACK_US) x.late++;
      if (st.answeredUs >= yLast) st.pending++;
      else st.answeredUs = t;
    }
    if (st.run > x.maxRun) x.maxRun = st.run;
    if (st.awaitUs >= 0) {
      if (t - st.awaitUs <= ANSWER_WINDOW_US) x.tally.answeredDuplicates++;
      else x.tally.unansweredDuplicates++;
      st.awaitUs = -1;
    }
    // Entries under each rule: born with the first send of a key not held, freed at the F-th send.
    // The entry was created when its message was read, one update before that first send
    // (DECISIONS.md 16): its birth is dated back by the sender's update period, not before
    // the message was on the wire, nor more than 1 s.
    const period = x.period.periodUs;
    // Until the period is known, the message's own time on the wire stands in for the creation.
    let birth = Number.isNaN(period) ? (Number.isNaN(yLast) ? t : yLast) : t - period;
    if (!Number.isNaN(yLast) && yLast > birth) birth = yLast;
    if (birth > t) birth = t;
    if (birth < t - MAX_BACKDATE_US) birth = t - MAX_BACKDATE_US;
    // Immediate: every send is its own entry, freed when the datagram is out (births first, so a datagram's ACKs count together).
    x.out1.add(1, birth, t);
    // Two-pass: a send from an entry at 3 or more sends is pass 2 (ack-outbox-deadlock.md §1).
    if (st.n9 >= 3) {
      x.pass2Sends++;
      const due = Math.max(st.lastSendUs, st.refreshUs);
      if (t - due > GATE_WAIT_US && x.lastOpenUs <= st.lastSendUs) x.tally.gateShut++;
    } else x.pass1Sends++;
    // A key that comes back was held after all (its sends in between were lost before the capture point).
    if (st.gone3) {
      st.gone3 = false;
      if (st.n3 > 0) x.out3.add(1, t, t);
    }
    if (st.gone9) {
      st.gone9 = false;
      if (st.n9 > 0) x.out9.add(1, t, t);
      if (st.n9 >= 3) x.dead9.add(1, t, t);
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
    if (st.n3 > 0 || st.n9 > 0) x.sent.push(key, t);
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
   * estimate under the behaviour each end's wire shows so far.
   */
  live(): LiveConnection[] {
    const figures = (d: Direction): LiveDirection => {
      const rule = inferBehaviour(evidenceNow(d), this.options.ackRule).rule;
      return {
        datagrams: d.datagrams,
        retransmissions: d.low.retransmissions + d.high.retransmissions,
        fragmentRounds: d.rounds,
        staleAcks: d.stale,
        ackBehaviour: rule,
        ackOutbox: rule === 'unknown' ? null : seriesOf(d, rule).current,
      };
    };
    return this.order.map((c) => ({ index: c.ref.index, client: figures(c.dirs.client), server: figures(c.dirs.server) }));
  }

  /** The figures, once every datagram is in; `endUs` is the end of the input (relative). */
  finish(endUs: number = this.lastUs): WireAnalysis {
    const end = Math.max(endUs, this.lastUs);
    for (const c of this.order) {
      const client = c.dirs.client;
      c.removal ??= silentRemoval(c.dirs.server.lastUs, client.lastUs, c.sinceServer, c.endedUs);
      const removalUs = c.removal === null ? Number.POSITIVE_INFINITY : secondsToUsUnrounded(c.removal.atS);
      for (const d of [client, c.dirs.server]) finishDirection(d, end, removalUs);
    }
    const lifetimeS = this.options.lifetimeS ?? DEFAULT_LIFETIME_S;
    const forced = this.options.ackRule ?? null;
    return {
      endS: usToSeconds(end),
      ackRuleForced: forced,
      connections: this.order.map((c) => connectionFigures(c, end, lifetimeS, forced ?? undefined)),
    };
  }
}

function advance(d: Direction, t: number): void {
  d.out1.advance(t);
  d.out3.advance(t);
  d.out9.advance(t);
  d.dead9.advance(t);
}

/** The estimate's series under a known behaviour. */
function seriesOf(d: Direction, rule: Exclude<AckBehaviourName, 'unknown'>): StepSeries {
  return rule === 'two-pass' ? d.out9 : rule === 'single-pass' ? d.out3 : d.out1;
}

/** The first sign of the server removing the client is kept; later ones say nothing new. */
function removed(c: ConnectionState, removal: Removal): void {
  c.removal ??= removal;
}

/**
 * One ACK send of a key whose message the capture shows, before its counts move on:
 * what it says against each ACK behaviour (ack-behaviour.ts).
 */
function judge(x: Direction, st: AckState, yLast: number): void {
  const v = x.tally.violations;
  if (!st.judged) {
    st.judged = true;
    x.tally.judgedKeys++;
  }
  if (st.sends === 0) return;
  if (!(yLast > st.lastSendUs)) {
    // Sent again with no transmission of its message since the previous send.
    if (st.run === 1) v.immediate++;
    if (st.n3 === 0) v.singlePass++; // after the 3rd send freed it
    if (st.n9 === 0) v.twoPass++; // after the 9th
  }
}

/**
 * A held entry that a datagram with room went out without, 1 s after it was due, and that did not
 * come back (ack-behaviour.ts): counted when the input ends, into `tally` (the end's own, or a copy
 * for live()). A key that comes back was held all along; a datagram lost before the capture point
 * only delayed it.
 */
function passedOver(x: Direction, st: AckState, tally: Pick<AckEvidenceTally, 'skipped' | 'passedOverAt'> = x.tally): void {
  const due = Math.max(st.lastSendUs, st.refreshUs) + PASSED_OVER_US;
  // Against a hypothesis only with at most half its sends seen (ack-behaviour.ts SKIPPED_AT_MOST).
  if (st.n3 > 0 && st.n3 <= SKIPPED_AT_MOST['single-pass'] && x.lastRoomyUs >= due) tally.skipped.singlePass++;
  // Two-pass: pass 1 (1-2 sends) goes in any datagram; pass 2 (3-8) only in one that opened the gate.
  if (st.n9 > 0 && (st.n9 < 3 ? x.lastRoomyUs : x.lastOpenUs) >= due) {
    if (st.n9 <= SKIPPED_AT_MOST['two-pass']) tally.skipped.twoPass++;
    tally.passedOverAt[st.n9]++;
  }
}

/** The evidence so far, the held entries passed over until now included: read-only, for live(). */
function evidenceNow(x: Direction): AckEvidence {
  const tally = { skipped: { ...x.tally.skipped }, passedOverAt: [...x.tally.passedOverAt] };
  for (const st of x.acks.values()) if (st.judged) passedOver(x, st, tally);
  return x.tally.evidence(tally);
}

/**
 * A datagram of `d` is read: `n` messages, `others` of them not ACKs, `openers` of those neither
 * keepalive type (0x00, 0x02), `end` bytes. Under two-pass, pass 2 runs only when pass 1 or the
 * data queues wrote something, or the peer is disconnecting (ack-outbox-deadlock.md §1): a pass-2
 * send with nothing else in the datagram is against it; with only a keepalive it says nothing (the
 * keepalive may be written after pass 2, DECISIONS.md 18). Immediate entries leave with the datagram.
 */
function datagramRead(c: ConnectionState, d: Direction, end: number, n: number, others: number, openers: number, t: number): void {
  const opened = openers > 0 || d.pass1Sends > 0 || c.disconnecting;
  if (d.pass2Sends > 0) {
    if (opened) d.tally.gatedDatagrams++;
    else if (others === 0) {
      d.tally.ungatedDatagrams++;
      d.tally.violations.twoPass++;
    }
  }
  if (end + FRAGMENT_ACK_BYTES <= MAX_DATAGRAM_BYTES && n < MAX_MESSAGES_PER_DATAGRAM) {
    d.lastRoomyUs = t;
    if (opened) d.lastOpenUs = t;
  }
  const sends = d.pass1Sends + d.pass2Sends;
  if (sends > 0) d.out1.add(-sends, t, t);
  d.pass1Sends = 0;
  d.pass2Sends = 0;
  d.sent.drain(t, GONE_AFTER_US, (key, sendUs) => {
    const st = d.acks.get(key);
    if (st !== undefined && st.lastSendUs === sendUs) expire(d, st, t);
  });
}

/**
 * An entry held in a series, not sent again since `GONE_AFTER_US` ago although a datagram that
 * would have carried it went out after it was due: gone from the sender's outbox (a send lost
 * before the capture point left its count short). It leaves the series now, and comes back with
 * its key (ackSent).
 */
function expire(x: Direction, st: AckState, t: number): void {
  const due = Math.max(st.lastSendUs, st.refreshUs) + PASSED_OVER_US;
  if (t < due + GONE_MARGIN_US) return;
  if (st.n3 > 0 && !st.gone3 && x.lastRoomyUs >= due) {
    st.gone3 = true;
    x.out3.add(-1, t, t);
  }
  if (st.n9 > 0 && !st.gone9 && (st.n9 < 3 ? x.lastRoomyUs : x.lastOpenUs) >= due) {
    st.gone9 = true;
    x.out9.add(-1, t, t);
    if (st.n9 >= 3) x.dead9.add(-1, t, t);
  }
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

/** Sums up a key; `removalUs`: when the server removed the client (+∞: it did not). */
function retireKey(d: Direction, st: AckState, t: number, removalUs = Number.POSITIVE_INFINITY): void {
  d.sendsPerKey[Math.min(st.sends, 10)]++;
  if (st.sends === 3 && t - st.lastSendUs >= SILENCE_US) {
    // A silence that does not fit before the removal is the removal's.
    if (st.lastSendUs + SILENCE_US > removalUs) d.silencedByRemoval++;
    else d.threeThenSilence++;
  }
  d.stale += st.pending;
  st.pending = 0;
  if (st.awaitUs >= 0) {
    if (t - st.awaitUs > ANSWER_WINDOW_US) d.tally.unansweredDuplicates++;
    st.awaitUs = -1;
  }
}

function finishDirection(d: Direction, end: number, removalUs: number): void {
  // Samples up to and including the last whole step at or before the end.
  d.out1.finish(end);
  d.out3.finish(end);
  d.out9.finish(end);
  d.dead9.finish(end);
  for (const st of d.acks.values()) {
    if (st.judged) passedOver(d, st);
    retireKey(d, st, end, removalUs);
  }
  d.acks.clear();
  for (const table of d.seqs) {
    for (const fm of table.fragmented.values()) closeFragmented(d, fm);
    table.fragmented.clear();
  }
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
    keepalives: { type00: d.type00, type02: d.type02, echoes: d.echoes, echoSeqReused: d.echoSeqReused },
    disconnects: d.disconnects,
    boots: d.boots,
    acks: {
      sent: d.ackSends,
      keys: d.ackKeys,
      sendsPerKey,
      meanSendsPerKey: keys === 0 ? null : sends / keys,
      threeThenSilence: d.threeThenSilence,
      silencedByRemoval: d.silencedByRemoval,
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

function outboxEstimate(c: ConnectionState, d: Direction, behaviour: AckBehaviour, end: number): OutboxEstimate {
  const byRule = {
    'two-pass': { peak: d.out9.peak, final: d.out9.current },
    'single-pass': { peak: d.out3.peak, final: d.out3.current },
    immediate: { peak: d.out1.peak, final: d.out1.current },
  };
  const base = { side: d.from, behaviour, byRule };
  // No behaviour, no estimate: not a stock guess.
  if (behaviour.rule === 'unknown') return { ...base, peak: null, peakS: null, final: null, deadZone: null, defined: null, samples: null, deadZoneSamples: null };
  const chosen = seriesOf(d, behaviour.rule);
  const twoPass = behaviour.rule === 'two-pass';
  const ref = c.ref;
  // The connection ends at its Disconnect, Boot or BootPlayer; otherwise with the capture, less its last second,
  // in which an entry may have been created without its first ACK on the wire yet.
  const connectionEnd = Number.isNaN(c.endedUs) ? end - UNSEEN_TAIL_US : c.endedUs;
  // An end that falls silent for good (longer than two keepalive intervals, DECISIONS.md 12) has gone
  // away (its host died, it removed the client): its outbox is not known past its last datagram.
  const until = connectionEnd - d.lastUs > GONE_SILENCE_US ? d.lastUs : connectionEnd;
  return {
    ...base,
    peak: chosen.peak,
    peakS: chosen.peak === 0 ? null : seconds(chosen.peakUs),
    final: chosen.current,
    deadZone: twoPass ? { peak: d.dead9.peak, final: d.dead9.current } : null,
    defined: ref.startSeen && d.untrackedAckSends === 0 ? { fromS: usToSeconds(ref.firstUs), untilS: usToSeconds(until) } : null,
    samples: chosen.series(),
    deadZoneSamples: twoPass ? d.dead9.series() : null,
  };
}

function connectionFigures(c: ConnectionState, end: number, lifetimeS: number, forced: AckRuleName | undefined): ConnectionAnalysis {
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
    removal: c.removal,
    clientToServer: directionFigures(c.dirs.client),
    serverToClient: directionFigures(c.dirs.server),
    ackOutbox: {
      server: outboxEstimate(c, c.dirs.server, inferBehaviour(c.dirs.server.tally.evidence(), forced), end),
      client: outboxEstimate(c, c.dirs.client, inferBehaviour(c.dirs.client.tally.evidence(), forced), end),
    },
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
