// The highest value each charted figure took since the last once-a-second
// sample: a gauge's peak, the most ACK bytes in one datagram, the most
// comparisons in one dedup lookup. The transport raises them where it raises
// the exact running maxima (`<name>Max`); the session starts a new interval
// after each sample (session.ts). The metrics recorder stretches each second's
// band to them, so a chart reaches the peaks the table shows. They are read by
// observers only and never change a run.
import type { PeerGauges } from './counter-schema.js';

/** The charted figures a sample alone can miss: the gauges, and the two per-event ratios' largest single event. */
export interface IntervalPeakValues {
  ackOutbox: number;
  ackOutboxDeadZone: number;
  retransmitQueue: number;
  memoryBytes: number;
  /** The most ACK bytes one datagram carried. */
  ackBytesPerPacket: number;
  /** The most comparisons one dedup lookup made. */
  dedupPerMessage: number;
}

export type IntervalPeakName = keyof IntervalPeakValues;

export class IntervalPeaks implements IntervalPeakValues {
  ackOutbox = 0;
  ackOutboxDeadZone = 0;
  retransmitQueue = 0;
  memoryBytes = 0;
  ackBytesPerPacket = 0;
  dedupPerMessage = 0;

  /** A new interval: the gauges start from their values now, the per-event figures from none. */
  restart(g: Readonly<PeerGauges>): void {
    this.ackOutbox = g.ackOutbox;
    this.ackOutboxDeadZone = g.ackOutboxDeadZone;
    this.retransmitQueue = g.retransmitQueue;
    this.memoryBytes = g.memoryBytes;
    this.ackBytesPerPacket = 0;
    this.dedupPerMessage = 0;
  }
}

/**
 * A host's total over several peers: its gauges are sums, whose peak between
 * samples is not known (the sample is the figure, as the table's total peak
 * is); the per-event figures are the largest of any peer's.
 */
export function totalIntervalPeaks(
  gauges: Readonly<PeerGauges>,
  peers: ReadonlyArray<Readonly<IntervalPeakValues> | undefined>,
): IntervalPeakValues {
  let ackBytesPerPacket = 0;
  let dedupPerMessage = 0;
  for (const p of peers) {
    if (p === undefined) continue;
    if (p.ackBytesPerPacket > ackBytesPerPacket) ackBytesPerPacket = p.ackBytesPerPacket;
    if (p.dedupPerMessage > dedupPerMessage) dedupPerMessage = p.dedupPerMessage;
  }
  return {
    ackOutbox: gauges.ackOutbox,
    ackOutboxDeadZone: gauges.ackOutboxDeadZone,
    retransmitQueue: gauges.retransmitQueue,
    memoryBytes: gauges.memoryBytes,
    ackBytesPerPacket,
    dedupPerMessage,
  };
}
