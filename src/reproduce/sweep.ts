// The stock ACK-outbox under rising reliable rates, for both peers and two
// update periods (issue 10, item 3). Each point also carries the capacity
// relation: a peer can send datagramsPerUpdate × 510 bytes per update period,
// and must send its game bytes plus ackFreeAtCount ACK sends per entry.
import { MetricsRecorder, seriesTrends } from '../metrics/recorder.js';
import { runScenario } from '../session/run.js';
import type { Role } from '../transport/roles.js';
import type { ScenarioSource } from './evidence.js';

export interface SweepPeer {
  readonly outboxMax: number;
  readonly outboxFinal: number;
  readonly deadZoneMax: number;
  readonly slopePerHour: number;
  readonly leak: boolean;
  readonly meanAckBytesPerDatagram: number;
  readonly dedupMaxPerSecond: number;
  /** Game bytes sent plus the ACK bytes the outbox needs (entries × ackFreeAtCount × 4), per second. */
  readonly offeredBytesPerSecond: number;
  /** offered ÷ capacity. */
  readonly load: number;
}

export interface SweepPoint {
  readonly updatePeriodMs: number;
  readonly reliablePerSecond: number;
  readonly capacityBytesPerSecond: number;
  readonly peers: Record<Role, SweepPeer>;
}

export interface CapacityFinding {
  readonly updatePeriodMs: number;
  readonly capacityBytesPerSecond: number;
  /** First swept rate at which each peer's outbox grew without bound; null = none did. */
  readonly runawayFrom: Record<Role, number | null>;
  readonly loadAtRunaway: Record<Role, number | null>;
  readonly sentence: string;
}

export interface SweepResult {
  readonly points: SweepPoint[];
  readonly capacity: CapacityFinding[];
}

export const SWEEP_MINUTES = 10;
/**
 * The top rates stay where a runaway outbox is still far from holding all
 * 65,536 seqs of one category in 10 minutes: at 600/s and 33 ms it fills them,
 * old seqs come round and refresh stranded entries instead of adding new ones,
 * and the outbox saturates instead of growing.
 */
/** Payload room of one datagram: 512 minus the 2-byte header (DECISIONS.md 5). */
const DATAGRAM_ROOM_BYTES = 510;
const ACK_BYTES = 4;
export const SWEEP_GRID: ReadonlyArray<{ updatePeriodMs: number; rates: readonly number[] }> = [
  { updatePeriodMs: 95, rates: [4.9, 30, 60, 90, 120, 150, 180] },
  { updatePeriodMs: 33, rates: [120, 240, 360, 480] },
];

export function sweepAckOutbox(source: ScenarioSource, seed: number): SweepResult {
  const points = SWEEP_GRID.flatMap(({ updatePeriodMs, rates }) => rates.map((rate) => sweepPoint(source, seed, updatePeriodMs, rate)));
  const capacity = SWEEP_GRID.map(({ updatePeriodMs }) => finding(points.filter((p) => p.updatePeriodMs === updatePeriodMs), updatePeriodMs));
  return { points, capacity };
}

function sweepPoint(source: ScenarioSource, seed: number, updatePeriodMs: number, rate: number): SweepPoint {
  const scenario = source.inline(
    {
      name: `combat-${rate}-at-${updatePeriodMs}ms`,
      duration: `${SWEEP_MINUTES}m`,
      seed,
      tickMs: updatePeriodMs,
      traffic: { phases: ['join', { kind: 'combat', reliablePerSecond: rate }] },
    },
    [],
  );
  const recorder = new MetricsRecorder();
  const { summary, session } = runScenario(scenario, { preset: 'stock', seed, observer: recorder });
  const trends = seriesTrends(recorder.recorded());
  const params = scenario.params;
  const capacity = (params.datagramsPerUpdate * DATAGRAM_ROOM_BYTES * 1000) / updatePeriodMs;
  const peer = (role: Role): SweepPeer => {
    const p = summary.peers[role];
    const trend = trends.find((t) => t.peer === role && t.metric === 'ackOutbox')?.trend;
    const created = session.peers[role].counters.ackEntriesCreated;
    const offered = (p.gameBytesSent + created * params.ackFreeAtCount * ACK_BYTES) / summary.simulatedSeconds;
    return {
      outboxMax: p.ackOutbox.max,
      outboxFinal: p.ackOutbox.final,
      deadZoneMax: p.ackOutboxDeadZone.max,
      slopePerHour: Math.round(trend?.slopePerHour ?? 0),
      leak: trend?.leak ?? false,
      meanAckBytesPerDatagram: Math.round((p.ackBytesSent / Math.max(1, p.packetsSent)) * 10) / 10,
      dedupMaxPerSecond: p.dedupComparisons.maxPerSecond,
      offeredBytesPerSecond: Math.round(offered),
      load: Math.round((offered / capacity) * 100) / 100,
    };
  };
  return { updatePeriodMs, reliablePerSecond: rate, capacityBytesPerSecond: Math.round(capacity), peers: { server: peer('server'), client: peer('client') } };
}

function finding(points: SweepPoint[], updatePeriodMs: number): CapacityFinding {
  const capacity = points[0]?.capacityBytesPerSecond ?? 0;
  const first = (role: Role) => points.find((p) => p.peers[role].leak) ?? null;
  const runawayFrom = { server: first('server')?.reliablePerSecond ?? null, client: first('client')?.reliablePerSecond ?? null };
  const loadAtRunaway = { server: first('server')?.peers.server.load ?? null, client: first('client')?.peers.client.load ?? null };
  // The highest swept rate still bounded below the first runaway.
  const bounded = (role: Role) => [...points].reverse().find((p) => !p.peers[role].leak && (runawayFrom[role] === null || p.reliablePerSecond < (runawayFrom[role] as number))) ?? null;
  const say = (role: Role) => {
    const from = runawayFrom[role];
    const last = bounded(role);
    const lastText = last ? `bounded up to ${last.reliablePerSecond}/s (load ${last.peers[role].load.toFixed(2)})` : 'never bounded';
    return from === null ? `the ${role}'s stays bounded at every swept rate` : `the ${role}'s is ${lastText} and grows without bound from ${from}/s (load ${loadAtRunaway[role]?.toFixed(2)})`;
  };
  const sentence =
    `At ${updatePeriodMs} ms updates a peer can send 510 B × 1 datagram per update = ${capacity.toLocaleString('en-US')} B/s. ` +
    `Its load is the game bytes it sends plus 9 × 4 ACK bytes per received reliable message, over that capacity; ${say('server')}; ${say('client')}. ` +
    `Pass 2 only gets what the earlier steps leave, so stranded entries stop advancing once the load nears 1: the threshold moves with the update period.`;
  return { updatePeriodMs, capacityBytesPerSecond: capacity, runawayFrom, loadAtRunaway, sentence };
}
