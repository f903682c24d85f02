// A scheme scenario as an R-Type run's config. For `side-by-side`, the shared
// workload in R-Type terms: critical events are deaths (opcode 0x0B, one per
// client), bursts are k deaths in one tick, updates are position datagrams
// (ack 0) from the server each frame and from every client at the same rate.
import { secondsToMs } from '../../core/engine/index.js';
import { PERFECT_LINK } from '../../model/link/index.js';
import type { LinkConfig } from '../../model/link/index.js';
import { RTYPE_DEATHS, RtypeConfigError, resolveRtypeConfig, validateRtypeConfig } from '../session/index.js';
import type { RtypeConfig, RtypeWorkload } from '../session/index.js';
import type { RtypePresetName } from '../transport/index.js';
import { SchemeScenarioError } from './checks.js';
import type { SchemeLink, SchemeScenario, SideBySideScenario } from './scenario-file.js';

/** The R-Type game loop's rate (rtype-ack-system.md "Timing Parameters": 30 FPS). */
export const RTYPE_FRAMES_PER_SECOND = 30;

export function rtypeLink(link: SchemeLink): LinkConfig {
  return {
    ...PERFECT_LINK,
    latency: { baseMs: link.latencyMs, jitterMs: link.jitterMs, distribution: 'uniform' },
    loss: link.loss > 0 ? { model: 'bernoulli', probability: link.loss } : { model: 'none' },
    outages: link.outages,
  };
}

/** The shared workload as R-Type's: same rates, the R-Type join timing of rtype-deaths. */
export function sharedAsRtypeWorkload(scenario: SideBySideScenario): RtypeWorkload {
  const w = scenario.workload;
  return {
    ...RTYPE_DEATHS.workload,
    deathsPerSecond: w.criticalPerSecond,
    burstsPerMinute: w.burstsPerMinute,
    burstSize: w.burstSize,
    positionsPerFrame: w.updatesPerFrame,
    clientSendIntervalMs:
      w.updatesPerFrame === 0 ? null : secondsToMs(1 / (RTYPE_FRAMES_PER_SECOND * w.updatesPerFrame)),
  };
}

/**
 * The validated config of one R-Type run of `scenario` with `preset`; a bad field
 * becomes a SchemeScenarioError naming the scenario's file.
 */
export function rtypeConfigOf(
  scenario: SchemeScenario,
  preset: RtypePresetName,
  durationMs = scenario.durationMs,
): RtypeConfig {
  const link = rtypeLink(scenario.link);
  const config = resolveRtypeConfig({
    preset,
    clients: scenario.clients,
    durationMs,
    workload: scenario.scheme === 'rtype' ? scenario.workload : sharedAsRtypeWorkload(scenario),
    links: { serverToClient: link, clientToServer: link },
    // A network outage holds the TCP confirmations too (in order, lossless: they arrive after it).
    tcp: { latencyMs: scenario.tcpLatencyMs, outages: scenario.link.outages },
  });
  try {
    return validateRtypeConfig(config);
  } catch (error) {
    if (error instanceof RtypeConfigError) throw new SchemeScenarioError(scenario.source, '', error.message);
    throw error;
  }
}
