// Validated input -> resolved Scenario: defaults, unit conversion and the
// cross-field rules a schema cannot express. Errors carry the JSON path.
import { formatDuration } from '../engine/index.js';
import { PERFECT_LINK } from '../link/config.js';
import type { DropRule, LinkConfig, LossModel } from '../link/config.js';
import { DEFAULT_PLAN, MEASURED_STATE_UPDATES_PER_DIRECTION, RELIABLE_RATE_PRESETS } from '../traffic/plan.js';
import type { Phase, TrafficPlan } from '../traffic/plan.js';
import { DEFAULT_PARAMS } from '../transport/switches.js';
import type { PresetName } from '../transport/switches.js';
import { ScenarioError } from './errors.js';
import type { LinkDirectionInput, ScenarioInput } from './schema.js';
import type { Expectations, Scenario, ScenarioParams, SwitchOverrides } from './scenario.js';

export const DEFAULT_DURATION_US = 120_000_000;
export const DEFAULT_SEED = 1;
export const DEFAULT_CLIENT_TICK_OFFSET_MS = 47;

type Fail = (path: string, reason: string) => never;

export function resolveScenario(input: ScenarioInput, source: string, overrides: readonly string[] = []): Scenario {
  const fail: Fail = (path, reason) => {
    throw new ScenarioError(source, path, reason);
  };
  const { preset, ...switchOverrides } = input.mode ?? { preset: 'stock' };
  const params: ScenarioParams = {
    ...DEFAULT_PARAMS,
    clientTickOffsetMs: DEFAULT_CLIENT_TICK_OFFSET_MS,
    ...stripUndefined(input.transport ?? {}),
    tickMs: input.tickMs ?? DEFAULT_PARAMS.tickMs,
  };
  if (params.ackFreeAtCount <= params.ackPassOneLimit) fail('transport.ackFreeAtCount', `must be greater than ackPassOneLimit (${params.ackPassOneLimit})`);
  const durationUs = input.duration ?? DEFAULT_DURATION_US;
  if (durationUs <= 0) fail('duration', 'expected a duration > 0');
  const both = input.link?.both ?? {};
  // Rules inside one block are checked where they were written, before merging.
  for (const name of ['both', 'clientToServer', 'serverToClient'] as const) {
    const block = input.link?.[name];
    if (block) checkLinkBlock(block, `link.${name}`, fail);
  }
  return {
    name: input.name,
    description: input.description ?? '',
    source,
    durationUs,
    seed: input.seed ?? DEFAULT_SEED,
    preset: preset as PresetName,
    switchOverrides: stripUndefined(switchOverrides) as SwitchOverrides,
    params,
    link: {
      clientToServer: resolveLink(mergeLink(both, input.link?.clientToServer ?? {})),
      serverToClient: resolveLink(mergeLink(both, input.link?.serverToClient ?? {})),
    },
    traffic: resolveTraffic(input.traffic, fail),
    expect: (input.expect ?? {}) as Expectations,
    overrides,
  };
}

function checkLinkBlock(d: LinkDirectionInput, path: string, fail: Fail): void {
  if (d.loss !== undefined && d.gilbertElliott !== undefined) fail(`${path}.gilbertElliott`, 'give either loss (Bernoulli) or gilbertElliott, not both');
  const ge = d.gilbertElliott;
  if (ge && ge.pGoodToBad + ge.pBadToGood === 0) fail(`${path}.gilbertElliott`, 'pGoodToBad and pBadToGood cannot both be 0');
  (d.outages ?? []).forEach((o, i) => {
    if (o.end <= o.start) fail(`${path}.outages[${i}].end`, `must be after start (${formatDuration(o.start)})`);
  });
  (d.drop ?? []).forEach((rule, i) => {
    if (rule.from !== undefined && rule.until !== undefined && rule.until <= rule.from) fail(`${path}.drop[${i}].until`, 'must be after from');
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
    loss = { model: 'gilbert-elliott', pGoodToBad: ge.pGoodToBad, pBadToGood: ge.pBadToGood, lossGood: ge.lossGood ?? 0, lossBad: ge.lossBad ?? 1 };
  } else if (d.loss !== undefined && d.loss > 0) {
    loss = { model: 'bernoulli', probability: d.loss };
  }
  const outages = (d.outages ?? []).map((o) => ({ startMs: o.start / 1000, endMs: o.end / 1000 }));
  const dropRules: DropRule[] = (d.drop ?? []).map((rule) => {
    return {
      scope: rule.scope ?? 'datagram',
      match: stripUndefined(rule.match),
      firstN: rule.first ?? null,
      probability: rule.probability ?? 1,
      fromMs: rule.from === undefined ? null : rule.from / 1000,
      untilMs: rule.until === undefined ? null : rule.until / 1000,
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
  };
}

const STATE_UPDATE_BYTES = { min: 15, max: 25 };

/** What combat and lull share: StateUpdates flow (in game), at a rate and size. */
function inGame(p: { duration?: number; stateUpdatesPerSecond?: number; stateUpdateBytes?: [number, number]; arrival?: 'poisson' | 'periodic' }) {
  return {
    durationUs: p.duration ?? null,
    stateUpdatesPerSecond: p.stateUpdatesPerSecond ?? MEASURED_STATE_UPDATES_PER_DIRECTION,
    stateUpdateBytes: p.stateUpdateBytes ? { min: p.stateUpdateBytes[0], max: p.stateUpdateBytes[1] } : STATE_UPDATE_BYTES,
    arrival: p.arrival ?? 'poisson',
  };
}

function resolveTraffic(input: ScenarioInput['traffic'], fail: Fail): TrafficPlan {
  if (!input?.phases) {
    if (input?.repeatFrom !== undefined && input.repeatFrom !== null) fail('traffic.repeatFrom', 'needs traffic.phases');
    return DEFAULT_PLAN;
  }
  const phases: Phase[] = input.phases.map((p): Phase => {
    switch (p.kind) {
      case 'join':
      case 'disconnect':
        return { kind: p.kind };
      case 'lobby':
        return { kind: 'lobby', durationUs: p.duration ?? null, chatPerMinute: p.chatPerMinute ?? 0 };
      case 'combat':
        return {
          kind: 'combat',
          ...inGame(p),
          reliablePerSecond: p.reliablePerSecond ?? RELIABLE_RATE_PRESETS.measured,
          clientShare: p.clientShare ?? 0.5,
        };
      case 'lull':
        return { kind: 'lull', ...inGame(p) };
    }
  });
  const repeatFrom = input.repeatFrom ?? null;
  if (repeatFrom !== null) {
    if (repeatFrom >= phases.length) fail('traffic.repeatFrom', `expected a phase index below ${phases.length}, got ${repeatFrom}`);
    const cycle = phases.slice(repeatFrom);
    const bad = cycle.findIndex((p) => p.kind === 'join' || p.kind === 'disconnect');
    if (bad >= 0) fail(`traffic.phases[${repeatFrom + bad}]`, `a ${cycle[bad].kind} phase cannot be repeated`);
    if (!cycle.some((p) => 'durationUs' in p && p.durationUs !== null && p.durationUs > 0)) {
      fail('traffic.repeatFrom', 'the repeated phases need at least one phase with a duration > 0');
    }
  }
  return { phases, repeatFrom };
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
