// The analyzer's state per connection and per end (direction, named by its
// sender), and the bookkeeping that keeps it bounded: fragment re-send rounds,
// the sweep of idle ACK keys, what is summed up when a key is retired.
// analyze.ts feeds it datagram by datagram.
import { ACK_KEY_BYTES } from './analyze-budget.js';
import type { Budget } from '../../core/engine/index.js';
import { newDeviationCounts } from '../../core/codec/index.js';
import type { Role } from '../../model/transport/index.js';
import type { TraceEvent } from '../../model/trace/index.js';
import { AckEvidenceTally } from './ack-behaviour.js';
import type { AckBehaviourName, CategoryFigures, Removal } from './analysis-types.js';
import { PeriodEstimate, SAMPLE_STEP_US, SeqTable, StepSeries } from './analyze-tables.js';
import { LatencyHistogram } from './latency-histogram.js';
import type { FragmentedMessage } from './analyze-tables.js';
import type { CaptureConnection } from './bc-packets.js';
import { ChecksumAnswerLog } from './analyze-checksums.js';
import { KeepaliveEchoes, SinceServer } from './connection-end.js';
import { ExpiryQueue } from './expiry-queue.js';

/** Retransmissions closer than this belong to one round (reproduce/signature.ts). */
const ROUND_GAP_US = 1_000_000;
/** A re-sent message whose entry had its 3 sends is "answered" when its ACK follows within this. */
export const ANSWER_WINDOW_US = 1_500_000;
/** ACK keys idle this long and no longer held are summed up and forgotten. */
const FORGET_IDLE_US = 120_000_000;
/** "3 then silence": a key sent exactly 3 times and not again for at least this long. */
const SILENCE_US = 5_000_000;
/** Round-start gaps kept per direction for the median period. */
const MAX_GAPS = 100_000;
/** Idle fragmented messages are forgotten after this. */
const FORGET_FRAGMENTED_US = 300_000_000;

/** One ACK key as its sender puts it on the wire. */
export interface AckState {
  sends: number;
  firstSendUs: number;
  lastSendUs: number;
  run: number;
  /** Sends in the current entry under each rule; 0 = no entry held. */
  n3: number;
  n9: number;
  /** Latest transmission of the message: it refreshes the entry's timer (docs/sources.md 10). */
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

/** The first time a sender's reliable seq started again before the u16 wrap. */
export interface SeqRestart {
  readonly atUs: number;
  readonly category: 'low' | 'high';
  /** The latest seq before it, and the seq it went back to. */
  readonly fromSeq: number;
  readonly toSeq: number;
}

export class Direction {
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
  /** New reliable messages under a number far behind the latest: the count started again early. */
  seqRestarts = 0;
  firstSeqRestart: SeqRestart | null = null;
  disconnects = 0;
  boots = 0;
  /** Wire forms of real reimplementations this end sent (docs/sources.md 30). */
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
  /** How long this end took to ACK the other end's transmissions (latency-histogram.ts). */
  readonly ackLatency = new LatencyHistogram();
  /** What this end's wire shows against each ACK behaviour (ack-behaviour.ts). */
  readonly tally = new AckEvidenceTally();
  /** This end's latest datagram with room for one more ACK, and the latest of those that opened the pass-2 gate. */
  lastRoomyUs = Number.NEGATIVE_INFINITY;
  lastOpenUs = Number.NEGATIVE_INFINITY;
  /** This end's ACK sends of entries still held, looked at again GONE_AFTER_US later (expire()). */
  readonly sent: ExpiryQueue;
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
    /** Shared by every connection of the analyzer. */
    readonly budget: Budget,
  ) {
    this.sent = new ExpiryQueue(budget);
    this.out1 = new StepSeries(startIndex);
    this.out3 = new StepSeries(startIndex);
    this.out9 = new StepSeries(startIndex);
    this.dead9 = new StepSeries(startIndex);
  }

  seqRestarted(low: boolean, fromSeq: number, toSeq: number, atUs: number): void {
    this.seqRestarts++;
    this.firstSeqRestart ??= { atUs, category: low ? 'low' : 'high', fromSeq, toSeq };
  }
}

export class ConnectionState {
  readonly dirs: Record<Role, Direction>;
  endedUs = Number.NaN;
  /** A Disconnect or Boot was seen: the pass-2 gate is open whatever a datagram holds (ack-outbox-deadlock.md §1). */
  disconnecting = false;
  removal: Removal | null = null;
  readonly keepalives = new KeepaliveEchoes();
  readonly sinceServer = new SinceServer();
  /** The client's checksum answers, with their hashes. */
  readonly answers = new ChecksumAnswerLog();
  /** Reduced events for measureSignature: the client's first fragmented message and the server's ACKs of its seq. */
  readonly signatureEvents: TraceEvent[] = [];
  signatureSeq: number | null = null;
  signatureCapped = false;
  resentAfterAck = 0;

  constructor(
    readonly ref: CaptureConnection,
    /** Shared by every connection of the analyzer. */
    readonly budget: Budget,
  ) {
    const startIndex = Math.ceil(ref.firstUs / SAMPLE_STEP_US);
    this.dirs = {
      server: new Direction('server', startIndex, budget),
      client: new Direction('client', startIndex, budget),
    };
  }
}

export function advance(d: Direction, t: number): void {
  d.out1.advance(t);
  d.out3.advance(t);
  d.out9.advance(t);
  d.dead9.advance(t);
}

/** The estimate's series under a known behaviour. */
export function seriesOf(d: Direction, rule: Exclude<AckBehaviourName, 'unknown'>): StepSeries {
  return rule === 'two-pass' ? d.out9 : rule === 'single-pass' ? d.out3 : d.out1;
}

/** A re-sent fragment: a new round after a pause or when an index comes again (reproduce/signature.ts). */
export function resendRound(d: Direction, fm: FragmentedMessage, index: number, t: number): void {
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

export function closeFragmented(d: Direction, fm: FragmentedMessage): void {
  closeRound(fm);
  d.completeRounds += fm.completeRounds;
  fm.completeRounds = 0;
}

/** Sums up and forgets ACK keys no longer held and idle for a while (bounded memory on long captures). */
export function sweep(d: Direction, t: number): void {
  for (const [key, st] of d.acks) {
    if (st.n9 !== 0 || st.awaitUs >= 0 || t - st.lastSendUs < FORGET_IDLE_US) continue;
    retireKey(d, st, t);
    d.acks.delete(key);
    d.budget.give(ACK_KEY_BYTES);
  }
  for (const table of d.seqs) forgetFragmented(d, table, t, FORGET_FRAGMENTED_US);
}

/**
 * Closes and forgets fragmented messages idle for `idleUs`; with 0 (the table is full), the
 * oldest half. A message the sender still re-sends (every 2 s in stock) is never idle that long.
 */
export function forgetFragmented(d: Direction, table: SeqTable, t: number, idleUs: number): void {
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
export function retireKey(d: Direction, st: AckState, t: number, removalUs = Number.POSITIVE_INFINITY): void {
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
