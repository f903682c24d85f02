// The messages one end sends, as the analyzer reads them off the wire: per category,
// new messages, transmissions and re-sends (the same seq and fragment index again),
// fragment re-send rounds, keepalive echoes apart; and what a transmission does to
// the other end's ACK entry for it (refreshed, its repeats stale or not).
import {
  dataFragCountAt,
  dataFragIndexAt,
  dataSeqAt,
  flagsLenFragment,
  isLowType,
  packKeyOf,
  seqBefore,
  seqDistance,
} from '../../core/codec/index.js';
import { ANSWER_WINDOW_US, closeFragmented, forgetFragmented, resendRound } from './analyze-state.js';
import type { ConnectionState, Direction } from './analyze-state.js';
import { signatureFragment } from './analyze-signature.js';

/**
 * A seq behind the sender's latest, last sent longer ago than this, is a new message under an old
 * number, not a re-send: longer than the 45 s peer timeout (docs/sources.md 19), so no re-send of
 * a live message waits that long; far shorter than a u16 wrap (docs/sources.md 1).
 */
const SEQ_REUSE_GAP_US = 60_000_000;
/** A wrap reaches a number this close past the latest even when a few datagrams were not captured. */
const WRAP_SLACK = 32;

/** Fragmented messages tracked per end at once (idle ones are forgotten after a while, analyze-state.ts). */
const MAX_FRAGMENTED = 16_384;

/** A type-0x00 echo of the client's keepalive: not a message of the server's, so no re-send; the client's ACK entry is refreshed. */
export function echoSent(
  c: ConnectionState,
  d: Direction,
  ackSender: Direction,
  bytes: Uint8Array,
  pos: number,
  t: number,
): void {
  const seq = dataSeqAt(bytes, pos);
  if (c.keepalives.echoSeq(seq, t) || d.seqs[0].count(seq) > 0) d.echoSeqReused++;
  const st = ackSender.acks.get(packKeyOf(true, seq, false, 0));
  if (st !== undefined) st.refreshUs = t;
}

/** A reliable message at bytes[pos] (type and flags_len already read). */
export function reliableSent(
  c: ConnectionState,
  d: Direction,
  ackSender: Direction,
  bytes: Uint8Array,
  pos: number,
  type: number,
  flagsLen: number,
  t: number,
): void {
  const low = isLowType(type);
  const seq = dataSeqAt(bytes, pos);
  const fragment = flagsLenFragment(type, flagsLen);
  const fragIndex = fragment ? dataFragIndexAt(bytes, pos) : 0;
  const fragCount = fragment && fragIndex === 0 ? dataFragCountAt(bytes, pos) : -1;
  const table = d.seqs[low ? 0 : 1];
  const category = low ? d.low : d.high;
  let newMessage = false;
  const known = table.count(seq) > 0;
  const old = known && t - table.lastUs(seq) > SEQ_REUSE_GAP_US;
  const ahead = table.highest < 0 || seqBefore(table.highest, seq);
  // Behind the latest, and last sent long ago: the sender's count started again before 65,535
  // (a counter that wraps at 256 goes 255 -> 0). A new message, not a re-send.
  const restarted = !ahead && old;
  if (restarted) d.seqRestarted(low, table.highest, seq, t);
  // Ahead of the latest under a number sent recently and far from the latest: a re-send of a
  // message from before a restart (255 after 0 has come again), not a wrap.
  const resendAcrossRestart = ahead && known && !old && seqDistance(table.highest, seq) > WRAP_SLACK;
  if ((ahead && !resendAcrossRestart) || restarted) {
    table.highest = seq;
    if (table.count(seq) > 0) {
      // The seq wrapped (or restarted): a new message takes an old one's number.
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
      fm = {
        fragCount: null,
        frags: new Map(),
        rounds: 0,
        completeRounds: 0,
        roundStartUs: Number.NaN,
        lastResendUs: Number.NEGATIVE_INFINITY,
        roundIndices: new Set(),
        lastUs: t,
      };
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
    if (d.from === 'client') signatureFragment(c, bytes, pos, seq, fragCount, previous, t);
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
