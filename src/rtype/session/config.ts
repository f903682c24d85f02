// The configuration of one R-Type run: a plain object, defaults of the built-in
// `rtype-deaths` (4 clients, 10 min, 5 % loss, bursts of deaths).
import { PERFECT_LINK } from '../../model/link/index.js';
import type { LinkConfig } from '../../model/link/index.js';
import { DEFAULT_RTYPE_LIMITS, SPEC_TIMING } from '../transport/index.js';
import type { RtypeLimits, RtypePresetName, RtypeSwitches, RtypeTiming } from '../transport/index.js';

export interface RtypeWorkload {
  /** Single deaths per second of game time, Poisson per frame (the game steps once per frame). */
  readonly deathsPerSecond: number;
  /** Bursts per minute; a burst is `burstSize` deaths in one tick. */
  readonly burstsPerMinute: number;
  readonly burstSize: number;
  /** Bursts at fixed times (tests, reproductions): in the first frame at or after atMs. */
  readonly scriptedBursts: ReadonlyArray<{ readonly atMs: number; readonly size: number }>;
  /** Position updates (ack 0) the server broadcasts each frame. */
  readonly positionsPerFrame: number;
  /** A client's ordinary-datagram period; null: it never sends one (and never confirms over UDP). */
  readonly clientSendIntervalMs: number | null;
  /** Client k joins at firstJoinMs + (k - 1) × joinSpacingMs, after the server started. */
  readonly firstJoinMs: number;
  readonly joinSpacingMs: number;
  /** A client repeats its zero-length registration this often until it hears from the server. */
  readonly registerRetryMs: number;
}

export interface RtypeLinks {
  readonly serverToClient: LinkConfig;
  readonly clientToServer: LinkConfig;
}

/** The TCP confirmation channel: in order, lossless, its own latency; an outage holds messages. */
export interface RtypeTcpConfig {
  readonly latencyMs: number;
  readonly outages: ReadonlyArray<{ readonly startMs: number; readonly endMs: number }>;
  readonly maxInFlight: number;
}

export interface RtypeConfig {
  readonly clients: number;
  readonly durationMs: number;
  readonly preset: RtypePresetName;
  /** Switches changed from the preset. */
  readonly switches: Partial<RtypeSwitches>;
  readonly timing: RtypeTiming;
  readonly limits: RtypeLimits;
  readonly workload: RtypeWorkload;
  /** Every client's links, unless clientLinks[k - 1] replaces a direction. */
  readonly links: RtypeLinks;
  readonly clientLinks: ReadonlyArray<Partial<RtypeLinks> | null>;
  readonly tcp: RtypeTcpConfig;
  /** Store and pending-list sizes are sampled this often (simulated time). */
  readonly sampleEveryMs: number;
  /** Bounds of the measurement: samples kept, deaths tracked by the ledger (hits are counted). */
  readonly maxSamples: number;
  readonly maxDeaths: number;
}

const LOSSY_LINK: LinkConfig = {
  ...PERFECT_LINK,
  latency: { baseMs: 30, jitterMs: 5, distribution: 'uniform' },
  loss: { model: 'bernoulli', probability: 0.05 },
};

/** The built-in `rtype-deaths`. */
export const RTYPE_DEATHS: RtypeConfig = {
  clients: 4,
  durationMs: 600_000,
  preset: 'documented',
  switches: {},
  timing: SPEC_TIMING,
  limits: DEFAULT_RTYPE_LIMITS,
  workload: {
    deathsPerSecond: 1,
    burstsPerMinute: 2,
    burstSize: 8,
    scriptedBursts: [],
    positionsPerFrame: 2,
    clientSendIntervalMs: 50,
    firstJoinMs: 1_000,
    joinSpacingMs: 500,
    registerRetryMs: 500,
  },
  links: { serverToClient: LOSSY_LINK, clientToServer: LOSSY_LINK },
  clientLinks: [],
  tcp: { latencyMs: 40, outages: [], maxInFlight: 100_000 },
  sampleEveryMs: 1_000,
  maxSamples: 100_000,
  maxDeaths: 1_000_000,
};

type DeepPartial<T> =
  T extends ReadonlyArray<unknown> ? T : T extends object ? { readonly [K in keyof T]?: DeepPartial<T[K]> } : T;

/** A config where any field may be left out; arrays and loss models are replaced whole. */
export type RtypeConfigInput = DeepPartial<RtypeConfig>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}

function merge(base: unknown, over: unknown): unknown {
  if (over === undefined) return base;
  // A discriminated union (a loss model) is replaced, never mixed with another variant's fields.
  if (!isPlainObject(base) || !isPlainObject(over) || 'model' in over) return over;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) out[key] = merge(base[key], value);
  return out;
}

/** `input` over `base` (rtype-deaths by default). Validate the result with validateRtypeConfig. */
export function resolveRtypeConfig(input: RtypeConfigInput = {}, base: RtypeConfig = RTYPE_DEATHS): RtypeConfig {
  return merge(base, input) as RtypeConfig;
}

/** Client k's links (1-based). */
export function linksOf(config: RtypeConfig, client: number): RtypeLinks {
  const own = config.clientLinks[client - 1] ?? null;
  return {
    serverToClient: own?.serverToClient ?? config.links.serverToClient,
    clientToServer: own?.clientToServer ?? config.links.clientToServer,
  };
}
