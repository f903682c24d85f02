// Link model configuration, per direction. Plain data,
// already normalised: the scenario layer turns user shorthands into this shape.

import type { MicrosIn, MillisIn } from '../../core/engine/index.js';

export type JitterDistribution = 'uniform' | 'normal' | 'exponential';

export type LossModel =
  | { readonly model: 'none' }
  | { readonly model: 'bernoulli'; readonly probability: number }
  | {
      /** Two-state burst loss: good/bad states with their own loss rates. */
      readonly model: 'gilbert-elliott';
      readonly pGoodToBad: number;
      readonly pBadToGood: number;
      readonly lossGood: number;
      readonly lossBad: number;
    };

/** Decoded-field predicate; every given field must match. */
export interface MessageMatch {
  /** 'ack' | 'game' | 'data' | 'connect' | 'connectAck' | 'boot' | 'disconnect', or a type byte. */
  readonly type?: string | number;
  readonly seq?: number;
  readonly fragment?: boolean;
  readonly fragIndex?: number;
  readonly lowType?: boolean;
  readonly reliable?: boolean;
}

export interface DropRule {
  /** 'datagram' drops every datagram holding a match; 'message' removes only matching messages. */
  readonly scope: 'datagram' | 'message';
  readonly match: MessageMatch;
  /** Only the first N matches are dropped; null = all. */
  readonly firstN: number | null;
  /** Chance that a match is dropped. */
  readonly probability: number;
  /** Active window in simulated ms; null = unbounded. */
  readonly fromMs: MillisIn | null;
  readonly untilMs: MillisIn | null;
}

export interface LinkConfig {
  readonly latency: {
    readonly baseMs: MillisIn;
    readonly jitterMs: MillisIn;
    readonly distribution: JitterDistribution;
  };
  readonly loss: LossModel;
  /** A duplicate copy arrives after the original's delay plus uniform [0, extraDelayMs]. */
  readonly duplicate: { readonly probability: number; readonly extraDelayMs: MillisIn };
  /** netem-style: every `gap`-th datagram is sent without the base delay with this probability. */
  readonly reorder: { readonly probability: number; readonly gap: number };
  /** Token bucket; null rate = unlimited. The queue tail-drops past queueLimitPackets. */
  readonly bandwidth: {
    readonly bytesPerSecond: number | null;
    readonly burstBytes: number;
    readonly queueLimitPackets: number;
  };
  /** netem slot: hold datagrams and release them together every intervalMs; null = off. */
  readonly slot: { readonly intervalMs: MillisIn | null };
  /** Windows in which the direction drops everything (partitions). */
  readonly outages: ReadonlyArray<{ readonly startMs: MillisIn; readonly endMs: MillisIn }>;
  readonly dropRules: readonly DropRule[];
  /**
   * An explicit fault list. When present (even empty), the link takes its loss,
   * duplication and delay decisions from it instead of its random processes (loss, jitter,
   * reorder, duplicate); outages, drop rules, bandwidth and slot still apply. See faults.ts.
   */
  readonly faults?: readonly LinkFault[];
  /** Code only, never from a scenario file: receives every random decision the link makes (the shrinker's recorder). */
  readonly recorder?: LinkFaultRecorder;
}

/**
 * One explicit link decision, keyed by the link's datagram send index (0 = its first datagram).
 * drop: lost at the loss stage. delay: departure-to-arrival delay delayMs, replacing latency and
 * jitter (0 = netem reorder's undelayed send). duplicate: a copy delayMs after the original.
 * atUs is the datagram's send time: informative, and cross-checked on replay (FaultListStats).
 */
export interface LinkFault {
  readonly atUs: MicrosIn;
  readonly datagram: number;
  readonly action: 'drop' | 'duplicate' | 'delay';
  readonly delayMs?: MillisIn;
}

export interface LinkFaultRecorder {
  record(fault: LinkFault): void;
}

export const PERFECT_LINK: LinkConfig = {
  latency: { baseMs: 0, jitterMs: 0, distribution: 'uniform' },
  loss: { model: 'none' },
  duplicate: { probability: 0, extraDelayMs: 0 },
  reorder: { probability: 0, gap: 1 },
  bandwidth: { bytesPerSecond: null, burstBytes: 1500, queueLimitPackets: 1000 },
  slot: { intervalMs: null },
  outages: [],
  dropRules: [],
};

export type DropCause = 'loss' | 'outage' | 'queue' | 'rule';
export const DROP_CAUSES: readonly DropCause[] = ['loss', 'outage', 'queue', 'rule'];

export interface LinkCounters {
  /** Datagrams handed to the link. */
  sent: number;
  /** Datagram arrivals at the far end, duplicates included. */
  delivered: number;
  /** Datagrams dropped whole, by any cause. */
  dropped: number;
  droppedBy: Record<DropCause, number>;
  /** Messages removed from datagrams that were still delivered (message-scope rules). */
  messagesDropped: number;
  duplicated: number;
  /** Arrivals that overtook a datagram sent earlier. */
  reordered: number;
  /** Datagrams the token bucket held: their departure was later than their send time. */
  bucketDelayed: number;
  /** Datagrams (originals and duplicate copies) whose arrival the slot grid moved later. */
  slotDelayed: number;
  bytesSent: number;
  bytesDelivered: number;
}

export function newLinkCounters(): LinkCounters {
  return {
    sent: 0,
    delivered: 0,
    dropped: 0,
    droppedBy: { loss: 0, outage: 0, queue: 0, rule: 0 },
    messagesDropped: 0,
    duplicated: 0,
    reordered: 0,
    bucketDelayed: 0,
    slotDelayed: 0,
    bytesSent: 0,
    bytesDelivered: 0,
  };
}
