// Behaviour switches and numeric parameters of the BC transport model.
// A mode is plain data: `stock` and `fixed` are presets over the same switches,
// and every switch can be set on its own (issue 3, item 6; DECISIONS.md "The fix").

/** ack-outbox-deadlock.md §1 (stock) versus §6 (the simple fix). */
export type AckOutboxDesign = 'two-pass-gated' | 'single-pass-bounded';

/** DECISIONS.md 10: how the receiver finds an existing ACK entry. */
export type DedupDesign = 'linear-scan' | 'hashed-index';

/** DECISIONS.md 10: what a duplicate does to an existing ACK entry. */
export type AckRefresh = 'timer-only' | 'reset-count';

/** DECISIONS.md 14: candidate causes of the fragment-ACK bug, each its own behaviour. */
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

export type Backoff = 'fixed' | 'linear' | 'exponential';

/**
 * How a graceful disconnect ends the connection (issue 9).
 * immediate: the leaving peer queues its Disconnect at once and closes when it is ACKed;
 *   the other side closes after its next update (the stock flow, DECISIONS.md 21).
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
 * Deliberate bugs for testing the test harness (the swarm must catch them).
 * Never part of a preset; `no-duplicate-ack` skips the ACK of a reliable message seen before.
 */
export type PlantedBug = 'none' | 'no-duplicate-ack';
export const PLANTED_BUGS: readonly PlantedBug[] = ['none', 'no-duplicate-ack'];

/** Largest send window: well below half the u16 sequence space (DECISIONS.md 1). */
export const MAX_SEND_WINDOW = 16384;

/** DECISIONS.md 11: every backoff mode is implemented; stock is fixed 2.0 s, no limit. */
export interface RetransmitPolicy {
  readonly backoff: Backoff;
  readonly baseMs: number;
  /** Linear: added per retransmit. */
  readonly stepMs: number;
  /** Linear and exponential: the interval never exceeds this. */
  readonly capMs: number;
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
  /** Graceful disconnect: stock closes at once, fixed drains first (issue 9). */
  readonly closePolicy: ClosePolicy;
  /**
   * Most seqs per category a sender may have outstanding (sent, not yet ACKed);
   * null = unbounded (stock). Keeps the u16 half-window from aliasing.
   */
  readonly sendWindow: number | null;
  /** Retry, age or queue limit reached: drop that message (stock) or end the connection (fixed). */
  readonly onGiveUp: OnGiveUp;
  readonly plantedBug: PlantedBug;
}

export const STOCK_RETRANSMIT: RetransmitPolicy = { backoff: 'fixed', baseMs: 2000, stepMs: 1000, capMs: 5000, retryLimit: null };

export const PRESETS = {
  stock: {
    ackOutbox: 'two-pass-gated',
    ackSendLimit: 3,
    dedup: 'linear-scan',
    ackRefresh: 'timer-only',
    // DECISIONS.md 14: the real capture shows correct 5-byte fragment ACKs, so
    // the stock preset uses the sender-side matcher cause (e).
    fragmentAckCause: 'matcher-rejects-fragments',
    retransmit: STOCK_RETRANSMIT,
    closePolicy: 'immediate',
    sendWindow: null,
    onGiveUp: 'drop',
    plantedBug: 'none',
  },
  fixed: {
    ackOutbox: 'single-pass-bounded',
    ackSendLimit: 3,
    dedup: 'hashed-index',
    ackRefresh: 'timer-only',
    fragmentAckCause: 'none',
    retransmit: STOCK_RETRANSMIT,
    // Issue 9: the fixed promise (exactly once, in order, or the connection ends and losses are counted).
    closePolicy: 'drain',
    sendWindow: 8192,
    onGiveUp: 'disconnect',
    plantedBug: 'none',
  },
} as const satisfies Record<string, TransportSwitches>;

export type PresetName = keyof typeof PRESETS;
export const PRESET_NAMES = Object.keys(PRESETS) as PresetName[];

/** Numeric parameters shared by both presets (DECISIONS.md 6–13, 15). */
export interface TransportParams {
  /** Network update period (DECISIONS.md 13). */
  readonly tickMs: number;
  /** Datagrams built per update per remote peer (DECISIONS.md 8). */
  readonly datagramsPerUpdate: number;
  /** Per-entry ACK resend timer; 0 = every update (DECISIONS.md 9). */
  readonly ackResendIntervalMs: number;
  /** Two-pass design: pass 1 sends entries below this count (ack-outbox-deadlock.md §1). */
  readonly ackPassOneLimit: number;
  /** Two-pass design: pass 2 frees entries when their count reaches this. */
  readonly ackFreeAtCount: number;
  /** Payload bytes per fragment; larger 0x32 payloads are fragmented (DECISIONS.md 6). */
  readonly fragmentChunkBytes: number;
  /** Send a keepalive after this long without sending (DECISIONS.md 12). */
  readonly keepaliveIdleMs: number;
  /** Drop the peer after this long without receiving (DECISIONS.md 12). */
  readonly peerTimeoutMs: number;
  /** Drop a retransmit entry this long after its first send; null = never (analysis doc, retransmit timer). */
  readonly maxMessageAgeMs: number | null;
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
  firstSendQueueLimit: 65536,
  retransmitQueueLimit: 65536,
  ackOutboxLimit: 1 << 17,
};

/** Resolves a preset plus overrides into a complete switch set. */
export function resolveSwitches(preset: PresetName, overrides: Partial<TransportSwitches> = {}): TransportSwitches {
  const base: TransportSwitches = PRESETS[preset];
  return {
    ...base,
    ...overrides,
    retransmit: { ...base.retransmit, ...(overrides.retransmit ?? {}) },
  };
}
