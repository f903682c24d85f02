// `bcsim proxy` in-process on loopback, on the perfect link unless `sets`
// says otherwise: for tests that drive the relay and read its summary.
import { PERFECT_SCENARIO_JSON } from '../../src/cli/commands/proxy.js';
import type { InFlightLimits } from '../../src/live/proxy/in-flight.js';
import type { ProxyRelay } from '../../src/live/proxy/relay.js';
import { runProxy } from '../../src/live/proxy/run.js';
import type { ProxySummary } from '../../src/live/proxy/summary.js';
import { parseScenario } from '../../src/model/scenario/load.js';

const LOCAL = '127.0.0.1';

export interface RunningProxy {
  readonly relay: ProxyRelay;
  /** The port it listens on. */
  readonly port: number;
  /** Stops it as Ctrl-C does; resolves with its summary. */
  stop(): Promise<ProxySummary>;
}

/** A proxy from an ephemeral loopback port to `upstreamPort`, 20 s at most. */
export async function startProxy(
  upstreamPort: number,
  sets: string[] = [],
  inFlight?: InFlightLimits,
): Promise<RunningProxy> {
  let stopNow: (reason: string) => void = () => {};
  const stop = new Promise<string>((resolve) => (stopNow = resolve));
  let relay: ProxyRelay | null = null;
  const done = runProxy(
    {
      listen: { host: LOCAL, port: 0, family: 4 },
      upstream: { host: LOCAL, port: upstreamPort, family: 4 },
      upstreamBind: { host: LOCAL, port: 0, family: 4 },
      scenario: parseScenario(PERFECT_SCENARIO_JSON, 'test', sets),
      scenarioRef: null,
      loss: null,
      sets,
      seed: 1,
      durationUs: 20_000_000,
      pcap: null,
      out: null,
      ...(inFlight === undefined ? {} : { inFlight }),
    },
    { stop, onListening: (_a, r) => (relay = r) },
  );
  while (relay === null) await new Promise((r) => setTimeout(r, 2));
  const r = relay as ProxyRelay;
  return { relay: r, port: r.listening.port, stop: () => (stopNow('stopped'), done) };
}
