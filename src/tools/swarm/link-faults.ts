// Per-direction link faults: loss (Bernoulli or Gilbert-Elliott bursts), latency, jitter and
// netem reordering, duplication, a bandwidth cap and a delivery slot grid. Each one placed on
// a link block is recorded as a fault that must fire in that block's directions.
import { directionsOf, expectFault, pickBlock } from './draft.js';
import type { Draft } from './draft.js';
import type { Rate } from './traffic.js';

/** Long-outage and give-up runs end the connection: a fault must fire before that, so its rate has a floor. */
export function faultRateFloor(endsEarly: boolean): number {
  return endsEarly ? 0.05 : 0.02;
}

export interface LossInputs {
  /** No loss at all: the run's windows must fit a short traffic region. */
  readonly cleanJoin: boolean;
  /** At most a little Bernoulli loss, so that only the run's outage can exhaust the retries. */
  readonly giveUp: boolean;
  /** The give-up limit leaves room for that little loss. */
  readonly patient: boolean;
  readonly floor: number;
}

export interface Loss {
  readonly kind: 'none' | 'bernoulli' | 'gilbert-elliott';
  /** Loss probability a join datagram sees (for a burst model, a pessimistic average). */
  readonly joinLoss: number;
}

export function drawLoss(d: Draft, o: LossInputs): Loss {
  const { r, link, classes } = d;
  let joinLoss = 0;
  const kind = o.cleanJoin
    ? 'none'
    : o.giveUp
      ? o.patient && r.chance(0.5)
        ? 'bernoulli'
        : 'none'
      : r.weighted([
          ['none', 35],
          ['bernoulli', 35],
          ['gilbert-elliott', 30],
        ] as const);
  // (give-up runs: 2-4 %, their outage comes 25 s into combat, after ~300 datagrams per direction)
  if (kind === 'bernoulli') {
    const block = pickBlock(r);
    const p = o.giveUp ? r.float(0.02, 0.04) : r.float(o.floor, r.chance(0.2) ? 0.25 : 0.12);
    link[block].loss = p;
    joinLoss = p;
    expectFault(d, 'loss', block);
    classes.add('loss: Bernoulli');
  } else if (kind === 'gilbert-elliott') {
    const block = pickBlock(r);
    const ge = {
      pGoodToBad: r.float(0.02, 0.08),
      pBadToGood: r.float(0.2, 0.6),
      lossGood: r.chance(0.5) ? 0 : r.float(0.005, 0.02),
      lossBad: r.float(0.5, 1),
    };
    link[block].gilbertElliott = ge;
    const badShare = ge.pGoodToBad / (ge.pGoodToBad + ge.pBadToGood);
    joinLoss = Math.min(0.5, 1.5 * (badShare * ge.lossBad + (1 - badShare) * ge.lossGood));
    expectFault(d, 'loss', block);
    classes.add('loss: Gilbert-Elliott');
  }
  return { kind, joinLoss };
}

export interface Delay {
  /** The largest latency on either direction. */
  readonly latencyMs: number;
  /** The jitter's bound (0 without jitter). */
  readonly jitterMs: number;
}

/** Latency, jitter and netem reorder. */
export function drawDelay(d: Draft, aliasingProbe: boolean): Delay {
  const { r, link, classes } = d;
  // (The aliasing probe keeps the join fast and predictable, so its windows fit 20 s of traffic.)
  let latencyMs = aliasingProbe ? r.int(0, 20) : r.chance(0.2) ? 0 : r.int(5, 100);
  link.both.latencyMs = latencyMs;
  let jitterMs = 0;
  if (!aliasingProbe && r.chance(0.25)) {
    const block = pickBlock(r);
    jitterMs = r.int(130, 300);
    link[block].jitterMs = jitterMs;
    link[block].jitter = r.pick(['uniform', 'normal', 'exponential']);
    expectFault(d, 'reorder', block);
    classes.add('jitter');
  }
  if (!aliasingProbe && r.chance(0.2)) {
    const block = pickBlock(r);
    // netem reorder overtakes only datagrams still in flight: the delay must exceed the 95 ms update.
    const lat = r.int(120, 200);
    link[block].latencyMs = lat;
    latencyMs = Math.max(latencyMs, lat);
    link[block].reorder = r.float(0.1, 0.3);
    link[block].reorderGap = r.int(1, 5);
    expectFault(d, 'reorder', block);
    classes.add('reorder: netem');
  }
  return { latencyMs, jitterMs };
}

export function drawDuplication(d: Draft, floor: number): void {
  const { r, link } = d;
  if (!r.chance(0.25)) return;
  const block = pickBlock(r);
  link[block].duplicate = r.float(floor, 0.12);
  if (r.chance(0.6)) link[block].duplicateDelayMs = r.int(1, 60);
  expectFault(d, 'duplicate', block);
  d.classes.add('duplicate');
}

/** A bandwidth cap just above the offered load (true if the run has one). */
export function drawBandwidth(d: Draft, rate: Rate, allowed: boolean): boolean {
  const { r, link, transport } = d;
  if (!(allowed && r.chance(0.16))) return false;
  const block = pickBlock(r);
  const ratio = r.float(1.1, 1.3, 2);
  // Below nearly every combat datagram (~110 bytes): no tokens are left over from one update to the next.
  const burstBytes = r.int(20, 80);
  const queueSeconds = r.float(0.5, 1.5, 1);
  for (const direction of directionsOf(block)) {
    // The bucket refills up to a datagram's own size however small the burst, so a datagram waits
    // only if it is larger than what the cap refills between it and the previous one. The cap is
    // 1.1-1.3x the direction's offered combat load (measured: ~1,000 B/s of StateUpdates, ~30 B per
    // own reliable message, ~6 B per ACK of the other side's): the bucket is busy 75-90 % of the time,
    // so the busier updates wait, yet nothing stays congested. The queue holds ~0.5-1.5 s of traffic:
    // a deep queue under a cap makes the RTT exceed the 2 s retransmit timer, and then retransmits
    // alone exceed the cap (congestion collapse; the transport has no congestion control).
    // With several datagrams per update, every update that fills more than one waits; with one,
    // the cap stays at most 4,000 B/s, so the join's second 412-byte fragment datagram waits too.
    const share = direction === 'clientToServer' ? rate.clientShare : 1 - rate.clientShare;
    // (Small fragments add ~8 header bytes to about half the events.)
    const eventBytes = transport.fragmentChunkBytes === undefined ? 30 : 34;
    let offered = 1_000 + rate.perSecond * share * eventBytes + rate.perSecond * (1 - share) * 6;
    if (rate.clients > 1) {
      // One connection of several: its own events, relayed ones included, and ACKs of the other side's.
      const [own, other] =
        direction === 'clientToServer'
          ? [rate.c2sPerSecond, rate.s2cPerSecond]
          : [rate.s2cPerSecond, rate.c2sPerSecond];
      offered = 1_000 + own * eventBytes + other * 6;
    }
    let bytesPerSecond = Math.round(offered * ratio);
    if ((transport.datagramsPerUpdate ?? 1) === 1) bytesPerSecond = Math.min(4_000, bytesPerSecond);
    const queueLimitPackets = Math.max(
      4,
      Math.round((bytesPerSecond * queueSeconds) / ((transport.datagramsPerUpdate ?? 1) > 1 ? 400 : 110)),
    );
    Object.assign(link[direction], { bandwidthBytesPerSecond: bytesPerSecond, burstBytes, queueLimitPackets });
  }
  expectFault(d, 'bandwidth', block);
  d.classes.add('bandwidth cap');
  return true;
}

/** A delivery slot grid (returns its period, 0 without one). */
export function drawSlot(d: Draft, allowed: boolean): number {
  const { r } = d;
  if (!(allowed && r.chance(0.16))) return 0;
  const block = pickBlock(r);
  // Not a divisor of the 95 ms update (5, 19, 95): with no jitter every arrival could sit on the grid.
  // Short next to jitter or netem reorder: a coarse grid puts reordered datagrams back in one batch.
  const reorders = d.checks.some((c) => c.fault === 'reorder');
  let slotMs: number;
  do slotMs = r.int(6, reorders ? 40 : 150);
  while (95 % slotMs === 0);
  d.link[block].slotMs = slotMs;
  expectFault(d, 'slot', block);
  d.classes.add('slot');
  return slotMs;
}
