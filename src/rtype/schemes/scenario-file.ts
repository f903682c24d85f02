// Scheme scenarios: the built-ins a BC scenario file cannot express.
// A small JSON format of its own, validated by hand: the first bad field
// comes back as one line naming the file and the field. A BC scenario never has a
// `scheme` key (its schema refuses unknown keys), so the key tells the formats apart.
import { MS_PER_SECOND, parseDuration, usToMs } from '../../core/engine/index.js';
import { jsonTextProblem, withoutByteOrderMark } from '../../model/scenario/index.js';
import { RTYPE_DEATHS } from '../session/index.js';
import type { RtypeWorkload } from '../session/index.js';
import { SchemeScenarioError, integerIn, numberIn, objectAt, unknownKeys } from './checks.js';

export type SchemeKind = 'rtype' | 'side-by-side';
export const SCHEME_KINDS: readonly SchemeKind[] = ['rtype', 'side-by-side'];

/** Both directions of every client's link: the same on every scheme. */
export interface SchemeLink {
  readonly latencyMs: number;
  readonly jitterMs: number;
  /** Bernoulli loss, each direction. */
  readonly loss: number;
  /** Windows in which every link, both directions (and R-Type's TCP channel), carries nothing. */
  readonly outages: ReadonlyArray<{ readonly startMs: number; readonly endMs: number }>;
}

/**
 * The shared workload of `schemes-side-by-side`: critical events (R-Type deaths, BC
 * reliable game messages) plus frequent unreliable updates (R-Type positions, BC
 * StateUpdates). How each scheme turns it into traffic: bc-side.ts and rtype-side.ts.
 */
export interface SharedWorkload {
  /** Single critical events per second, Poisson. */
  readonly criticalPerSecond: number;
  /** Bursts per minute; a burst is `burstSize` critical events at once. */
  readonly burstsPerMinute: number;
  readonly burstSize: number;
  /** Unreliable updates per 30 Hz frame, each direction and client (1 = 30 per second). */
  readonly updatesPerFrame: number;
}

interface ScenarioCommon {
  readonly name: string;
  readonly description: string;
  /** The file, or "scenarios/schemes/<name>.json" for a built-in. */
  readonly source: string;
  readonly durationMs: number;
  readonly seed: number;
  readonly clients: number;
  readonly link: SchemeLink;
  /** The R-Type confirmation channel's one-way latency (rtype-ack-system.md §3: TCP). */
  readonly tcpLatencyMs: number;
}

/** `bcsim compare <it>` runs the R-Type presets documented, implemented and repaired. */
export interface RtypeSchemeScenario extends ScenarioCommon {
  readonly scheme: 'rtype';
  readonly workload: RtypeWorkload;
}

/** `bcsim compare <it>` runs BC stock, BC fixed, R-Type documented and R-Type repaired. */
export interface SideBySideScenario extends ScenarioCommon {
  readonly scheme: 'side-by-side';
  readonly workload: SharedWorkload;
}

export type SchemeScenario = RtypeSchemeScenario | SideBySideScenario;

/** rtype-deaths' figures (RTYPE_DEATHS): every key a file leaves out. */
const DEFAULTS = { duration: '10m', seed: 1, clients: 4, tcpLatencyMs: 40 };
export const DEFAULT_SCHEME_LINK: SchemeLink = { latencyMs: 30, jitterMs: 5, loss: 0.05, outages: [] };
export const DEFAULT_SHARED_WORKLOAD: SharedWorkload = {
  criticalPerSecond: 1,
  burstsPerMinute: 2,
  burstSize: 8,
  updatesPerFrame: 1,
};

/** Bounds: clients as BC's (1..16); a scheme run is at most a day (the R-Type loop runs every 33 ms). */
export const MAX_SCHEME_CLIENTS = 16;
export const MAX_SCHEME_DURATION_MS = 24 * 3_600_000;
export const MAX_SCHEME_OUTAGES = 100;
const TOP_KEYS = ['name', 'description', 'scheme', 'duration', 'seed', 'clients', 'link', 'tcpLatencyMs', 'workload'];
const LINK_KEYS = ['latencyMs', 'jitterMs', 'loss', 'outages'];
const RTYPE_WORKLOAD_KEYS = Object.keys(RTYPE_DEATHS.workload);
const SHARED_WORKLOAD_KEYS = Object.keys(DEFAULT_SHARED_WORKLOAD);

/** Parses scheme-scenario JSON text; `label` names it in every error. */
export function parseSchemeScenario(fileText: string, label: string): SchemeScenario {
  const text = withoutByteOrderMark(fileText);
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new SchemeScenarioError(label, '', `invalid JSON: ${(error as Error).message}`);
  }
  const problem = jsonTextProblem(text);
  if (problem) throw new SchemeScenarioError(label, problem.path, problem.reason);
  const top = objectAt(label, '', document);
  unknownKeys(label, '', top, TOP_KEYS);
  if (typeof top.name !== 'string' || !/^[a-z0-9][a-z0-9-]{0,63}$/.test(top.name))
    throw new SchemeScenarioError(
      label,
      'name',
      `expected a name of lowercase letters, digits and dashes (at most 64), got ${JSON.stringify(top.name)}`,
    );
  const description = top.description ?? '';
  if (typeof description !== 'string' || description.length > 2_000)
    throw new SchemeScenarioError(label, 'description', 'expected a string of at most 2,000 characters');
  if (!SCHEME_KINDS.includes(top.scheme as SchemeKind))
    throw new SchemeScenarioError(
      label,
      'scheme',
      `expected ${SCHEME_KINDS.map((k) => `"${k}"`).join(' or ')}, got ${JSON.stringify(top.scheme)}`,
    );
  const common: ScenarioCommon = {
    name: top.name,
    description,
    source: label,
    durationMs: durationMs(label, top.duration ?? DEFAULTS.duration),
    seed: integerIn(label, 'seed', top.seed ?? DEFAULTS.seed, 0, 4_294_967_295),
    clients: integerIn(label, 'clients', top.clients ?? DEFAULTS.clients, 1, MAX_SCHEME_CLIENTS),
    link: link(label, top.link),
    tcpLatencyMs: numberIn(label, 'tcpLatencyMs', top.tcpLatencyMs ?? DEFAULTS.tcpLatencyMs, 0, 60_000),
  };
  const given = top.workload === undefined ? {} : objectAt(label, 'workload', top.workload);
  if (top.scheme === 'rtype') {
    unknownKeys(label, 'workload', given, RTYPE_WORKLOAD_KEYS);
    // Keys only here: rtypeConfigOf validates the values with the whole run's config (loadSchemeScenario does, at load).
    return { ...common, scheme: 'rtype', workload: { ...RTYPE_DEATHS.workload, ...(given as Partial<RtypeWorkload>) } };
  }
  unknownKeys(label, 'workload', given, SHARED_WORKLOAD_KEYS);
  const w = { ...DEFAULT_SHARED_WORKLOAD, ...given } as Record<keyof SharedWorkload, unknown>;
  const workload: SharedWorkload = {
    criticalPerSecond: numberIn(label, 'workload.criticalPerSecond', w.criticalPerSecond, 0, 100),
    burstsPerMinute: numberIn(label, 'workload.burstsPerMinute', w.burstsPerMinute, 0, 60),
    burstSize: integerIn(label, 'workload.burstSize', w.burstSize, 1, 100),
    updatesPerFrame: integerIn(label, 'workload.updatesPerFrame', w.updatesPerFrame, 0, 10),
  };
  return { ...common, scheme: 'side-by-side', workload };
}

function durationMs(label: string, value: unknown, path = 'duration', minMs = MS_PER_SECOND): number {
  const us = typeof value === 'string' ? parseDuration(value) : null;
  const ms = us === null ? null : usToMs(us);
  if (ms === null || ms < minMs || ms > MAX_SCHEME_DURATION_MS)
    throw new SchemeScenarioError(
      label,
      path,
      `expected a duration ${minMs === 0 ? 'from 0s' : 'from 1s'} to 24h like "30s", "10m" or "1h30m", got ${JSON.stringify(value)}`,
    );
  return ms;
}

function outages(label: string, value: unknown): SchemeLink['outages'] {
  if (!Array.isArray(value) || value.length > MAX_SCHEME_OUTAGES)
    throw new SchemeScenarioError(
      label,
      'link.outages',
      `expected a list of at most ${MAX_SCHEME_OUTAGES} windows like {"start":"5m","end":"5m10s"}`,
    );
  return value.map((item, i) => {
    const path = `link.outages[${i}]`;
    const window = objectAt(label, path, item);
    unknownKeys(label, path, window, ['start', 'end']);
    const startMs = durationMs(label, window.start, `${path}.start`, 0);
    const endMs = durationMs(label, window.end, `${path}.end`, 0);
    if (!(endMs > startMs))
      throw new SchemeScenarioError(
        label,
        `${path}.end`,
        `expected a time after start (${String(window.start)}), got ${JSON.stringify(window.end)}`,
      );
    return { startMs, endMs };
  });
}

function link(label: string, value: unknown): SchemeLink {
  if (value === undefined) return DEFAULT_SCHEME_LINK;
  const given = objectAt(label, 'link', value);
  unknownKeys(label, 'link', given, LINK_KEYS);
  const l = { ...DEFAULT_SCHEME_LINK, ...given } as Record<keyof SchemeLink, unknown>;
  const latencyMs = numberIn(label, 'link.latencyMs', l.latencyMs, 0, 10_000);
  return {
    latencyMs,
    jitterMs: numberIn(label, 'link.jitterMs', l.jitterMs, 0, latencyMs),
    loss: numberIn(label, 'link.loss', l.loss, 0, 0.9),
    outages: outages(label, l.outages),
  };
}
