// What one end's wire says about its ACK behaviour, datagram by datagram
// (ack-behaviour.ts has the hypotheses and the decision), the entries it has
// let go of although the estimate's bookkeeping still held them, the
// server's removal of a client (connection-end.ts), and each end's last
// judgement when the input ends.
import { ACK_KEY_BYTES } from './analyze-budget.js';
import { FRAGMENT_ACK_BYTES, MAX_DATAGRAM_BYTES, MAX_MESSAGES_PER_DATAGRAM } from '../../core/codec/index.js';
import { PASSED_OVER_US, SKIPPED_AT_MOST } from './ack-behaviour.js';
import type { AckEvidenceTally } from './ack-behaviour.js';
import type { AckEvidence, Removal } from './analysis-types.js';
import { closeFragmented, retireKey } from './analyze-state.js';
import type { AckState, ConnectionState, Direction } from './analyze-state.js';

/**
 * A held entry is taken as gone this long after its last send, when a datagram that would have
 * carried it went out in between: its due time (PASSED_OVER_US) and one ACK resend interval more
 * (docs/sources.md 9), in which a held entry whose one send was lost comes back. One that comes back
 * later still (two sends lost in a row) is put back then.
 */
const GONE_MARGIN_US = 700_000;
const GONE_AFTER_US = PASSED_OVER_US + GONE_MARGIN_US;

/** The first sign of the server removing the client is kept; later ones say nothing new. */
export function removed(c: ConnectionState, removal: Removal): void {
  c.removal ??= removal;
}

/**
 * One ACK send of a key whose message the capture shows, before its counts move on:
 * what it says against each ACK behaviour (ack-behaviour.ts).
 */
export function judge(x: Direction, st: AckState, yLast: number): void {
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
function passedOver(
  x: Direction,
  st: AckState,
  tally: Pick<AckEvidenceTally, 'skipped' | 'passedOverAt'> = x.tally,
): void {
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
export function evidenceNow(x: Direction): AckEvidence {
  const tally = { skipped: { ...x.tally.skipped }, passedOverAt: [...x.tally.passedOverAt] };
  for (const st of x.acks.values()) if (st.judged) passedOver(x, st, tally);
  return x.tally.evidence(tally);
}

/**
 * A datagram of `d` is read: `n` messages, `others` of them not ACKs, `openers` of those neither
 * keepalive type (0x00, 0x02), `end` bytes. Under two-pass, pass 2 runs only when pass 1 or the
 * data queues wrote something, or the peer is disconnecting (ack-outbox-deadlock.md §1): a pass-2
 * send with nothing else in the datagram is against it; with only a keepalive it says nothing (the
 * keepalive may be written after pass 2, docs/sources.md 18). Immediate entries leave with the datagram.
 */
export function datagramRead(
  c: ConnectionState,
  d: Direction,
  end: number,
  n: number,
  others: number,
  openers: number,
  t: number,
): void {
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

/** The input has ended at `end`: the series close, the held entries are judged and summed up, fragmented messages closed. */
export function finishDirection(d: Direction, end: number, removalUs: number): void {
  // Samples up to and including the last whole step at or before the end.
  d.out1.finish(end);
  d.out3.finish(end);
  d.out9.finish(end);
  d.dead9.finish(end);
  for (const st of d.acks.values()) {
    if (st.judged) passedOver(d, st);
    retireKey(d, st, end, removalUs);
  }
  d.budget.give(d.acks.size * ACK_KEY_BYTES);
  d.acks.clear();
  for (const table of d.seqs) {
    for (const fm of table.fragmented.values()) closeFragmented(d, fm);
    table.fragmented.clear();
  }
}
