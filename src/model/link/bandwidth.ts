// Token-bucket rate limit with a FIFO tail-drop queue, computed arithmetically:
// no per-byte or per-refill events, one departure time per datagram.
import {
  DOUBLE_SEED_US,
  ZERO_US,
  addUs,
  countOverUs,
  diffUs,
  maxUs,
  micros,
  usForAmount,
} from '../../core/engine/index.js';
import type { Micros } from '../../core/engine/index.js';

export class TokenBucket {
  /**
   * Token level (bytes) at `levelAtUs`, the previous departure (or creation). Both hold
   * doubles from their first store (time.ts): a field declared without a value boxes
   * every fractional level stored in it.
   */
  private tokensBytes = 0.5;
  private levelAtUs = DOUBLE_SEED_US;
  /** Departure times of admitted datagrams, non-decreasing (FIFO); [head..] may still be waiting. */
  private departuresUs: Micros[] = [];
  private head = 0;

  constructor(
    private readonly bytesPerSecond: number,
    private readonly burstBytes: number,
    private readonly queueLimitPackets: number,
  ) {
    this.tokensBytes = burstBytes; // starts full
    this.levelAtUs = ZERO_US;
  }

  /** Datagrams still waiting for tokens at `nowUs`. */
  waiting(nowUs: Micros): number {
    const d = this.departuresUs;
    while (this.head < d.length && d[this.head] <= nowUs) this.head++;
    if (this.head > 1024 && this.head * 2 > d.length) {
      this.departuresUs = d.slice(this.head);
      this.head = 0;
    }
    return this.departuresUs.length - this.head;
  }

  /**
   * Offers a datagram of `sizeBytes` at `nowUs`. Returns its departure time
   * (>= nowUs, integer µs), or null when it would have to wait and
   * queueLimitPackets datagrams are already waiting (tail drop).
   * A datagram larger than the burst may still pass: the bucket is allowed to
   * fill up to its size for it, so it departs after size/rate of refill.
   */
  offer(nowUs: Micros, sizeBytes: number): Micros | null {
    const queued = this.waiting(nowUs);
    // FIFO: service starts when the previous datagram has left.
    const startUs = maxUs(nowUs, this.levelAtUs);
    const capBytes = Math.max(this.burstBytes, sizeBytes);
    const levelBytes = Math.min(
      capBytes,
      this.tokensBytes + countOverUs(this.bytesPerSecond, startUs - this.levelAtUs),
    );
    let departUs = startUs;
    if (levelBytes < sizeBytes)
      departUs = addUs(departUs, micros(Math.ceil(usForAmount(sizeBytes - levelBytes, this.bytesPerSecond))));
    if (departUs > nowUs && queued >= this.queueLimitPackets) return null;
    const atDepartureBytes = Math.min(
      capBytes,
      levelBytes + countOverUs(this.bytesPerSecond, diffUs(departUs, startUs)),
    );
    // The ceil makes the level reach the size; clamp float dust below zero.
    this.tokensBytes = Math.max(0, atDepartureBytes - sizeBytes);
    this.levelAtUs = departUs;
    if (departUs > nowUs) this.departuresUs.push(departUs);
    return departUs;
  }
}
