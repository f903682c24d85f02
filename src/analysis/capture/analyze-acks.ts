// The ACKs one end sends, as the analyzer reads them off the wire: per ACK key, its
// sends and runs, stale and late ACKs, the evidence against each ACK behaviour, and
// the end's ACK-outbox estimate under each rule (analyze.ts has the definition).
import { ACK_KEY_BYTES } from './analyze-budget.js';
import { ackFlagsFragment, ackFlagsLowType, ackFragIndexAt, ackSeqAt, packKeyOf } from '../../core/codec/index.js';
import { GATE_WAIT_US } from './ack-behaviour.js';
import { judge } from './analyze-ends.js';
import { ANSWER_WINDOW_US, sweep } from './analyze-state.js';
import type { ConnectionState, Direction } from './analyze-state.js';
import { signatureAck } from './analyze-signature.js';

/** A birth is dated back at most this far (to the estimated creation of its entry). */
const MAX_BACKDATE_US = 1_000_000;
/** An ACK sent this long after the last transmission of its message is late: past pass 1's three sends 0.667 s apart. */
const LATE_ACK_US = 2_500_000;
/** With MAX_ACK_KEYS held, idle keys are swept at most this often. */
const CAP_SWEEP_EVERY_US = 1_000_000;
/** ACK keys tracked per end: far above any real outbox (the model stops at 131,072 entries), a bound on hostile input. */
export const MAX_ACK_KEYS = 262_144;

/** An ACK at bytes[pos] with its flags byte. */
export function ackSent(
  c: ConnectionState,
  x: Direction,
  y: Direction,
  bytes: Uint8Array,
  pos: number,
  flags: number,
  t: number,
): void {
  const seq = ackSeqAt(bytes, pos);
  const low = ackFlagsLowType(flags);
  const fragment = ackFlagsFragment(flags);
  const index = fragment ? ackFragIndexAt(bytes, pos) : 0;
  const key = packKeyOf(low, seq, fragment, index);
  let st = x.acks.get(key);
  if (st === undefined) {
    const full = x.acks.size >= MAX_ACK_KEYS || !x.budget.fits(ACK_KEY_BYTES);
    if (full && t - x.lastCapSweepUs >= CAP_SWEEP_EVERY_US) {
      x.lastCapSweepUs = t;
      sweep(x, t);
    }
    // Past any real outbox, or past the memory of every connection together: counted, not
    // followed (the estimate is then not defined).
    if (x.acks.size >= MAX_ACK_KEYS || !x.budget.take(ACK_KEY_BYTES)) {
      x.ackSends++;
      x.untrackedAckSends++;
      return;
    }
  }
  if (st === undefined) {
    st = {
      sends: 0,
      firstSendUs: t,
      lastSendUs: Number.NEGATIVE_INFINITY,
      run: 0,
      n3: 0,
      n9: 0,
      refreshUs: Number.NEGATIVE_INFINITY,
      judged: false,
      gone3: false,
      gone9: false,
      answeredUs: Number.NEGATIVE_INFINITY,
      pending: 0,
      awaitUs: -1,
    };
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
    else {
      // The first ACK that answers this transmission.
      st.answeredUs = t;
      x.ackLatency.addUs(age);
    }
  }
  if (st.run > x.maxRun) x.maxRun = st.run;
  if (st.awaitUs >= 0) {
    if (t - st.awaitUs <= ANSWER_WINDOW_US) x.tally.answeredDuplicates++;
    else x.tally.unansweredDuplicates++;
    st.awaitUs = -1;
  }
  // Entries under each rule: born with the first send of a key not held, freed at the F-th send.
  // The entry was created when its message was read, one update before that first send
  // (docs/sources.md 16): its birth is dated back by the sender's update period, not before
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
  if (x.from === 'server' && c.signatureSeq !== null && seq === c.signatureSeq && !low) signatureAck(c, bytes, pos, t);
}
