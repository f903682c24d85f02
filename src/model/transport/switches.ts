// Behaviour switches and numeric parameters of the BC transport model.
// A mode is plain data: `stock` and `fixed` are presets over the same switches,
// and every switch can be set on its own (docs/sources.md F1).
import type { MillisIn } from '../../core/engine/index.js';

/** ack-outbox-deadlock.md §1 (stock) versus §6 (the simple fix). */
type AckOutboxDesign = 'two-pass-gated' | 'single-pass-bounded';

/** docs/sources.md 10: how the receiver finds an existing ACK entry. */
type DedupDesign = 'linear-scan' | 'hashed-index';

/** docs/sources.md 10: what a duplicate does to an existing ACK entry. */
type AckRefresh = 'timer-only' | 'reset-count';

/** docs/sources.md 14: candidate causes of the fragment-ACK bug, each its own behaviour. */
export type FragmentAckCause =
  | 'none'
  | 'ack-format-mismatch'
  | 'partial-ack'
  | 'retransmit-reentry'
  | 'retransmit-all'
  | 'matcher-rejects-fragments';

export const FRAGMENT_ACK_CAUSES: readonly FragmentAckCause[] = [
  'none',
  'ack-format-mismatch',
  'partial-ack',
  'retransmit-reentry',
  'retransmit-all',
  'matcher-rejects-fragments',
];

type Backoff = 'fixed' | 'linear' | 'exponential';

/**
 * How a graceful disconnect ends the connection.
 * immediate: the leaving peer queues its Disconnect at once and closes when it is ACKed;
 *   the other side closes after its next update (the stock flow, docs/sources.md 21).
 * drain: each side stops taking new messages, empties its retransmit queue, then sends
 *   its Disconnect; a side closes once its own Disconnect is ACKed and the other's was
 *   delivered. Bounded by the peer timeout; whatever is left then is counted as lost.
 */
export type ClosePolicy = 'immediate' | 'drain';
export const CLOSE_POLICIES: readonly ClosePolicy[] = ['immediate', 'drain'];

/** What the sender does when it gives up on a message (transport-layer.md §4). */
export type OnGiveUp = 'drop' | 'disconnect';
export const ON_GIVE_UP: readonly OnGiveUp[] = ['drop', 'disconnect'];

/**
 * Deliberate bugs for testing the test harnesses: the swarm and `bcsim conform`
 * must catch each. Never part of a preset. planted-bugs.ts says what each does.
 */
export type PlantedBug =
  | 'none'
  | 'no-duplicate-ack'
  | 'no-duplicate-detection'
  | 'reassembly-by-arrival-order'
  | 'ack-ignores-category'
  | 'slow-retransmit'
  | 'fragment-ack-index-zero'
  | 'stale-ack-clears-oldest'
  | 'ack-seq-low-byte'
  | 'reads-32-messages'
  | 'remove-without-boot'
  | 'disconnect-ignored'
  | 'stall-on-oversize'
  | 'no-keepalive-echo'
  | 'own-seq-low-byte'
  | 'fragment-sent-once'
  | 'fragment-ack-ends-datagram'
  | 'retransmit-queue-16'
  | 'peer-by-id';
export const PLANTED_BUGS: readonly PlantedBug[] = [
  'none',
  'no-duplicate-ack',
  'no-duplicate-detection',
  'reassembly-by-arrival-order',
  'ack-ignores-category',
  'slow-retransmit',
  'fragment-ack-index-zero',
  'stale-ack-clears-oldest',
  'ack-seq-low-byte',
  'reads-32-messages',
  'remove-without-boot',
  'disconnect-ignored',
  'stall-on-oversize',
  'no-keepalive-echo',
  'own-seq-low-byte',
  'fragment-sent-once',
  'fragment-ack-ends-datagram',
  'retransmit-queue-16',
  'peer-by-id',
];

/**
 * The idle keepalive (docs/sources.md 12 and 18, which disagree). Each
 * field is one open reading:
 * - message: the captured 22-byte type-0x00 identity message (docs/sources.md 12),
 *   or the decompiled type-0x02 constructor (docs/sources.md 18), payload unknown: empty.
 * - reliable: not visible in the listing (18); the captured 0x00 message is reliable.
 * - path: "the ordinary send function, the path that queues every message" (18),
 *   so it is a first send and opens the pass-2 gate; or outside the queues,
 *   written after pass 2 and never opening the gate.
 * - senders: "client → host, and host → each peer that is not disconnecting" (18).
 * - serverEcho: the server answers a delivered type-0x00 identity message with its own (12, 26).
 * - echoPath: the echo's own path through the queues, which docs/sources.md 26 does not show.
 * - idleCounts: what resets "nothing sent for 5 s": any datagram, one carrying a
 *   data message (first send or retransmit), one carrying a first send, or one
 *   carrying a reliable message (first send or retransmit; StateUpdates do not count).
 */
export interface KeepalivePolicy {
  readonly message: KeepaliveMessage;
  readonly reliable: boolean;
  readonly path: KeepalivePath;
  readonly senders: KeepaliveSenders;
  readonly serverEcho: boolean;
  readonly echoPath: KeepalivePath;
  readonly idleCounts: IdleCounts;
}
export type KeepaliveMessage = 'type-0x00' | 'type-0x02';
export type KeepalivePath = 'first-send-queue' | 'outside-queues';
export type KeepaliveSenders = 'both' | 'client' | 'server' | 'none';
export type IdleCounts = 'any-datagram' | 'data-messages' | 'first-sends' | 'reliable-messages';
export const KEEPALIVE_MESSAGES: readonly KeepaliveMessage[] = ['type-0x00', 'type-0x02'];
export const KEEPALIVE_PATHS: readonly KeepalivePath[] = ['first-send-queue', 'outside-queues'];
export const KEEPALIVE_SENDERS: readonly KeepaliveSenders[] = ['both', 'client', 'server', 'none'];
export const IDLE_COUNTS: readonly IdleCounts[] = ['any-datagram', 'data-messages', 'first-sends', 'reliable-messages'];

/**
 * What opens the pass-2 gate (ack-outbox-deadlock.md §2: "only if steps 1–3
 * wrote something"; docs/sources.md 8.4). Which of the steps count is open, and so
 * is whether "something" is judged per datagram or per update.
 */
export type GateOpener = 'pass-one' | 'retransmits' | 'first-sends';
export const GATE_OPENERS: readonly GateOpener[] = ['pass-one', 'retransmits', 'first-sends'];
export type GateScope = 'datagram' | 'update';
export const GATE_SCOPES: readonly GateScope[] = ['datagram', 'update'];

/**
 * How long an unACKed reliable message is kept: for the whole session (the bug
 * documents' "for the entire session"), or until its age since first send passes
 * the peer timeout (fragmented-reliable-ack-bug-analysis.md; docs/sources.md 20).
 */
export type MessageLifetime = 'session' | 'peer-timeout';
export const MESSAGE_LIFETIMES: readonly MessageLifetime[] = ['session', 'peer-timeout'];

/** docs/sources.md 10 "refreshes only the timer": the refreshed entry is due now, or its timer restarts. */
export type DuplicateAckTimer = 'due-now' | 'restart';
export const DUPLICATE_ACK_TIMERS: readonly DuplicateAckTimer[] = ['due-now', 'restart'];

/**
 * A reliable message arriving at a seq whose slot in the receive buffer is
 * already held by a different message (after a wrap, a stale copy looks like a
 * future seq): keep the first, replace it with the last, or reject the newcomer
 * without ACKing it. Unspecified by the sources.
 */
export type WrapReceive = 'first-wins' | 'last-wins' | 'reject';
export const WRAP_RECEIVE: readonly WrapReceive[] = ['first-wins', 'last-wins', 'reject'];

/**
 * Which datagrams carry an ACK entry that pass 1 may still send (docs/sources.md 9
 * against 25). when-due: only a datagram built after its 0.667 s timer expired
 * (the same entry seen ~0.667 s apart on the wire). every-datagram: every datagram
 * that goes out anyway also carries each entry below the pass-one limit
 * ("every datagram carries each entry whose send count is below 3"); its count
 * and timer still move only when the timer expires, and only that makes a
 * datagram of its own, so a quiet peer still sends its ACKs ~0.667 s apart.
 * every-datagram-all: the same for every entry, dead-zone ones too whenever pass 2
 * runs (ack-outbox-deadlock.md §5.2 says they stop taking room; the wire costs of
 * docs/sources.md 25, ~4.5 B per entry of the outbox, fit only this).
 */
export type AckCarriage = 'when-due' | 'every-datagram' | 'every-datagram-all';
export const ACK_CARRIAGES: readonly AckCarriage[] = ['when-due', 'every-datagram', 'every-datagram-all'];

/**
 * The server's ACK of a client's Connect (docs/sources.md 26: `01 00 00 02`). The
 * captured connect reply carries none, so either the server never ACKs it
 * (the connect reply answers it), or the new peer ACKs it one update after its
 * connect reply.
 */
export type ConnectAck = 'none' | 'after-reply';
export const CONNECT_ACKS: readonly ConnectAck[] = ['none', 'after-reply'];

/**
 * When received datagrams are processed: inside the receiver's next update, after
 * its send step (docs/sources.md 16, the model), or at once on arrival (the `read-on-arrival`
 * reading of `reproduce ack-outbox`).
 */
export type ReceiveTiming = 'in-update' | 'on-arrival';
export const RECEIVE_TIMINGS: readonly ReceiveTiming[] = ['in-update', 'on-arrival'];

/**
 * The Boot a server sends each remaining peer when one times out (docs/sources.md 19:
 * "a 1-byte payload with the slot, reason 1 = timeout"): the slot alone, as the
 * byte count says, or the slot followed by the reason byte.
 */
export type BootPayload = 'slot' | 'slot-reason';
export const BOOT_PAYLOADS: readonly BootPayload[] = ['slot', 'slot-reason'];

/** Largest send window: well below half the u16 sequence space (docs/sources.md 1). */
export const MAX_SEND_WINDOW = 16384;

/** docs/sources.md 11: every backoff mode is implemented; stock is fixed 2.0 s, no limit. */
export interface RetransmitPolicy {
  readonly backoff: Backoff;
  readonly baseMs: MillisIn;
  /** Linear: added per retransmit. */
  readonly stepMs: MillisIn;
  /** Linear and exponential: the interval never exceeds this. */
  readonly capMs: MillisIn;
  /** Retransmits before the sender gives up on a message; null = never. */
  readonly retryLimit: number | null;
}

export interface TransportSwitches {
  readonly ackOutbox: AckOutboxDesign;
  /** single-pass-bounded: an entry is freed after this many sends (ack-outbox-deadlock.md §6). */
  readonly ackSendLimit: number;
  readonly dedup: DedupDesign;
  readonly ackRefresh: AckRefresh;
  readonly fragmentAckCause: FragmentAckCause;
  readonly retransmit: RetransmitPolicy;
  /** Graceful disconnect: stock closes at once, fixed drains first. */
  readonly closePolicy: ClosePolicy;
  /**
   * Most seqs per category a sender may have outstanding (sent, not yet ACKed);
   * null = unbounded (stock). Keeps the u16 half-window from aliasing.
   */
  readonly sendWindow: number | null;
  /** Retry, age or queue limit reached: drop that message (stock) or end the connection (fixed). */
  readonly onGiveUp: OnGiveUp;
  readonly plantedBug: PlantedBug;
  readonly keepalive: KeepalivePolicy;
  readonly gateOpeners: readonly GateOpener[];
  readonly gateScope: GateScope;
  readonly messageLifetime: MessageLifetime;
  readonly duplicateAckTimer: DuplicateAckTimer;
  readonly wrapReceive: WrapReceive;
  readonly receiveTiming: ReceiveTiming;
  readonly bootPayload: BootPayload;
  readonly ackCarriage: AckCarriage;
  readonly connectAck: ConnectAck;
}

/** The keepalive of the "queued-reliable" reading: the captured message, reliable, queued, both roles, echoed. */
const QUEUED_RELIABLE_KEEPALIVE: KeepalivePolicy = {
  message: 'type-0x00',
  reliable: true,
  path: 'first-send-queue',
  senders: 'both',
  serverEcho: true,
  echoPath: 'first-send-queue',
  idleCounts: 'any-datagram',
};

/**
 * The open readings of `reproduce ack-outbox` row "queued-reliable": the keepalive
 * reliable, queued and echoed, messages kept all session. The calibrated readings
 * change it only where the captures say so.
 */
export const QUEUED_RELIABLE_READINGS = {
  keepalive: QUEUED_RELIABLE_KEEPALIVE,
  gateOpeners: GATE_OPENERS,
  gateScope: 'datagram',
  messageLifetime: 'session',
  duplicateAckTimer: 'due-now',
  wrapReceive: 'first-wins',
  receiveTiming: 'in-update',
  bootPayload: 'slot',
  ackCarriage: 'when-due',
  connectAck: 'none',
} as const satisfies Partial<TransportSwitches>;

/**
 * The reading `reproduce ack-outbox` ranks first ("calibrated";
 * docs/calibration.md#choosing-the-stock-readings): unACKed messages dropped once older than the peer timeout; the
 * idle keepalive in its captured form, reliable, through the ordinary send path
 * (docs/sources.md 18, 26), its echo written after pass 2; the Connect ACKed one
 * update after the connect reply (26). Both presets share it, so a comparison
 * isolates the fixes (docs/sources.md F1).
 */
export const CALIBRATED_READINGS = {
  ...QUEUED_RELIABLE_READINGS,
  keepalive: { ...QUEUED_RELIABLE_KEEPALIVE, echoPath: 'outside-queues' },
  messageLifetime: 'peer-timeout',
  connectAck: 'after-reply',
} as const satisfies Partial<TransportSwitches>;

export const STOCK_RETRANSMIT: RetransmitPolicy = {
  backoff: 'fixed',
  baseMs: 2000,
  stepMs: 1000,
  capMs: 5000,
  retryLimit: null,
};

export const PRESETS = {
  stock: {
    ackOutbox: 'two-pass-gated',
    ackSendLimit: 3,
    dedup: 'linear-scan',
    ackRefresh: 'timer-only',
    // docs/sources.md 14: the real capture shows correct 5-byte fragment ACKs, so
    // the stock preset uses the sender-side matcher cause (e).
    fragmentAckCause: 'matcher-rejects-fragments',
    retransmit: STOCK_RETRANSMIT,
    closePolicy: 'immediate',
    sendWindow: null,
    onGiveUp: 'drop',
    plantedBug: 'none',
    ...CALIBRATED_READINGS,
  },
  fixed: {
    ackOutbox: 'single-pass-bounded',
    ackSendLimit: 3,
    dedup: 'hashed-index',
    ackRefresh: 'timer-only',
    fragmentAckCause: 'none',
    retransmit: STOCK_RETRANSMIT,
    // The fixed promise (exactly once, in order, or the connection ends and losses are counted).
    closePolicy: 'drain',
    sendWindow: 8192,
    onGiveUp: 'disconnect',
    plantedBug: 'none',
    ...CALIBRATED_READINGS,
  },
} as const satisfies Record<string, TransportSwitches>;

export type PresetName = keyof typeof PRESETS;
export const PRESET_NAMES = Object.keys(PRESETS) as PresetName[];

/** Numeric parameters shared by both presets (docs/sources.md 6–13, 15). */
export interface TransportParams {
  /** This peer's network update period (docs/sources.md 13, 17); scenarios set it per role and phase. */
  readonly tickMs: MillisIn;
  /** Datagrams built per update per remote peer (docs/sources.md 8). */
  readonly datagramsPerUpdate: number;
  /** Per-entry ACK resend timer; 0 = every update (docs/sources.md 9). */
  readonly ackResendIntervalMs: MillisIn;
  /** Two-pass design: pass 1 sends entries below this count (ack-outbox-deadlock.md §1). */
  readonly ackPassOneLimit: number;
  /** Two-pass design: pass 2 frees entries when their count reaches this. */
  readonly ackFreeAtCount: number;
  /** Payload bytes per fragment; larger 0x32 payloads are fragmented (docs/sources.md 6). */
  readonly fragmentChunkBytes: number;
  /** Send a keepalive after this long without sending (docs/sources.md 12). */
  readonly keepaliveIdleMs: MillisIn;
  /** Drop the peer after this long without receiving (docs/sources.md 12). */
  readonly peerTimeoutMs: MillisIn;
  /** Drop a retransmit entry this long after its first send; null = never. messageLifetime peer-timeout adds peerTimeoutMs. */
  readonly maxMessageAgeMs: MillisIn | null;
  /**
   * Stock close (closePolicy immediate): how long a peer keeps a remote whose
   * Disconnect it received, re-sending due ACKs with the gate open. docs/sources.md 28:
   * the ACK of the Disconnect went out 7 times over ~4.0 s and the peer was gone
   * ~4.16 s after (21's "re-sent 7 times" would be 8 sends, 5 s); 0 = close after the next update.
   */
  readonly disconnectedPeerLingerMs: MillisIn;
  /** Explicit bounds; exceeding one is counted, never silent (TIGER_STYLE limits). */
  readonly firstSendQueueLimit: number;
  readonly retransmitQueueLimit: number;
  readonly ackOutboxLimit: number;
}

export const DEFAULT_PARAMS: TransportParams = {
  tickMs: 95,
  datagramsPerUpdate: 1,
  ackResendIntervalMs: 667,
  ackPassOneLimit: 3,
  ackFreeAtCount: 9,
  fragmentChunkBytes: 405,
  keepaliveIdleMs: 5000,
  peerTimeoutMs: 45000,
  maxMessageAgeMs: null,
  disconnectedPeerLingerMs: 4160,
  firstSendQueueLimit: 65536,
  retransmitQueueLimit: 65536,
  ackOutboxLimit: 1 << 17,
};

/** Resolves a preset plus overrides into a complete switch set. */
export type SwitchPatch = Partial<Omit<TransportSwitches, 'retransmit' | 'keepalive'>> & {
  retransmit?: Partial<RetransmitPolicy>;
  keepalive?: Partial<KeepalivePolicy>;
};

export function resolveSwitches(preset: PresetName, overrides: SwitchPatch = {}): TransportSwitches {
  const base: TransportSwitches = PRESETS[preset];
  return {
    ...base,
    ...overrides,
    retransmit: { ...base.retransmit, ...(overrides.retransmit ?? {}) },
    keepalive: { ...base.keepalive, ...(overrides.keepalive ?? {}) },
  };
}
