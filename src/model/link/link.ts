// One direction of the network between two peers.
//
// Pipeline, in this order, for each datagram handed to send() at sim.now:
//   1. count it (sent, bytesSent)
//   2. outage windows      [startMs, endMs) → drop 'outage'
//   3. drop rules          datagram scope → drop 'rule'; message scope → rewrite
//                          (re-encoded, uids filtered) or drop 'rule' if emptied
//   4. random loss         none / bernoulli / gilbert-elliott → drop 'loss'
//                          (steps 4, 6 and 8 are the link's random decisions, LinkDecisions in
//                          faults.ts: the seeded processes, or an explicit fault list; optionally recorded)
//   5. bandwidth           token bucket + FIFO queue → departure time, or drop 'queue'
//   6. delay               netem reorder (no base delay, no jitter draw) or base + jitter
//   7. slot                arrival rounded up to the next multiple of intervalMs
//                          (slotDelayed counts arrivals it moved later; bucketDelayed
//                          counts datagrams the bucket made wait at step 5)
//   8. duplication         a copy arrives after the original + U[0, extraDelayMs]
//   9. arrival             counters, observer.delivered, deliver()
// messagesDropped counts messages cut at step 3 from a datagram that went on
// down the pipeline (it may still be lost later, then counted as a drop too).
// Every decision after step 1 is computed at send time (the bucket's FIFO keeps
// stream order equal to send order), so a datagram costs one scheduled event,
// two with a duplicate. Deliveries are not forced FIFO: jitter may reorder.
import type { Micros, StreamSource, Scheduler } from '../../core/engine/index.js';
import { addUs, msToUs } from '../../core/engine/index.js';
import { newLinkCounters } from './config.js';
import type { DropCause, LinkConfig, LinkCounters } from './config.js';
import { TokenBucket } from './bandwidth.js';
import { DropRules } from './drop-rules.js';
import { needsDraw } from './draw.js';
import { createDecisions } from './faults.js';
import type { FaultListStats, LinkDecisions } from './faults.js';
import { FlightPool } from './in-flight.js';
import type { Flight } from './in-flight.js';
import { validateLinkConfig } from './validate.js';

/** Optional hooks for wire traces. Called synchronously, before deliver() on arrival. */
export interface LinkObserver {
  dropped?(bytes: Uint8Array, uids: readonly number[], cause: DropCause): void;
  /** A message-scope rule rewrote a datagram; the rewritten one continues down the pipeline. */
  messagesDropped?(before: Uint8Array, after: Uint8Array, removedIndexes: readonly number[]): void;
  delivered?(bytes: Uint8Array, uids: readonly number[], duplicate: boolean, sentAtUs: Micros): void;
}

export class Link {
  readonly counters: LinkCounters = newLinkCounters();

  private readonly outagesUs: ReadonlyArray<{ readonly startUs: Micros; readonly endUs: Micros }>;
  private readonly rules: DropRules | null;
  private readonly decisions: LinkDecisions;
  /** What an explicit fault list did (null without one). */
  readonly faultStats: FaultListStats | null;
  private readonly bucket: TokenBucket | null;
  private readonly slotUs: Micros | null;

  /** Send order of the next datagram; every send() takes one. */
  private nextSendIndex = 0;
  /** Highest send index delivered so far (originals only). */
  private maxDeliveredIndex = -1;
  /** Datagrams between send and arrival, as reused records (in-flight.ts). */
  private readonly flights = new FlightPool((flight) => this.land(flight));

  constructor(
    private readonly sim: Scheduler,
    readonly name: string,
    config: LinkConfig,
    streams: StreamSource,
    private readonly deliver: (bytes: Uint8Array, uids: readonly number[]) => void,
    private readonly observer?: LinkObserver,
  ) {
    validateLinkConfig(config);
    // A stream is taken only for an enabled feature: a perfect link draws nothing,
    // and each feature's draws are independent of every other feature's settings.
    this.outagesUs = config.outages.map((o) => ({ startUs: msToUs(o.startMs), endUs: msToUs(o.endMs) }));
    this.rules =
      config.dropRules.length === 0
        ? null
        : new DropRules(
            config.dropRules,
            config.dropRules.some((r) => needsDraw(r.probability)) ? streams.stream(`${name}.rules`) : null,
          );
    ({ decisions: this.decisions, stats: this.faultStats } = createDecisions(config, name, streams));
    const bw = config.bandwidth;
    this.bucket =
      bw.bytesPerSecond === null ? null : new TokenBucket(bw.bytesPerSecond, bw.burstBytes, bw.queueLimitPackets);
    this.slotUs = config.slot.intervalMs === null ? null : msToUs(config.slot.intervalMs);
  }

  /**
   * Hands a datagram to the link at sim.now. uids[i] is an opaque accounting id
   * aligned with message i; message-scope rules keep it aligned. The link does
   * not copy `bytes` for the original arrival: the sender must not mutate it.
   */
  send(bytes: Uint8Array, uids: readonly number[]): void {
    const c = this.counters;
    const sentAtUs = this.sim.now;
    const index = this.nextSendIndex++;
    c.sent++;
    c.bytesSent += bytes.length;

    if (this.outagesUs.length > 0 && this.inOutage(sentAtUs)) return this.drop(bytes, uids, 'outage');

    if (this.rules !== null) {
      const outcome = this.rules.apply(bytes, uids, sentAtUs);
      if (outcome.kind === 'drop') return this.drop(bytes, uids, 'rule');
      if (outcome.kind === 'rewrite') {
        c.messagesDropped += outcome.removedIndexes.length;
        this.observer?.messagesDropped?.(bytes, outcome.bytes, outcome.removedIndexes);
        bytes = outcome.bytes;
        uids = outcome.uids;
      }
    }

    if (this.decisions.lose(index, sentAtUs)) return this.drop(bytes, uids, 'loss');

    let departUs = sentAtUs;
    if (this.bucket !== null) {
      const d = this.bucket.offer(sentAtUs, bytes.length);
      if (d === null) return this.drop(bytes, uids, 'queue');
      if (d > sentAtUs) c.bucketDelayed++;
      departUs = d;
    }

    const arriveUs = this.slotted(addUs(departUs, this.decisions.delayUs(index, sentAtUs)));
    this.schedule(this.flights.take(bytes, uids, index, sentAtUs, false), arriveUs);

    const copyDelayUs = this.decisions.duplicateUs(index, sentAtUs);
    if (copyDelayUs !== null) {
      c.duplicated++;
      // Scheduled after the original, so at an equal time it is dispatched second.
      const copyAtUs = this.slotted(addUs(arriveUs, copyDelayUs));
      this.schedule(this.flights.take(bytes.slice(), uids, index, sentAtUs, true), copyAtUs);
    }
  }

  /**
   * A flight taken from the pool has landed, so its timer is not pending: rescheduling it
   * takes a fresh insertion sequence exactly as a new timer would.
   */
  private schedule(flight: Flight, atUs: Micros): void {
    if (flight.timer === null) flight.timer = this.sim.at(atUs, flight.land);
    else this.sim.reschedule(flight.timer, atUs);
  }

  /** A flight's arrival event: its record goes back to the pool before the datagram is delivered. */
  private land(flight: Flight): void {
    const { bytes, uids, index, sentAtUs, duplicate } = flight;
    this.flights.give(flight);
    this.arrive(bytes, uids, index, sentAtUs, duplicate);
  }

  private inOutage(nowUs: Micros): boolean {
    for (const o of this.outagesUs) if (nowUs >= o.startUs && nowUs < o.endUs) return true;
    return false;
  }

  /** Rounds up to the slot grid (netem slot): datagrams in one slot arrive together. */
  private slotted(atUs: Micros): Micros {
    const slotUs = this.slotUs;
    if (slotUs === null) return atUs;
    const slottedUs = (Math.ceil(atUs / slotUs) * slotUs) as Micros; // a whole number of slots
    if (slottedUs > atUs) this.counters.slotDelayed++;
    return slottedUs;
  }

  private drop(bytes: Uint8Array, uids: readonly number[], cause: DropCause): void {
    this.counters.dropped++;
    this.counters.droppedBy[cause]++;
    this.observer?.dropped?.(bytes, uids, cause);
  }

  private arrive(
    bytes: Uint8Array,
    uids: readonly number[],
    index: number,
    sentAtUs: Micros,
    duplicate: boolean,
  ): void {
    const c = this.counters;
    c.delivered++;
    c.bytesDelivered += bytes.length;
    // A copy always follows its original, so only originals can overtake.
    if (!duplicate) {
      if (index < this.maxDeliveredIndex) c.reordered++;
      else this.maxDeliveredIndex = index;
    }
    // Observer first: a trace shows the arrival before anything the receiver sends in reaction.
    this.observer?.delivered?.(bytes, uids, duplicate, sentAtUs);
    this.deliver(bytes, uids);
  }
}
