// The shared workload of `schemes-side-by-side` as a BC scenario, built as an
// ordinary scenario document and validated by the BC loader, so the BC side runs
// exactly what `bcsim run` would run from the same JSON.
//
// How the shared workload maps onto BC (docs/rtype.md#r-type-beside-bc):
// - critical events are reliable game messages from the server to every client
//   (combat, clientShare 0), drawn from the measured BC event mix (10-25 byte
//   payloads; an R-Type death carries 5), Poisson at criticalPerSecond;
// - a burst of k is a BURST_WINDOW_S combat phase at k / BURST_WINDOW_S messages
//   per second, arrivals evenly spaced, so about k messages fall into one 95 ms
//   BC update, every 60 / burstsPerMinute seconds (R-Type draws its bursts at random
//   at the same mean rate);
// - unreliable updates are StateUpdates, updatesPerFrame x 30 per second in each
//   direction on every connection, 16 bytes each: a 3-byte BC message header over the
//   13-byte payload of an R-Type position update (opcode, u32 id, two float32s).
import { dataHeaderBytes } from '../../core/codec/index.js';
import { msToSeconds, secondsToUs, usToSeconds } from '../../core/engine/index.js';
import { POSITION_PAYLOAD_BYTES } from '../transport/index.js';
import { ScenarioError, parseScenario } from '../../model/scenario/index.js';
import type { Scenario } from '../../model/scenario/index.js';
import { SchemeScenarioError } from './checks.js';
import { RTYPE_FRAMES_PER_SECOND } from './rtype-side.js';
import type { SideBySideScenario } from './scenario-file.js';

/** How long a burst's phase lasts: about one BC network update (docs/sources.md 13: ~95 ms). */
export const BURST_WINDOW_S = 0.1;
/** A StateUpdate standing for an R-Type position update: an unreliable BC message header over its payload. */
export const STATE_UPDATE_BYTES = dataHeaderBytes(false, false, null) + POSITION_PAYLOAD_BYTES;

/** The BC scenario document of the shared workload (the JSON `bcsim run` would take). */
export function bcScenarioDocument(scenario: SideBySideScenario): Record<string, unknown> {
  const w = scenario.workload;
  const updates = {
    stateUpdatesPerSecond: w.updatesPerFrame * RTYPE_FRAMES_PER_SECOND,
    stateUpdateBytes: [STATE_UPDATE_BYTES, STATE_UPDATE_BYTES],
  };
  const steady = {
    kind: 'combat',
    ...updates,
    reliablePerSecond: w.criticalPerSecond,
    clientShare: 0,
    arrival: 'poisson',
  };
  const phases: object[] =
    w.burstsPerMinute > 0
      ? [
          { ...steady, duration: round6(60 / w.burstsPerMinute - BURST_WINDOW_S) },
          {
            kind: 'combat',
            ...updates,
            duration: BURST_WINDOW_S,
            reliablePerSecond: w.burstSize / BURST_WINDOW_S,
            clientShare: 0,
            arrival: 'periodic',
          },
        ]
      : [steady];
  return {
    name: `${scenario.name}.bc`,
    description: `The BC side of ${scenario.name}: its shared workload as BC traffic (src/rtype/schemes/bc-side.ts).`,
    duration: msToSeconds(scenario.durationMs),
    seed: scenario.seed,
    clients: scenario.clients,
    link: {
      both: {
        latencyMs: scenario.link.latencyMs,
        jitterMs: scenario.link.jitterMs,
        jitter: 'uniform',
        loss: scenario.link.loss,
        ...(scenario.link.outages.length > 0
          ? {
              outages: scenario.link.outages.map((o) => ({ start: msToSeconds(o.startMs), end: msToSeconds(o.endMs) })),
            }
          : {}),
      },
    },
    traffic: { joinStagger: 0.5, phases: ['join', ...phases], ...(phases.length > 1 ? { repeatFrom: 1 } : {}) },
  };
}

/** The BC scenario; a field BC refuses is a SchemeScenarioError against `<source> (BC side)`. */
export function bcScenarioOf(scenario: SideBySideScenario): Scenario {
  try {
    return parseScenario(JSON.stringify(bcScenarioDocument(scenario)), `${scenario.source} (BC side)`);
  } catch (error) {
    if (error instanceof ScenarioError) throw new SchemeScenarioError(error.source, error.path, error.reason);
    throw error;
  }
}

/** Seconds to whole microseconds, as seconds again: a phase length the schema reads exactly. */
function round6(value: number): number {
  return usToSeconds(secondsToUs(value));
}
