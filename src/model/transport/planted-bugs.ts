// The test-only planted bugs (switch plantedBug), kept beside the transport rather than in
// it: the swarm and `bcsim conform` must catch each. The transport exposes a few hook
// points (PlantedFaults); a peer resolves its bug's hooks once, when it is built, and a
// peer without a planted bug holds the shared NO_PLANTED_FAULTS. Bugs that live on the
// wire of `bcsim peer server` set their hooks in src/live/peer/planted-wire.ts.
// The table below is also the list of the switch's values (switch-declarations.ts
// reads it), so a new bug is one row here plus its hook site.
import type { MillisIn } from '../../core/engine/index.js';

/** slow-retransmit re-sends at this multiple of the interval. */
const SLOW_RETRANSMIT_FACTOR = 4;
/** reads-32-messages reads this many messages of a datagram. */
const PLANTED_MESSAGES_READ = 32;
/** retransmit-queue-16 keeps this many messages for re-sending. */
const PLANTED_RETRANSMIT_SLOTS = 16;

/** The transport's hook points for planted bugs: plain fields, read as the transport runs (no call). */
export interface PlantedFaults {
  /** Receive channels join fragments in arrival order, duplicates included. */
  readonly reassemblyByArrivalOrder: boolean;
  /** A reliable message seen before gets no ACK. */
  readonly skipDuplicateAck: boolean;
  /** A duplicate (not a fragment) is handed to the game again. */
  readonly redeliverDuplicates: boolean;
  /** An ACK that clears nothing in its category is tried in the other. */
  readonly ackAnyCategory: boolean;
  /** An ACK that clears nothing clears the oldest retransmit entry. */
  readonly staleAckClearsOldest: boolean;
  /** Fragments are ACKed with index 0. */
  readonly ackFragmentsAsZero: boolean;
  /** ACK entries keep only the low byte of the seq. */
  readonly ackSeqLowByte: boolean;
  /** A Disconnect is neither ACKed nor delivered. */
  readonly ignoreDisconnect: boolean;
  /** Messages read per datagram (Infinity: all). */
  readonly messagesRead: number;
  /** The retransmit policy's base interval is multiplied by this (1: as the switches say). */
  readonly retransmitFactor: number;
  /** A fragment is sent once and never kept for re-sending. */
  readonly fragmentsSentOnce: boolean;
  /** Messages the retransmit queue keeps; one sent past it is never re-sent (Infinity: no such limit). */
  readonly retransmitSlots: number;
  /** A kicked or timed-out peer is closed with no Boot, to it or to the others. */
  readonly removeWithoutBoot: boolean;
  /** The server never echoes a keepalive. */
  readonly skipKeepaliveEcho: boolean;
  /** A reliable message ahead of the expected seq is handed on as it arrives, not held for seq order. */
  readonly deliverOnArrival: boolean;
}

/** Every field in one order, so every resolved object has one shape (the hot path stays monomorphic). */
function faults(set: Partial<PlantedFaults>): PlantedFaults {
  return Object.freeze({
    reassemblyByArrivalOrder: set.reassemblyByArrivalOrder ?? false,
    skipDuplicateAck: set.skipDuplicateAck ?? false,
    redeliverDuplicates: set.redeliverDuplicates ?? false,
    ackAnyCategory: set.ackAnyCategory ?? false,
    staleAckClearsOldest: set.staleAckClearsOldest ?? false,
    ackFragmentsAsZero: set.ackFragmentsAsZero ?? false,
    ackSeqLowByte: set.ackSeqLowByte ?? false,
    ignoreDisconnect: set.ignoreDisconnect ?? false,
    messagesRead: set.messagesRead ?? Number.POSITIVE_INFINITY,
    retransmitFactor: set.retransmitFactor ?? 1,
    fragmentsSentOnce: set.fragmentsSentOnce ?? false,
    retransmitSlots: set.retransmitSlots ?? Number.POSITIVE_INFINITY,
    removeWithoutBoot: set.removeWithoutBoot ?? false,
    skipKeepaliveEcho: set.skipKeepaliveEcho ?? false,
    deliverOnArrival: set.deliverOnArrival ?? false,
  });
}

/** The hooks of a transport with no planted bug: shared by every such peer, never written. */
export const NO_PLANTED_FAULTS: PlantedFaults = faults({});

export interface PlantedBugRow {
  /** What a server with this bug does, in one line. */
  readonly meaning: string;
  /** The transport hooks it sets; empty for a bug that lives only on the live wire. */
  readonly sets: Partial<PlantedFaults>;
  /** Set by `bcsim peer server` on the wire (src/live/peer/planted-wire.ts), not by the model. */
  readonly live?: true;
}

/** Each planted bug: one per kind of fault a real server was seen with, or that a conformance case claims to find. */
const TABLE = {
  none: { meaning: 'no planted bug', sets: {} },
  'no-duplicate-ack': { meaning: 'a reliable message seen before gets no ACK', sets: { skipDuplicateAck: true } },
  'no-duplicate-detection': { meaning: 'a re-sent message is delivered again', sets: { redeliverDuplicates: true } },
  'reassembly-by-arrival-order': {
    meaning: 'fragments are joined in the order they came, duplicates included',
    sets: { reassemblyByArrivalOrder: true },
  },
  'ack-ignores-category': {
    meaning: "an ACK clears the other category's entry when its own has none",
    sets: { ackAnyCategory: true },
  },
  'slow-retransmit': {
    meaning: `unACKed messages are re-sent at ${SLOW_RETRANSMIT_FACTOR}x the interval`,
    sets: { retransmitFactor: SLOW_RETRANSMIT_FACTOR },
  },
  'fragment-ack-index-zero': { meaning: 'every fragment is ACKed as fragment 0', sets: { ackFragmentsAsZero: true } },
  'stale-ack-clears-oldest': {
    meaning: 'an ACK that matches nothing clears the oldest entry',
    sets: { staleAckClearsOldest: true },
  },
  'ack-seq-low-byte': {
    meaning: 'ACKs carry only the low byte of the seq (a big-endian "seqHi" reading, docs/sources.md 30)',
    sets: { ackSeqLowByte: true },
  },
  'reads-32-messages': {
    meaning: `only the first ${PLANTED_MESSAGES_READ} messages of a datagram are read`,
    sets: { messagesRead: PLANTED_MESSAGES_READ },
  },
  'remove-without-boot': {
    meaning: 'a removed peer gets no Boot and its queued ACKs are not flushed',
    sets: { removeWithoutBoot: true },
  },
  'disconnect-ignored': { meaning: 'a Disconnect is neither ACKed nor acted on', sets: { ignoreDisconnect: true } },
  'stall-on-oversize': {
    meaning: 'after a datagram over 512 bytes, nothing more from that address is read',
    sets: {},
    live: true,
  },
  'no-keepalive-echo': { meaning: 'the server never echoes a keepalive', sets: { skipKeepaliveEcho: true } },
  'own-seq-low-byte': {
    meaning: 'the server writes only the low byte of its own seqs, the high byte 0',
    sets: {},
    live: true,
  },
  'fragment-sent-once': { meaning: 'a fragment is sent once and never re-sent', sets: { fragmentsSentOnce: true } },
  'fragment-ack-ends-datagram': {
    meaning: 'nothing after a fragment ACK in a datagram is read',
    sets: {},
    live: true,
  },
  'retransmit-queue-16': {
    meaning: `the retransmit queue holds ${PLANTED_RETRANSMIT_SLOTS} messages; one sent while it is full is never re-sent`,
    sets: { retransmitSlots: PLANTED_RETRANSMIT_SLOTS },
  },
  'delivers-on-arrival': {
    meaning: 'a reliable message that arrives ahead of its turn is handed on at once, not in seq order',
    sets: { deliverOnArrival: true },
  },
  'peer-by-id': {
    meaning: 'a datagram from an address with no connection is read as the connection its peer id names',
    sets: {},
    live: true,
  },
} satisfies { readonly none: PlantedBugRow; readonly [bug: string]: PlantedBugRow };

/** A planted bug's name (the switch plantedBug's values). */
export type PlantedBugName = keyof typeof TABLE;

export const PLANTED_BUG_TABLE: { readonly [B in PlantedBugName]: PlantedBugRow } = TABLE;

/** The switch's values in the table's order, `none` first. */
export const PLANTED_BUG_NAMES = Object.keys(PLANTED_BUG_TABLE) as [PlantedBugName, ...PlantedBugName[]];

/** Resolved once at load: a bug that sets no transport hook shares NO_PLANTED_FAULTS. */
const RESOLVED = new Map<string, PlantedFaults>(
  Object.entries(PLANTED_BUG_TABLE).map(([bug, row]) => [
    bug,
    Object.keys(row.sets).length === 0 ? NO_PLANTED_FAULTS : faults(row.sets),
  ]),
);

/** The transport hooks of the run's planted bug (NO_PLANTED_FAULTS without one). */
export function plantedFaults(switches: { readonly plantedBug: PlantedBugName }): PlantedFaults {
  const found = RESOLVED.get(switches.plantedBug);
  if (found === undefined) throw new Error(`transport: unknown planted bug ${switches.plantedBug}`);
  return found;
}

/** The retransmit policy a queue runs: the switches' own object unless slow-retransmit stretches it. */
export function plantedPolicy<P extends { readonly baseMs: MillisIn }>(policy: P, planted: PlantedFaults): P {
  return planted.retransmitFactor === 1 ? policy : { ...policy, baseMs: policy.baseMs * planted.retransmitFactor };
}
