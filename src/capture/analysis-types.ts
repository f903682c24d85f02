// What `bcsim analyze` reports (schema bcsim.analyze/1): the figures per
// connection and direction, the ACK-outbox estimate and the signature verdict.
// Plain data; analyze.ts computes it from datagrams.
import type { Role } from '../transport/index.js';
import type { Signature } from '../reproduce/index.js';
import type { DeviationCounts } from '../codec/index.js';

export type AckRuleName = 'two-pass' | 'single-pass';

export interface AnalyzerOptions {
  /** Lifetime (s) of an unACKed message, for criterion 3 of the signature; default 45. */
  readonly lifetimeS?: number;
  /** Force the outbox rule instead of reading it from the wire. */
  readonly ackRule?: AckRuleName;
}

// ---- result shapes (the JSON of `bcsim analyze --json`) -------------------

export interface CategoryFigures {
  /** Distinct reliable messages (a fragmented one counts once). */
  messages: number;
  /** Reliable messages and fragments put on the wire. */
  transmissions: number;
  /** Transmissions of a (seq, fragment index) already seen from this sender. */
  retransmissions: number;
}

export interface FragmentFigures {
  /** Fragmented reliable messages. */
  messages: number;
  transmissions: number;
  retransmissions: number;
  /** Fragmented messages re-sent at least once. */
  messagesResent: number;
  /** Retransmit rounds: re-sends of one message closer than 1 s, no index twice. */
  rounds: number;
  /** Rounds that re-sent every fragment of the message. */
  completeRounds: number;
  /** Median time between the starts of consecutive rounds of one message. */
  periodS: number | null;
  firstRoundS: number | null;
  lastRoundS: number | null;
}

export interface AckFigures {
  /** ACK messages sent. */
  sent: number;
  /** Distinct ACK keys (seq, low/high, fragment flag and index). */
  keys: number;
  /** Keys by how many times each was sent: "1".."9", "10+". */
  sendsPerKey: Record<string, number>;
  meanSendsPerKey: number | null;
  /** Keys sent exactly 3 times and then not for at least 5 s: pass 1's three sends, then silence. */
  threeThenSilence: number;
  /** Repeated ACKs of a transmission its sender never re-sent afterwards: it no longer had the message outstanding. */
  stale: number;
  /** Repeated ACKs of a transmission that its sender did re-send later (it still had it outstanding). */
  repeatsWhileOutstanding: number;
  /** ACKs sent more than 2.5 s after the last transmission of their message. */
  late: number;
  /** ACKs of messages the capture never shows. */
  forUnseenMessages: number;
  /** Longest time from a message's last transmission to an ACK of it. */
  maxAgeS: number | null;
  /** Most sends of one key with no re-send of its message in between. */
  maxRun: number;
  /** ACK sends not followed because the end already held 262,144 keys (hostile input); the estimate is then not defined. */
  untracked: number;
}

export interface DirectionFigures {
  /** The sender: 'client' for C>S, 'server' for S>C. */
  from: Role;
  datagrams: number;
  bytes: number;
  messages: number;
  messagesPerDatagram: { mean: number | null; max: number };
  ackBytesPerDatagram: { mean: number | null; max: number; total: number };
  unreliable: number;
  reliable: { low: CategoryFigures; high: CategoryFigures };
  fragments: FragmentFigures;
  /** Type 0x00 (the identity keepalive, DECISIONS.md 12) and type 0x02 (the decompiled idle message, 18). */
  keepalives: { type00: number; type02: number };
  disconnects: number;
  boots: number;
  acks: AckFigures;
  /** Wire forms of real reimplementations this end sent (DECISIONS.md 30): datagrams with a deviation, deviations by code. */
  deviations: DeviationCounts;
}

export interface OutboxSeries {
  /** Time of the first sample (s) and the step between samples. */
  startS: number;
  stepS: number;
  values: number[];
}

export interface OutboxEstimate {
  /** The end whose ACK-outbox this is. */
  side: Role;
  peak: number;
  peakS: number | null;
  final: number;
  deadZone: { peak: number; final: number };
  /** Where the estimate is defined (see the header comment); null when it is not (the capture missed the connection's start). */
  defined: { fromS: number; untilS: number } | null;
  samples: OutboxSeries;
  deadZoneSamples: OutboxSeries;
  /** The other rule's figures, for reference. */
  otherRule: { rule: AckRuleName; peak: number; final: number };
}

export interface SignatureVerdict {
  /** The client's first fragmented message (its seq), or null. */
  seq: number | null;
  lifetimeS: number;
  criteria: Signature;
  matches: boolean;
  /** More than 200,000 re-sends and ACKs of that message: the verdict rests on the first 200,000. */
  eventsCapped: boolean;
}

export interface ConnectionAnalysis {
  index: number;
  server: string;
  client: string;
  slot: number | null;
  startSeen: boolean;
  firstS: number;
  lastS: number;
  /** First Disconnect or Boot of this connection. */
  endedS: number | null;
  clientToServer: DirectionFigures;
  serverToClient: DirectionFigures;
  ackOutbox: { server: OutboxEstimate; client: OutboxEstimate };
  fragmentAck: SignatureVerdict;
}

export interface AckRule {
  rule: AckRuleName;
  /** The send at which an entry is freed: 9 (two-pass) or 3 (single-pass). */
  freeAt: number;
  /** How it was chosen: forced, a run of more than 3 sends, or no such evidence. */
  basis: 'forced' | 'runs' | 'no-evidence';
  maxRun: number;
  /**
   * Re-sent messages whose entry had had its 3 sends, unanswered and answered within 1.5 s: reported,
   * not used (a lost or cut-off re-send goes unanswered too).
   */
  unansweredDuplicates: number;
  answeredDuplicates: number;
}

export interface WireAnalysis {
  /** Relative time (s) of the end of the input. */
  endS: number;
  ackRule: AckRule;
  connections: ConnectionAnalysis[];
}
