// Hand validation of an RtypeConfig: the first bad field, named by its path, in
// an RtypeConfigError. Bounds keep every accepted run within the engine's limits.
import { validateLinkConfig } from '../../model/link/index.js';
import type { LinkConfig } from '../../model/link/index.js';
import { RTYPE_PRESET_NAMES, rtypeSwitches } from '../transport/index.js';
import type { RtypeConfig } from './config.js';
import { linksOf } from './config.js';

export class RtypeConfigError extends Error {
  override readonly name = 'RtypeConfigError';
}

/** Runs up to 7 days, as the BC scenarios. */
const MAX_DURATION_MS = 7 * 24 * 3_600_000;
const MAX_CLIENTS = 64;
const MAX_SCRIPTED_BURSTS = 1_000;
const MAX_OUTAGES = 1_000;

function fail(field: string, value: unknown, expected: string): never {
  throw new RtypeConfigError(`rtype config: ${field} is ${JSON.stringify(value)}, expected ${expected}`);
}

function number(field: string, value: unknown, min: number, max: number): void {
  if (!(typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max))
    fail(field, value, `a number in [${min}, ${max}]`);
}

function integer(field: string, value: unknown, min: number, max: number): void {
  if (!(typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max))
    fail(field, value, `an integer in [${min}, ${max}]`);
}

function windows(field: string, list: unknown, startName: string): void {
  if (!Array.isArray(list) || list.length > MAX_OUTAGES) fail(field, list, `a list of at most ${MAX_OUTAGES} windows`);
  list.forEach((w: { startMs: unknown; endMs: unknown }, i: number) => {
    number(`${field}[${i}].${startName}`, w.startMs, 0, MAX_DURATION_MS);
    number(`${field}[${i}].endMs`, w.endMs, 0, MAX_DURATION_MS);
    if (!((w.endMs as number) > (w.startMs as number)))
      fail(`${field}[${i}].endMs`, w.endMs, `> startMs (${String(w.startMs)})`);
  });
}

function link(field: string, config: LinkConfig): void {
  try {
    validateLinkConfig(config);
  } catch (error) {
    throw new RtypeConfigError(`rtype config: ${field}: ${(error as Error).message}`);
  }
  // Drop rules match BC messages; the R-Type wire has none.
  if (config.dropRules.length > 0)
    fail(`${field}.dropRules`, config.dropRules.length, 'an empty list (drop rules match BC messages)');
}

/** Throws an RtypeConfigError naming the first invalid field; returns the config. */
export function validateRtypeConfig(config: RtypeConfig): RtypeConfig {
  integer('clients', config.clients, 1, MAX_CLIENTS);
  number('durationMs', config.durationMs, 1, MAX_DURATION_MS);
  if (!RTYPE_PRESET_NAMES.includes(config.preset)) fail('preset', config.preset, RTYPE_PRESET_NAMES.join(' | '));
  try {
    rtypeSwitches(config.preset, config.switches);
  } catch (error) {
    throw new RtypeConfigError(`rtype config: switches: ${(error as Error).message}`);
  }
  const t = config.timing;
  number('timing.tickHz', t.tickHz, 1, 1000);
  number('timing.resendAfterMs', t.resendAfterMs, 0, MAX_DURATION_MS);
  number('timing.expireAfterMs', t.expireAfterMs, 0, MAX_DURATION_MS);
  number('timing.retryIntervalMs', t.retryIntervalMs, 0.001, MAX_DURATION_MS);
  number('timing.frameBaseWorkUs', t.frameBaseWorkUs, 0, 10_000_000);
  number('timing.workPerDatagramUs', t.workPerDatagramUs, 0, 1_000_000);
  integer('limits.maxStoreEntries', config.limits.maxStoreEntries, 1, 10_000_000);
  integer('limits.maxPendingPerUser', config.limits.maxPendingPerUser, 1, 10_000_000);
  integer('limits.maxDatagramsPerFrame', config.limits.maxDatagramsPerFrame, 1, 100_000);
  const w = config.workload;
  number('workload.deathsPerSecond', w.deathsPerSecond, 0, 10_000);
  number('workload.burstsPerMinute', w.burstsPerMinute, 0, 60 * t.tickHz);
  integer('workload.burstSize', w.burstSize, 1, 10_000);
  if (!Array.isArray(w.scriptedBursts) || w.scriptedBursts.length > MAX_SCRIPTED_BURSTS)
    fail('workload.scriptedBursts', w.scriptedBursts, `a list of at most ${MAX_SCRIPTED_BURSTS}`);
  w.scriptedBursts.forEach((b, i) => {
    number(`workload.scriptedBursts[${i}].atMs`, b.atMs, 0, MAX_DURATION_MS);
    integer(`workload.scriptedBursts[${i}].size`, b.size, 1, 10_000);
  });
  integer('workload.positionsPerFrame', w.positionsPerFrame, 0, 1_000);
  if (w.clientSendIntervalMs !== null)
    number('workload.clientSendIntervalMs', w.clientSendIntervalMs, 1, MAX_DURATION_MS);
  number('workload.firstJoinMs', w.firstJoinMs, 0, MAX_DURATION_MS);
  number('workload.joinSpacingMs', w.joinSpacingMs, 0, MAX_DURATION_MS);
  number('workload.registerRetryMs', w.registerRetryMs, 1, MAX_DURATION_MS);
  if (!Array.isArray(config.clientLinks) || config.clientLinks.length > config.clients)
    fail('clientLinks', config.clientLinks, `a list of at most ${config.clients} (one per client)`);
  for (let k = 1; k <= config.clients; k++) {
    const links = linksOf(config, k);
    link(`links of client ${k}.serverToClient`, links.serverToClient);
    link(`links of client ${k}.clientToServer`, links.clientToServer);
  }
  number('tcp.latencyMs', config.tcp.latencyMs, 0, MAX_DURATION_MS);
  windows('tcp.outages', config.tcp.outages, 'startMs');
  integer('tcp.maxInFlight', config.tcp.maxInFlight, 1, 10_000_000);
  number('sampleEveryMs', config.sampleEveryMs, 1, MAX_DURATION_MS);
  integer('maxSamples', config.maxSamples, 1, 10_000_000);
  integer('maxDeaths', config.maxDeaths, 1, 50_000_000);
  return config;
}
