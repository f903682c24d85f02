// The documented confirmation channel (rtype-ack-system.md §3, "Client ACK via TCP"):
// one client's TCP stream to the server, modelled as in-order and lossless with its
// own latency. While an outage covers a message's transit, TCP keeps retrying: the
// message arrives `latency` after the outage ends, and nothing overtakes it.
import { ZERO_US, addUs, maxUs, msToUs } from '../../core/engine/index.js';
import type { Micros, Scheduler } from '../../core/engine/index.js';
import type { RtypeTcpConfig } from './config.js';

export interface TcpCounters {
  messages: number;
  bytes: number;
  /** Messages that an outage held back. */
  held: number;
  /** Messages refused because maxInFlight were already in transit. */
  limitHits: number;
}

export class TcpChannel {
  readonly counters: TcpCounters = { messages: 0, bytes: 0, held: 0, limitHits: 0 };
  private readonly latencyUs: Micros;
  private readonly outagesUs: ReadonlyArray<{ readonly startUs: Micros; readonly endUs: Micros }>;
  private readonly maxInFlight: number;
  private lastArrivalUs: Micros = ZERO_US;
  private inFlight = 0;

  constructor(
    private readonly sim: Scheduler,
    config: RtypeTcpConfig,
    private readonly deliver: (bytes: Uint8Array) => void,
  ) {
    this.latencyUs = msToUs(config.latencyMs);
    this.outagesUs = config.outages
      .map((o) => ({ startUs: msToUs(o.startMs), endUs: msToUs(o.endMs) }))
      .sort((a, b) => a.startUs - b.startUs);
    this.maxInFlight = config.maxInFlight;
  }

  /** Writes one message to the stream at sim.now; returns false when refused (counted). */
  send(bytes: Uint8Array): boolean {
    if (this.inFlight >= this.maxInFlight) {
      this.counters.limitHits++;
      return false;
    }
    this.counters.messages++;
    this.counters.bytes += bytes.length;
    let arriveUs = addUs(this.sim.now, this.latencyUs);
    // An outage overlapping the transit holds the message until it ends.
    let held = false;
    for (const o of this.outagesUs) {
      if (o.startUs < Math.max(arriveUs, this.sim.now + 1) && o.endUs > this.sim.now) {
        arriveUs = maxUs(arriveUs, addUs(o.endUs, this.latencyUs));
        held = true;
      }
    }
    if (held) this.counters.held++;
    // In order: never before the previous message.
    arriveUs = maxUs(arriveUs, this.lastArrivalUs);
    this.lastArrivalUs = arriveUs;
    this.inFlight++;
    this.sim.at(arriveUs, () => {
      this.inFlight--;
      this.deliver(bytes);
    });
    return true;
  }
}
