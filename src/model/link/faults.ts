// The link's random decisions, as one interface with two sources:
// - RandomDecisions: the seeded processes (loss, jitter, netem reorder, duplication);
// - ScheduledDecisions: an explicit fault list keyed by the link's datagram send index.
// A recorder wrapped around either writes every decision that differs from a clean link
// as a LinkFault, so a recorded list, replayed, gives the same run (same trace hash).
import type { Micros, Millis, RandomStream, StreamSource } from '../../core/engine/index.js';
import { ZERO_US, addUs, micros, millis, uniform, msToUs, usToMs } from '../../core/engine/index.js';
import type { LinkConfig, LinkFault, LinkFaultRecorder } from './config.js';
import { chance, needsDraw } from './draw.js';
import { NetemReorder, createJitter } from './latency.js';
import { createLoss } from './loss.js';

export interface LinkDecisions {
  /** Step 4 of the pipeline: true = the datagram is lost. */
  lose(index: number, nowUs: Micros): boolean;
  /** Step 6: the delay from departure to arrival, in µs, before the slot grid. */
  delayUs(index: number, nowUs: Micros): Micros;
  /** Step 8: a copy's delay after the original, in µs, or null for no copy. */
  duplicateUs(index: number, nowUs: Micros): Micros | null;
}

/** What a fault list did in one run: consulted entries, and those whose `at` did not match the send time. */
export interface FaultListStats {
  applied: number;
  offSchedule: number;
}

/** The decisions for `config`: its fault list if it has one, else its random processes; recorded if asked. */
export function createDecisions(
  config: LinkConfig,
  name: string,
  streams: StreamSource,
): { decisions: LinkDecisions; stats: FaultListStats | null } {
  const baseUs = msToUs(config.latency.baseMs);
  const scheduled = config.faults === undefined ? null : new ScheduledDecisions(config.faults, baseUs);
  const inner = scheduled ?? new RandomDecisions(config, name, streams, baseUs);
  const decisions = config.recorder === undefined ? inner : new RecordingDecisions(inner, baseUs, config.recorder);
  return { decisions, stats: scheduled?.stats ?? null };
}

/** The seeded processes; each takes its stream only when its feature is on. */
class RandomDecisions implements LinkDecisions {
  private readonly loss;
  private readonly jitterMs: (() => Millis) | null;
  private readonly reorder: NetemReorder | null;
  private readonly duplicateProbability: number;
  private readonly duplicateStream: RandomStream | null;
  private readonly duplicateDelay: (() => Millis) | null;

  constructor(
    config: LinkConfig,
    name: string,
    streams: StreamSource,
    private readonly baseUs: Micros,
  ) {
    this.loss = createLoss(config.loss, () => streams.stream(`${name}.loss`));
    const lat = config.latency;
    this.jitterMs =
      lat.jitterMs > 0 ? createJitter(lat.distribution, lat.jitterMs, streams.stream(`${name}.jitter`)) : null;
    const ro = config.reorder;
    this.reorder =
      ro.probability > 0
        ? new NetemReorder(ro.probability, ro.gap, needsDraw(ro.probability) ? streams.stream(`${name}.reorder`) : null)
        : null;
    const dup = config.duplicate;
    this.duplicateProbability = dup.probability;
    this.duplicateStream = needsDraw(dup.probability) ? streams.stream(`${name}.duplicate`) : null;
    // A stream of its own, so extraDelayMs never changes which datagrams are copied.
    const delayStream = dup.probability > 0 && dup.extraDelayMs > 0 ? streams.stream(`${name}.duplicate.delay`) : null;
    this.duplicateDelay = delayStream === null ? null : () => millis(uniform(delayStream, 0, dup.extraDelayMs));
  }

  lose(): boolean {
    return this.loss !== null && this.loss.lose();
  }

  delayUs(): Micros {
    // netem reorder sends the datagram without the base delay and without a jitter draw.
    if (this.reorder !== null && this.reorder.skipDelay()) return ZERO_US;
    return this.jitterMs === null ? this.baseUs : addUs(this.baseUs, msToUs(this.jitterMs()));
  }

  duplicateUs(): Micros | null {
    if (!(this.duplicateProbability > 0 && chance(this.duplicateStream, this.duplicateProbability))) return null;
    return this.duplicateDelay === null ? ZERO_US : msToUs(this.duplicateDelay());
  }
}

interface Planned {
  atUs: Micros;
  drop: boolean;
  delayUs: Micros | null;
  duplicateUs: Micros | null;
}

/** An explicit list: a datagram without an entry goes through as on a clean link with the base delay. */
class ScheduledDecisions implements LinkDecisions {
  readonly stats: FaultListStats = { applied: 0, offSchedule: 0 };
  private readonly plan = new Map<number, Planned>();

  constructor(
    faults: readonly LinkFault[],
    private readonly baseUs: Micros,
  ) {
    for (const f of faults) {
      let p = this.plan.get(f.datagram);
      if (p === undefined)
        this.plan.set(f.datagram, (p = { atUs: micros(f.atUs), drop: false, delayUs: null, duplicateUs: null }));
      const us = msToUs(f.delayMs ?? 0);
      if (f.action === 'drop') p.drop = true;
      else if (f.action === 'delay') p.delayUs = us;
      else p.duplicateUs = us;
    }
  }

  private take(index: number, nowUs: Micros, pick: (p: Planned) => boolean): Planned | null {
    const p = this.plan.get(index);
    if (p === undefined || !pick(p)) return null;
    this.stats.applied++;
    if (p.atUs !== nowUs) this.stats.offSchedule++;
    return p;
  }

  lose(index: number, nowUs: Micros): boolean {
    return this.take(index, nowUs, (p) => p.drop) !== null;
  }

  delayUs(index: number, nowUs: Micros): Micros {
    return this.take(index, nowUs, (p) => p.delayUs !== null)?.delayUs ?? this.baseUs;
  }

  duplicateUs(index: number, nowUs: Micros): Micros | null {
    return this.take(index, nowUs, (p) => p.duplicateUs !== null)?.duplicateUs ?? null;
  }
}

/** Passes every decision through and records those a clean link would not have made. */
class RecordingDecisions implements LinkDecisions {
  constructor(
    private readonly inner: LinkDecisions,
    private readonly baseUs: Micros,
    private readonly recorder: LinkFaultRecorder,
  ) {}

  lose(index: number, nowUs: Micros): boolean {
    const lost = this.inner.lose(index, nowUs);
    if (lost) this.recorder.record({ atUs: nowUs, datagram: index, action: 'drop' });
    return lost;
  }

  delayUs(index: number, nowUs: Micros): Micros {
    const us = this.inner.delayUs(index, nowUs);
    if (us !== this.baseUs)
      this.recorder.record({ atUs: nowUs, datagram: index, action: 'delay', delayMs: usToMs(us) });
    return us;
  }

  duplicateUs(index: number, nowUs: Micros): Micros | null {
    const us = this.inner.duplicateUs(index, nowUs);
    if (us !== null) this.recorder.record({ atUs: nowUs, datagram: index, action: 'duplicate', delayMs: usToMs(us) });
    return us;
  }
}
