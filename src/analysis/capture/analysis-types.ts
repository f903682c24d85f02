// What `bcsim analyze` reports (schema bcsim.analyze/2): the figures per
// connection and direction, the ACK-outbox estimate and the signature verdict.
// Plain data; analyze.ts computes it from datagrams.
import type { Role } from '../../model/transport/index.js';
import type { Signature } from '../reproduce/index.js';
import type { DeviationCounts } from '../../core/codec/index.js';
import type { ChecksumAnswerFigures } from './analyze-checksums.js';

/** An end's ACK behaviour (ack-behaviour.ts), or unknown when the wire does not tell. */
export type AckBehaviourName = 'two-pass' | 'single-pass' | 'immediate' | 'unknown';
/** The behaviours --ack-rule can force. */
export type AckRuleName = Exclude<AckBehaviourName, 'unknown'>;

export interface AnalyzerOptions {
  /** Lifetime (s) of an unACKed message, for criterion 3 of the signature; default 45. */
  readonly lifetimeS?: number;
  /** Force every end's ACK behaviour instead of reading it from the wire. */
  readonly ackRule?: AckRuleName;
  /** Estimated bytes the analysis may hold over all connections together (analyze-budget.ts); default 128 MiB. */
  readonly budgetBytes?: number;
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

interface FragmentFigures {
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

interface AckFigures {
  /** ACK messages sent. */
  sent: number;
  /** Distinct ACK keys (seq, low/high, fragment flag and index). */
  keys: number;
  /** Keys by how many times each was sent: "1".."9", "10+". */
  sendsPerKey: Record<string, number>;
  meanSendsPerKey: number | null;
  /** Keys sent exactly 3 times and then not for at least 5 s: pass 1's three sends, then silence. */
  threeThenSilence: number;
  /** Keys sent 3 times whose silence the server's removal of the client explains (not counted above). */
  silencedByRemoval: number;
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
  /**
   * Type 0x00 (the identity keepalive, docs/sources.md 12) and type 0x02 (the decompiled idle message, 18);
   * echoes: type-0x00 messages the server sent carrying the client's own keepalive payload (26), counted
   * here only, not as reliable messages or re-sends, and how many re-used a seq already on the wire.
   */
  keepalives: { type00: number; type02: number; echoes: number; echoSeqReused: number };
  /**
   * New reliable messages under a number far behind the sender's latest, last used over 60 s before:
   * its count started again before the u16 wrap (docs/sources.md 1), as a counter of 8 bits does at 256.
   * A receiver that keeps the stock 16-bit window takes them for duplicates.
   */
  seqRestarts: {
    count: number;
    first: { atS: number; category: 'low' | 'high'; fromSeq: number; toSeq: number } | null;
  };
  disconnects: number;
  boots: number;
  acks: AckFigures;
  /** Wire forms of real reimplementations this end sent (docs/sources.md 30): datagrams with a deviation, deviations by code. */
  deviations: DeviationCounts;
}

export interface OutboxSeries {
  /** Time of the first sample (s) and the step between samples. */
  startS: number;
  stepS: number;
  values: number[];
}

/** What the wire shows against each ACK behaviour (ack-behaviour.ts). */
export interface AckEvidence {
  /** ACK keys of messages the capture shows. */
  judgedKeys: number;
  /** Entries that reached a 4th send (pass 2 at work). */
  keysToPass2: number;
  /** Entries that stopped for good though a later datagram had room for them, by their send count then ("3": 90). */
  passedOver: Record<string, number>;
  /** Datagrams with a 4th-9th send of an entry: with something that opens the gate, and without. */
  pass2Datagrams: { gated: number; ungated: number };
  /** Pass-2 sends that waited more than 1.5 s with no gate-opening datagram. */
  gateShut: number;
  /** What the wire shows against each behaviour that a lost datagram cannot fake (ack-behaviour.ts). */
  violations: { twoPass: number; singlePass: number; immediate: number };
  /** Entries passed over for good while held under each behaviour: a lost datagram can fake a few. */
  skipped: { twoPass: number; singlePass: number };
  /**
   * Re-sent messages whose entry had had its 3 sends, unanswered and answered within 1.5 s: reported,
   * not used (a lost or cut-off re-send goes unanswered too).
   */
  unansweredDuplicates: number;
  answeredDuplicates: number;
}

export interface AckBehaviour {
  rule: AckBehaviourName;
  /** The send at which an entry is freed: 9, 3 or 1; null when unknown. */
  freeAt: number | null;
  /** forced by --ack-rule, inferred from the wire, or too thin to tell (unknown). */
  basis: 'forced' | 'inferred' | 'thin';
  /** The evidence in one line. */
  summary: string;
  evidence: AckEvidence;
}

export interface OutboxEstimate {
  /** The end whose ACK-outbox this is. */
  side: Role;
  /** The ACK behaviour this end shows; the figures follow it. */
  behaviour: AckBehaviour;
  /** Null when the behaviour is unknown: no estimate. */
  peak: number | null;
  peakS: number | null;
  final: number | null;
  /** Only a two-pass end has a dead zone (entries at 3 to 8 sends); null otherwise. */
  deadZone: { peak: number; final: number } | null;
  /** Where the estimate is defined (see analyze.ts); null when it is not (the capture missed the connection's start, or no estimate). */
  defined: { fromS: number; untilS: number } | null;
  samples: OutboxSeries | null;
  deadZoneSamples: OutboxSeries | null;
  /** Each behaviour's figures from the same keys, for reference: only the end's own behaviour is its estimate. */
  byRule: Record<AckRuleName, { peak: number; final: number }>;
}

/** The server's end of a client's connection (the ACK-outbox estimate of the server stops there). */
export interface Removal {
  atS: number;
  /** boot: a transport Boot naming the slot; boot-player: a game BootPlayer; disconnect: a server Disconnect; silence: inferred. */
  by: 'boot' | 'boot-player' | 'disconnect' | 'silence';
  inferred: boolean;
  /** "Boot, slot 2, reason 1", "BootPlayer, reason 4", or what the silence was. */
  detail: string;
}

interface SignatureVerdict {
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
  /** First Disconnect, Boot or BootPlayer of this connection. */
  endedS: number | null;
  /** The server removed the client: how the wire shows it, or null. */
  removal: Removal | null;
  clientToServer: DirectionFigures;
  serverToClient: DirectionFigures;
  ackOutbox: { server: OutboxEstimate; client: OutboxEstimate };
  fragmentAck: SignatureVerdict;
  /** The client's checksum answers (fragments put together) with their hashes; those past the first 16 counted. */
  checksumAnswers: { answers: ChecksumAnswerFigures[]; notKept: number };
}

export interface WireAnalysis {
  /** Relative time (s) of the end of the input. */
  endS: number;
  /** The behaviour --ack-rule forced on every end, or null: each end's is read from its wire. */
  ackRuleForced: AckRuleName | null;
  connections: ConnectionAnalysis[];
}
