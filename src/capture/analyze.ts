// The figures bcsim's model reports, measured from the wire alone.
// One WireAnalyzer takes datagrams in time order, from a capture
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
  ackFlagsOther,
  countDeviations,
} from '../codec/index.js';
import type { Deviation, Located } from '../codec/index.js';
import { Opcode } from '../traffic/index.js';
import type { SendEvent } from '../trace/index.js';
import { SendNote } from '../transport/index.js';
import type { Role } from '../transport/index.js';
import type { CaptureConnection } from './bc-packets.js';
import { datagramMessages } from './wire-walk.js';
import { GATE_WAIT_US, inferBehaviour } from './ack-behaviour.js';
import { silentRemoval } from './connection-end.js';
import { datagramRead, evidenceNow, judge, removed } from './analyze-ends.js';
import { ANSWER_WINDOW_US, ConnectionState, advance, closeFragmented, finishDirection, forgetFragmented, resendRound, seriesOf, sweep } from './analyze-state.js';
import type { Direction } from './analyze-state.js';
import { connectionFigures } from './analyze-figures.js';
import type { AckBehaviourName, AnalyzerOptions, WireAnalysis } from './analysis-types.js';
export type * from './analysis-types.js';
export { SAMPLE_STEP_US, MAX_SAMPLES } from './analyze-tables.js';
export { directionLabel } from './analyze-figures.js';

export const ANALYSIS_SCHEMA = 'bcsim.analyze/2';

/** One end's live figures (WireAnalyzer.live). */
interface LiveDirection {
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
/** An ACK sent this long after the last transmission of its message is late: past pass 1's three sends 0.667 s apart. */
const LATE_ACK_US = 2_500_000;
const SWEEP_EVERY_US = 120_000_000;
const CAP_SWEEP_EVERY_US = 1_000_000;
/** ACK keys tracked per end: far above any real outbox (the model stops at 131,072 entries), a bound on hostile input. */
export const MAX_ACK_KEYS = 262_144;
/** Fragmented messages tracked per end at once (idle ones are forgotten after a while, analyze-state.ts). */
const MAX_FRAGMENTED = 16_384;
/** Reduced events kept per connection for the signature. */
const MAX_SIGNATURE_EVENTS = 200_000;
/** Stock message lifetime for the signature's criterion 3 (messageLifetime peer-timeout). */
const DEFAULT_LIFETIME_S = 45;


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
    let others = 0; // messages other than ACKs
    let openers = 0; // of those, the ones that surely open the pass-2 gate
    let reliables = 0;
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
    if (ackFlagBits > 0 || deviations.length > 0) countEndDeviations(d, deviations, ackFlagBits);
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
   * line): read-only, unlike finish(), so input can go on after it.
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

const NO_DEVIATIONS: readonly Deviation[] = [];

/** One datagram's deviations (DECISIONS.md 30): those named by its reader, and its ACK flag bits outside 0-1. */
function countEndDeviations(d: Direction, deviations: readonly Deviation[], ackFlagBits: number): void {
  countDeviations(d.deviations, deviations.filter((x) => x.code !== 'ack-flag-bits'));
  if (ackFlagBits === 0) return;
  if (!deviations.some((x) => x.code !== 'ack-flag-bits')) d.deviations.datagrams++;
  d.deviations.byCode['ack-flag-bits'] = (d.deviations.byCode['ack-flag-bits'] ?? 0) + ackFlagBits;
}
