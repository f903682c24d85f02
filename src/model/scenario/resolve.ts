// Validated input -> resolved Scenario: defaults, unit conversion and the
// cross-field rules a schema cannot express. Errors carry the JSON path.
import {
  LimitError,
  countOverUs,
  formatDuration,
  micros,
  perSecondOverMs,
  usToMs,
  usToSeconds,
} from '../../core/engine/index.js';
import type { Micros, MicrosIn } from '../../core/engine/index.js';
import { PERFECT_LINK } from '../link/index.js';
import type { DropRule, LinkConfig, LossModel } from '../link/index.js';
import {
  DEFAULT_JOIN_STAGGER_US,
  DEFAULT_PLAN,
  MEASURED_STATE_UPDATES_PER_DIRECTION,
  RELIABLE_RATE_PRESETS,
  SHIP_SELECTION_MS,
  isEventPhase,
} from '../traffic/index.js';
import type { Deaths, Phase, TrafficPlan } from '../traffic/index.js';
import { DEFAULT_PARAMS } from '../transport/index.js';
import { ScenarioError } from './errors.js';
import { resolveManifest } from './resolve-manifest.js';
import { MAX_CLIENTS } from './schema-fields.js';
import type { LinkDirectionInput, ScenarioInput } from './schema.js';
import type { Expectations, Scenario, ScenarioParams } from './scenario.js';

const DEFAULT_DURATION_US = micros(120_000_000);
const DEFAULT_SEED = 1;
const DEFAULT_CLIENT_TICK_OFFSET_MS = 47;

type Fail = (path: string, reason: string) => never;

export function resolveScenario(input: ScenarioInput, source: string, overrides: readonly string[] = []): Scenario {
  const fail: Fail = (path, reason) => {
    throw new ScenarioError(source, path, reason);
  };
  const { preset, ...switchOverrides } = input.mode ?? { preset: 'stock' };
  const { updatePeriodMs, ...transport } = input.transport ?? {};
  // tickMs sets both roles; transport.updatePeriodMs sets each (docs/sources.md 17).
  const tickMs = input.tickMs ?? DEFAULT_PARAMS.tickMs;
  const periods = { server: updatePeriodMs?.server ?? tickMs, client: updatePeriodMs?.client ?? tickMs };
  const params: ScenarioParams = {
    ...DEFAULT_PARAMS,
    clientTickOffsetMs: DEFAULT_CLIENT_TICK_OFFSET_MS,
    ...stripUndefined(transport),
    tickMs: periods.server,
    updatePeriodMs: periods,
  };
  if (params.ackFreeAtCount <= params.ackPassOneLimit)
    fail('transport.ackFreeAtCount', `must be greater than ackPassOneLimit (${params.ackPassOneLimit})`);
  const durationUs = input.duration ?? DEFAULT_DURATION_US;
  if (durationUs <= 0) fail('duration', 'expected a duration > 0');
  const clients = input.clients ?? 1;
  const links = resolveLinks(input.link, clients, fail);
  return {
    name: input.name,
    description: input.description ?? '',
    source,
    durationUs,
    seed: input.seed ?? DEFAULT_SEED,
    preset,
    switchOverrides: stripUndefined(switchOverrides),
    params,
    clients,
    link: links[0],
    clientLinks: links,
    traffic: resolveTraffic(input.traffic, clients, fail),
    expect: (input.expect ?? {}) as Expectations,
    overrides,
  };
}

type LinkBlock = {
  both?: LinkDirectionInput;
  clientToServer?: LinkDirectionInput;
  serverToClient?: LinkDirectionInput;
};

/**
 * Each client's two links: the shared block, then the client's own block in
 * link.clients["k"] on top, direction by direction.
 */
function resolveLinks(input: ScenarioInput['link'], clients: number, fail: Fail): Scenario['clientLinks'] {
  const shared: LinkBlock = input ?? {};
  checkBlock(shared, 'link', fail);
  for (const key of Object.keys(input?.clients ?? {})) {
    const path = `link.clients[${JSON.stringify(key)}]`;
    if (!/^(?:[1-9]|1[0-6])$/.test(key)) fail(path, `expected a client number 1..${MAX_CLIENTS} as the key`);
    if (Number(key) > clients)
      fail(path, `no such client: the scenario has ${clients} client${clients === 1 ? '' : 's'}`);
    checkBlock((input?.clients ?? {})[key], path, fail);
  }
  const result: Array<Scenario['link']> = [];
  for (let k = 1; k <= clients; k++) {
    const own: LinkBlock = input?.clients?.[String(k)] ?? {};
    const direction = (name: 'clientToServer' | 'serverToClient') =>
      resolveLink(
        mergeLink(mergeLink(shared.both ?? {}, shared[name] ?? {}), mergeLink(own.both ?? {}, own[name] ?? {})),
      );
    result.push({ clientToServer: direction('clientToServer'), serverToClient: direction('serverToClient') });
  }
  return result;
}

/** Rules inside one block are checked where they were written, before merging. */
function checkBlock(block: LinkBlock, path: string, fail: Fail): void {
  for (const name of ['both', 'clientToServer', 'serverToClient'] as const) {
    const d = block[name];
    if (d) checkLinkBlock(d, `${path}.${name}`, fail);
  }
}

function checkLinkBlock(d: LinkDirectionInput, path: string, fail: Fail): void {
  if (d.loss !== undefined && d.gilbertElliott !== undefined)
    fail(`${path}.gilbertElliott`, 'give either loss (Bernoulli) or gilbertElliott, not both');
  const ge = d.gilbertElliott;
  if (ge && ge.pGoodToBad + ge.pBadToGood === 0)
    fail(`${path}.gilbertElliott`, 'pGoodToBad and pBadToGood cannot both be 0');
  (d.outages ?? []).forEach((o, i) => {
    if (o.end <= o.start) fail(`${path}.outages[${i}].end`, `must be after start (${formatDuration(o.start)})`);
  });
  (d.drop ?? []).forEach((rule, i) => {
    if (rule.from !== undefined && rule.until !== undefined && rule.until <= rule.from)
      fail(`${path}.drop[${i}].until`, 'must be after from');
  });
  // One decision of each action per datagram; a delay without its delayMs means nothing.
  const seen = new Set<string>();
  (d.faults ?? []).forEach((f, i) => {
    const key = `${f.datagram}:${f.action}`;
    if (seen.has(key)) fail(`${path}.faults[${i}]`, `a second "${f.action}" for datagram ${f.datagram}`);
    seen.add(key);
    if (f.action === 'delay' && f.delayMs === undefined) fail(`${path}.faults[${i}].delayMs`, 'a delay needs delayMs');
    if (f.action === 'drop' && f.delayMs !== undefined) fail(`${path}.faults[${i}].delayMs`, 'a drop has no delayMs');
  });
}

/** Merges a direction over `both`; a direction's own loss model replaces both's. */
function mergeLink(both: LinkDirectionInput, own: LinkDirectionInput): LinkDirectionInput {
  const merged = { ...both, ...stripUndefined(own) };
  if (own.loss !== undefined) delete merged.gilbertElliott;
  if (own.gilbertElliott !== undefined) delete merged.loss;
  return merged;
}

function resolveLink(d: LinkDirectionInput): LinkConfig {
  let loss: LossModel = { model: 'none' };
  if (d.gilbertElliott) {
    const ge = d.gilbertElliott;
    loss = {
      model: 'gilbert-elliott',
      pGoodToBad: ge.pGoodToBad,
      pBadToGood: ge.pBadToGood,
      lossGood: ge.lossGood ?? 0,
      lossBad: ge.lossBad ?? 1,
    };
  } else if (d.loss !== undefined && d.loss > 0) {
    loss = { model: 'bernoulli', probability: d.loss };
  }
  const outages = (d.outages ?? []).map((o) => ({ startMs: usToMs(o.start), endMs: usToMs(o.end) }));
  const dropRules: DropRule[] = (d.drop ?? []).map((rule) => {
    return {
      scope: rule.scope ?? 'datagram',
      match: stripUndefined(rule.match),
      firstN: rule.first ?? null,
      probability: rule.probability ?? 1,
      fromMs: rule.from === undefined ? null : usToMs(rule.from),
      untilMs: rule.until === undefined ? null : usToMs(rule.until),
    };
  });
  return {
    latency: { baseMs: d.latencyMs ?? 0, jitterMs: d.jitterMs ?? 0, distribution: d.jitter ?? 'uniform' },
    loss,
    duplicate: { probability: d.duplicate ?? 0, extraDelayMs: d.duplicateDelayMs ?? 0 },
    reorder: { probability: d.reorder ?? 0, gap: d.reorderGap ?? 1 },
    bandwidth: {
      bytesPerSecond: d.bandwidthBytesPerSecond ?? null,
      burstBytes: d.burstBytes ?? PERFECT_LINK.bandwidth.burstBytes,
      queueLimitPackets: d.queueLimitPackets ?? PERFECT_LINK.bandwidth.queueLimitPackets,
    },
    slot: { intervalMs: d.slotMs ?? null },
    outages,
    dropRules,
    // Only when given: a link without a list keeps its random processes (and its trace hash).
    ...(d.faults === undefined
      ? {}
      : {
          faults: d.faults.map((f) => ({
            atUs: f.at,
            datagram: f.datagram,
            action: f.action,
            ...(f.delayMs === undefined ? {} : { delayMs: f.delayMs }),
          })),
        }),
  };
}

const STATE_UPDATE_BYTES = { min: 15, max: 25 };

/** What combat and lull share: StateUpdates flow (in game), at a rate and size. */
function inGame(p: {
  duration?: Micros;
  stateUpdatesPerSecond?: number;
  stateUpdateBytes?: [number, number];
  arrival?: 'poisson' | 'periodic';
}) {
  return {
    durationUs: p.duration ?? null,
    stateUpdatesPerSecond: p.stateUpdatesPerSecond ?? MEASURED_STATE_UPDATES_PER_DIRECTION,
    stateUpdateBytes: p.stateUpdateBytes
      ? { min: p.stateUpdateBytes[0], max: p.stateUpdateBytes[1] }
      : STATE_UPDATE_BYTES,
    arrival: p.arrival ?? 'poisson',
  };
}

function resolveTraffic(input: ScenarioInput['traffic'], clients: number, fail: Fail): TrafficPlan {
  const joinStaggerUs = input?.joinStagger ?? DEFAULT_JOIN_STAGGER_US;
  const manifest = resolveManifest(input?.manifest, fail);
  const treeHashing = input?.treeHashing ?? DEFAULT_PLAN.treeHashing;
  const round2ThinkMs = input?.round2ThinkMs ?? DEFAULT_PLAN.round2ThinkMs;
  const serverChecks = input?.serverChecks ?? DEFAULT_PLAN.serverChecks;
  const deaths = resolveDeaths(input?.deaths);
  if (!input?.phases) {
    if (input?.repeatFrom !== undefined && input.repeatFrom !== null)
      fail('traffic.repeatFrom', 'needs traffic.phases');
    return { ...DEFAULT_PLAN, joinStaggerUs, manifest, treeHashing, round2ThinkMs, serverChecks, deaths };
  }
  const lateJoiners = new Set<number>();
  const phases: Phase[] = input.phases.map((p, i): Phase => {
    const periods =
      'updatePeriodMs' in p && p.updatePeriodMs ? { updatePeriodMs: stripUndefined(p.updatePeriodMs) } : {};
    if ('client' in p && p.client !== undefined && p.client > clients) {
      fail(
        `traffic.phases[${i}].client`,
        `no such client: the scenario has ${clients} client${clients === 1 ? '' : 's'}`,
      );
    }
    switch (p.kind) {
      case 'join':
        if (p.client !== undefined) {
          if (lateJoiners.has(p.client))
            fail(`traffic.phases[${i}].client`, `client ${p.client} already joins in an earlier phase`);
          lateJoiners.add(p.client);
          return { kind: p.kind, client: p.client, ...periods };
        }
        return { kind: p.kind, ...periods };
      case 'disconnect':
        return p.client === undefined ? { kind: p.kind } : { kind: p.kind, client: p.client };
      case 'timeout':
        return { kind: p.kind, client: p.client };
      case 'lobby':
        return { kind: 'lobby', durationUs: p.duration ?? null, chatPerMinute: p.chatPerMinute ?? 0, ...periods };
      case 'quiet':
        return { kind: 'quiet', durationUs: p.duration ?? null, ...periods };
      case 'combat':
        return {
          kind: 'combat',
          ...inGame(p),
          reliablePerSecond: p.reliablePerSecond ?? RELIABLE_RATE_PRESETS.measured,
          clientShare: p.clientShare ?? 0.5,
          eventKinds: p.eventKinds ?? null,
          ...periods,
        };
      case 'lull':
        return { kind: 'lull', ...inGame(p), ...periods };
    }
  });
  const repeatFrom = input.repeatFrom ?? null;
  if (repeatFrom !== null) {
    if (repeatFrom >= phases.length)
      fail('traffic.repeatFrom', `expected a phase index below ${phases.length}, got ${repeatFrom}`);
    const cycle = phases.slice(repeatFrom);
    const bad = cycle.findIndex(isEventPhase);
    if (bad >= 0) fail(`traffic.phases[${repeatFrom + bad}]`, `a ${cycle[bad].kind} phase cannot be repeated`);
    if (!cycle.some((p) => 'durationUs' in p && p.durationUs !== null && p.durationUs > 0)) {
      fail('traffic.repeatFrom', 'the repeated phases need at least one phase with a duration > 0');
    }
  }
  return { phases, repeatFrom, joinStaggerUs, manifest, treeHashing, round2ThinkMs, serverChecks, deaths };
}

/**
 * A death's defaults (docs/sources.md 32): poisson arrivals, no explosion, the join's ship
 * selection (~4.5 s), the game fed to a dead player, and no messages.
 */
function resolveDeaths(input: NonNullable<ScenarioInput['traffic']>['deaths']): Deaths | null {
  if (input === undefined) return null;
  const messages = (b: Readonly<Record<string, number | undefined>> | undefined) =>
    stripUndefined(b ?? {}) as Record<string, number>;
  return {
    perMinute: input.perMinute,
    arrival: input.arrival ?? 'poisson',
    explosionMs: input.explosionMs ?? 0,
    selectionMs: input.selectionMs ?? SHIP_SELECTION_MS,
    whileDead: input.whileDead ?? 'game',
    burst: messages(input.burst),
    afterExplosion: messages(input.afterExplosion),
    onPick: messages(input.onPick),
  };
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

// Up-front work estimate: a run that would take hours is
// refused before it starts. It counts the events the engine will dispatch:
// network updates, traffic arrivals, datagram arrivals (with duplicates) and
// phase changes. Retransmits are not counted; on the built-ins it is within
// 20% of the real count (server-8's is the widest: 0.80 of the estimate). The budget, 1e9 events, is ~4 min of idle updates
// (~4 M events/s) and about an hour of heavy-combat traffic (~0.3 M events/s).
export const MAX_ESTIMATED_EVENTS = 1e9;
/** A ship death's timers: the death, the end of its explosion, the pick and the first StateUpdate. */
const DEATH_TIMERS = 4;
/** Events to enter a phase: its end timer and up to three arrival sources. */
const PHASE_ENTRY_EVENTS = 4;

/** Roughly how many events a run of `durationUs` dispatches. */
export function estimateEvents(scenario: Scenario, durationUs: MicrosIn = scenario.durationUs): number {
  const seconds = usToSeconds(durationUs);
  const p = scenario.params;
  // Every update of both roles at the fastest period any phase asks for: an upper bound.
  const fastest = (role: 'server' | 'client') =>
    Math.min(
      p.updatePeriodMs[role],
      ...scenario.traffic.phases.map((phase) =>
        'updatePeriodMs' in phase ? (phase.updatePeriodMs?.[role] ?? Infinity) : Infinity,
      ),
    );
  const n = scenario.clients;
  // One server loop (sending to n peers) and n client loops.
  const updatesPerSecond = perSecondOverMs(1, fastest('server')) + perSecondOverMs(n, fastest('client'));
  const maxDatagramsPerSecond =
    n * (perSecondOverMs(1, fastest('server')) + perSecondOverMs(1, fastest('client'))) * p.datagramsPerUpdate;
  const dup =
    1 +
    Math.max(
      ...scenario.clientLinks.map((l) =>
        Math.max(l.clientToServer.duplicate.probability, l.serverToClient.duplicate.probability),
      ),
    );
  // Each datagram arrival is an event; a busy peer sends at most datagramsPerUpdate per update.
  // A ship death is four timers (the death, the explosion's end, the pick, the first StateUpdate); its
  // messages reach every player, each one ACKed.
  const deaths = scenario.traffic.deaths;
  const count = (b: Readonly<Record<string, number>>) => Object.values(b).reduce((a, c) => a + c, 0);
  const burst = deaths === null ? 0 : count(deaths.burst) + count(deaths.afterExplosion) + count(deaths.onPick);
  const deathRates = (phase: Phase) =>
    phase.kind === 'combat' && deaths !== null
      ? { timers: (DEATH_TIMERS * deaths.perMinute) / 60, datagrams: (2 * n * burst * deaths.perMinute) / 60 }
      : { timers: 0, datagrams: 0 };
  const perSecond = (phase: Phase): number => {
    const t = phaseRates(phase, p.fragmentChunkBytes, n);
    const d = deathRates(phase);
    return t.timers + d.timers + Math.min(maxDatagramsPerSecond, t.datagrams + d.datagrams) * dup;
  };
  // Every update is an event, busy or not, plus the once-a-second sampler.
  return (updatesPerSecond + 1) * seconds + planWork(scenario.traffic, durationUs, perSecond);
}

/** Timer events and datagrams per second a phase adds. */
function phaseRates(phase: Phase, chunkBytes: number, n: number): { timers: number; datagrams: number } {
  // A message each player originates reaches every connection (the relay), so a
  // connection carries its own rate plus (n - 1) x the client share of it.
  const perConnection = (rate: number, clientShare: number) => rate * (1 + (n - 1) * clientShare);
  const origins = (rate: number, clientShare: number) => rate * (n * clientShare + 1 - clientShare);
  switch (phase.kind) {
    case 'join':
    case 'disconnect':
    case 'timeout':
    case 'quiet':
      return { timers: 0, datagrams: 0 };
    case 'lobby': {
      const chat = phase.chatPerMinute / 60;
      return { timers: origins(chat, 0.5), datagrams: 2 * n * perConnection(chat, 0.5) }; // a message and its ACK
    }
    case 'combat':
    case 'lull': {
      // A StateUpdate larger than a fragment goes out as reliable fragments, each ACKed.
      const payload = phase.stateUpdateBytes.max - 3;
      const pieces = payload > chunkBytes ? 2 * Math.ceil(payload / chunkBytes) : 1;
      const stateUpdates = 2 * n * phase.stateUpdatesPerSecond;
      const events = phase.kind === 'combat' ? origins(phase.reliablePerSecond, phase.clientShare) : 0;
      const reliable = phase.kind === 'combat' ? n * perConnection(phase.reliablePerSecond, phase.clientShare) : 0;
      // StateUpdates are drawn at their sender's update tick: they add datagrams, not timers.
      return { timers: events, datagrams: stateUpdates * pieces + 2 * reliable };
    }
  }
}

/** Sum of perSecond(phase) x time in phase over [0, durationUs), cycles in closed form. */
function planWork(plan: TrafficPlan, durationUs: number, perSecond: (phase: Phase) => number): number {
  let t = 0;
  let work = 0;
  /** Walks one phase; false once the run (or an open-ended phase) ends. */
  const step = (phase: Phase): boolean => {
    const length = isEventPhase(phase) ? 0 : (phase.durationUs ?? Number.POSITIVE_INFINITY);
    const span = Math.min(length, durationUs - t);
    work += countOverUs(perSecond(phase), span) + PHASE_ENTRY_EVENTS;
    t += span;
    return t < durationUs && length !== Number.POSITIVE_INFINITY;
  };
  for (const phase of plan.phases) if (!step(phase)) return work;
  if (plan.repeatFrom === null) return work;
  const cycle = plan.phases.slice(plan.repeatFrom);
  // resolveScenario guarantees the cycle has a phase with a duration > 0 and none open-ended.
  const cycleUs = cycle.reduce((sum, phase) => sum + ('durationUs' in phase ? (phase.durationUs ?? 0) : 0), 0);
  const cycleWork = cycle.reduce(
    (sum, phase) =>
      sum + countOverUs(perSecond(phase), 'durationUs' in phase ? (phase.durationUs ?? 0) : 0) + PHASE_ENTRY_EVENTS,
    0,
  );
  const full = Math.floor((durationUs - t) / cycleUs);
  work += full * cycleWork;
  t += full * cycleUs;
  for (const phase of cycle) if (!step(phase)) break;
  return work;
}

/**
 * Refuses a run whose estimate is over MAX_ESTIMATED_EVENTS, for the duration it
 * will really run (a --duration flag included), before it starts.
 */
export function checkWorkBudget(scenario: Scenario, durationUs: MicrosIn = scenario.durationUs): void {
  const events = estimateEvents(scenario, durationUs);
  if (events <= MAX_ESTIMATED_EVENTS) return;
  throw new LimitError(
    `${scenario.source}: too much work: about ${(events / 1e9).toFixed(1)} billion events estimated for ${formatDuration(durationUs)}, the budget is ${MAX_ESTIMATED_EVENTS / 1e9} billion (hours of CPU); shorten the run or lower tickMs, datagramsPerUpdate or the traffic rates`,
  );
}
