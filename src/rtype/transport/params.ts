// Numbers of the R-Type model: the spec's thresholds, the frame cost model and
// the bounds on every growing structure.

export interface RtypeTiming {
  /** Game loop rate (rtype-ack-system.md "Timing Parameters": 30 FPS). */
  readonly tickHz: number;
  /** Resend once a packet is older than this (spec: 500 ms). Raw ticks under thresholdsInTicks. */
  readonly resendAfterMs: number;
  /** Drop a packet older than this from the store (spec: 1500 ms). Raw ticks under thresholdsInTicks. */
  readonly expireAfterMs: number;
  /**
   * The per-packet timer's interval (resendTimer 'per-packet' only): first resend this long
   * after the send, then again each time it elapses. Not in the spec: the repaired design's.
   */
  readonly retryIntervalMs: number;
  /**
   * Deterministic frame cost (docs/sources.md 24: the tick counter advances only when a frame
   * finishes early): work = frameBaseWorkUs + workPerDatagramUs × datagrams the frame sent.
   */
  readonly frameBaseWorkUs: number;
  readonly workPerDatagramUs: number;
}

export const SPEC_TIMING: RtypeTiming = {
  tickHz: 30,
  resendAfterMs: 500,
  expireAfterMs: 1500,
  retryIntervalMs: 150,
  frameBaseWorkUs: 2_000,
  workPerDatagramUs: 10,
};

/** Bounds on the server's growing structures; a hit refuses the new item and is counted. */
export interface RtypeLimits {
  readonly maxStoreEntries: number;
  readonly maxPendingPerUser: number;
  /** Datagrams one frame may hand to the socket (a full send buffer refuses the rest). */
  readonly maxDatagramsPerFrame: number;
}

export const DEFAULT_RTYPE_LIMITS: RtypeLimits = {
  maxStoreEntries: 100_000,
  maxPendingPerUser: 100_000,
  maxDatagramsPerFrame: 10_000,
};
