// The stock ACK-outbox under rising reliable rates, for both peers, two update
// periods and several seeds (built on the sweep
// grid, every seed shown). Each point also carries the capacity relation: a
// peer can send datagramsPerUpdate × 510 bytes per update period, and must send
// its game bytes plus ackFreeAtCount ACK sends per entry.
import { perSecondOverMs } from '../../core/engine/index.js';
import { ACK_BYTES, DATAGRAM_ROOM_BYTES } from '../../core/codec/index.js';
import { MetricsRecorder, seriesTrends, statOf } from '../../model/metrics/index.js';
import type { Stat } from '../../model/metrics/index.js';
import { cells, comboSets } from '../../model/scenario/index.js';
import type { GridSpec } from '../../model/scenario/index.js';
import { runScenario } from '../../model/session/index.js';
import type { Role } from '../../model/transport/index.js';
import type { ScenarioSource } from './evidence.js';

interface SweepPeer {
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

/** One run of the grid: one update period, rate and seed. */
interface SweepPoint {
  /** Its index in its update period's grid (rates × seeds, seeds innermost). */
  readonly index: number;
  readonly updatePeriodMs: number;
  readonly reliablePerSecond: number;
  readonly seed: number;
  readonly capacityBytesPerSecond: number;
  readonly peers: Record<Role, SweepPeer>;
}

/** One rate over every seed, per peer: the outbox peak's min/median/max and how many seeds leaked. */
interface SweepRange {
  readonly updatePeriodMs: number;
  readonly reliablePerSecond: number;
  readonly peers: Record<
    Role,
    { readonly outboxMax: Stat; readonly load: Stat; readonly leakingSeeds: number; readonly seeds: number }
  >;
}

interface CapacityFinding {
  readonly updatePeriodMs: number;
  readonly capacityBytesPerSecond: number;
  /** First swept rate at which each peer's outbox grew without bound for every seed; null = none did. */
  readonly runawayFrom: Record<Role, number | null>;
  /** The median load over the seeds at that rate. */
  readonly loadAtRunaway: Record<Role, number | null>;
  readonly sentence: string;
}

export interface SweepResult {
  readonly seeds: number[];
  readonly points: SweepPoint[];
  readonly ranges: SweepRange[];
  readonly capacity: CapacityFinding[];
}

const SWEEP_MINUTES = 10;
/** Seeds per rate: the given seed and the next ones. */
const SWEEP_SEEDS = 3;
const RATE_PATH = 'traffic.phases[1].reliablePerSecond';
/**
 * The top rates stay where a runaway outbox is still far from holding all
 * 65,536 seqs of one category in 10 minutes: at 600/s and 33 ms it fills them,
 * old seqs come round and refresh stranded entries instead of adding new ones,
 * and the outbox saturates instead of growing.
 */
const SWEEP_GRID: ReadonlyArray<{ updatePeriodMs: number; rates: readonly number[] }> = [
  { updatePeriodMs: 95, rates: [4.9, 30, 60, 90, 120, 150, 180] },
  { updatePeriodMs: 33, rates: [120, 240, 360, 480] },
];

const ROLES: readonly Role[] = ['server', 'client'];

/** How many runs the sweep makes. */
export function sweepSize(seedCount = SWEEP_SEEDS): number {
  return SWEEP_GRID.reduce((sum, g) => sum + g.rates.length * seedCount, 0);
}

export function sweepAckOutbox(
  source: ScenarioSource,
  seed: number,
  seedCount = SWEEP_SEEDS,
  onPoint?: (step: string, done: number) => void,
): SweepResult {
  const seeds = Array.from({ length: seedCount }, (_, i) => seed + i);
  const points: SweepPoint[] = [];
  for (const { updatePeriodMs, rates } of SWEEP_GRID) {
    // The sweep grid: one mode, the rate varied, the seeds innermost (as `bcsim sweep` orders them).
    const spec: GridSpec = {
      modes: ['stock'],
      varies: [{ path: RATE_PATH, values: rates.map((r) => ({ text: String(r), value: r })) }],
      seeds,
    };
    for (const cell of cells(spec)) {
      points.push(
        sweepPoint(source, cell.index, cell.seed, comboSets(spec, cell.combo), updatePeriodMs, rates[cell.combo[0]]),
      );
      onPoint?.(`sweep ${updatePeriodMs} ms, ${rates[cell.combo[0]]}/s, seed ${cell.seed}`, points.length);
    }
  }
  const ranges = SWEEP_GRID.flatMap(({ updatePeriodMs, rates }) =>
    rates.map((rate) =>
      rangeOf(points.filter((p) => p.updatePeriodMs === updatePeriodMs && p.reliablePerSecond === rate)),
    ),
  );
  const capacity = SWEEP_GRID.map(({ updatePeriodMs }) =>
    finding(
      ranges.filter((r) => r.updatePeriodMs === updatePeriodMs),
      points.find((p) => p.updatePeriodMs === updatePeriodMs)?.capacityBytesPerSecond ?? 0,
      updatePeriodMs,
    ),
  );
  return { seeds, points, ranges, capacity };
}

function sweepPoint(
  source: ScenarioSource,
  index: number,
  seed: number,
  sets: string[],
  updatePeriodMs: number,
  rate: number,
): SweepPoint {
  const scenario = source.inline(
    {
      name: `combat-${rate}-at-${updatePeriodMs}ms`,
      duration: `${SWEEP_MINUTES}m`,
      seed,
      tickMs: updatePeriodMs,
      traffic: { phases: ['join', { kind: 'combat', reliablePerSecond: 1 }] },
    },
    sets,
  );
  const recorder = new MetricsRecorder();
  const { summary, session } = runScenario(scenario, { preset: 'stock', seed, observer: recorder });
  const trends = seriesTrends(recorder.recorded());
  const params = scenario.params;
  const capacity = perSecondOverMs(params.datagramsPerUpdate * DATAGRAM_ROOM_BYTES, updatePeriodMs);
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
  return {
    index,
    updatePeriodMs,
    reliablePerSecond: rate,
    seed,
    capacityBytesPerSecond: Math.round(capacity),
    peers: { server: peer('server'), client: peer('client') },
  };
}

function rangeOf(points: SweepPoint[]): SweepRange {
  const peers = {} as SweepRange['peers'];
  for (const role of ROLES) {
    peers[role] = {
      outboxMax: statOf(points.map((p) => p.peers[role].outboxMax)) as Stat,
      load: statOf(points.map((p) => p.peers[role].load)) as Stat,
      leakingSeeds: points.filter((p) => p.peers[role].leak).length,
      seeds: points.length,
    };
  }
  return { updatePeriodMs: points[0].updatePeriodMs, reliablePerSecond: points[0].reliablePerSecond, peers };
}

function finding(ranges: SweepRange[], capacity: number, updatePeriodMs: number): CapacityFinding {
  const leaks = (r: SweepRange, role: Role) => r.peers[role].leakingSeeds === r.peers[role].seeds;
  const bounded = (r: SweepRange, role: Role) => r.peers[role].leakingSeeds === 0;
  const first = (role: Role) => ranges.find((r) => leaks(r, role)) ?? null;
  const runawayFrom = {
    server: first('server')?.reliablePerSecond ?? null,
    client: first('client')?.reliablePerSecond ?? null,
  };
  const loadAtRunaway = {
    server: first('server')?.peers.server.load.median ?? null,
    client: first('client')?.peers.client.load.median ?? null,
  };
  // The highest swept rate still bounded (for every seed) below the first runaway.
  const lastBounded = (role: Role) =>
    [...ranges]
      .reverse()
      .find(
        (r) => bounded(r, role) && (runawayFrom[role] === null || r.reliablePerSecond < (runawayFrom[role] as number)),
      ) ?? null;
  const seeds = ranges[0]?.peers.server.seeds ?? 0;
  const say = (role: Role) => {
    const from = runawayFrom[role];
    const last = lastBounded(role);
    const lastText = last
      ? `bounded up to ${last.reliablePerSecond}/s (load ${last.peers[role].load.median.toFixed(2)})`
      : 'never bounded';
    return from === null
      ? `the ${role}'s stays bounded at every swept rate`
      : `the ${role}'s is ${lastText} and grows without bound from ${from}/s (load ${loadAtRunaway[role]?.toFixed(2)})`;
  };
  const sentence =
    `At ${updatePeriodMs} ms updates a peer can send ${DATAGRAM_ROOM_BYTES} B × 1 datagram per update = ${capacity.toLocaleString('en-US')} B/s. ` +
    `Its load is the game bytes it sends plus 9 × ${ACK_BYTES} ACK bytes per received reliable message, over that capacity; over ${seeds} seeds, ${say('server')}; ${say('client')}. ` +
    `Pass 2 only gets what the earlier steps leave, so stranded entries stop advancing once the load nears 1: the threshold moves with the update period.`;
  return { updatePeriodMs, capacityBytesPerSecond: capacity, runawayFrom, loadAtRunaway, sentence };
}
