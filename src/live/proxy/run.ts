// `bcsim proxy` from start to exit: bind, relay until a
// stop (signal or --duration), then write the summary and the pcapng together:
// both are temporaries until every byte is in, then renamed into place one
// after the other (capture-file.ts commitAll), so a signal never leaves half a
// file, and a failure leaves neither.
import { usToMs, usToSeconds, msToUsUnrounded } from '../../core/engine/index.js';
import { CaptureFile, abortAll, commitAll } from '../../analysis/capture/index.js';
import type { Scenario } from '../../model/scenario/index.js';
import { formatHostPort } from '../endpoint.js';
import type { HostPort } from '../endpoint.js';
import { ProxyCapture } from './capture.js';
import { ProxyRelay } from './relay.js';
import type { InFlightLimits } from './in-flight.js';
import type { Address } from './capture.js';
import { startStatus } from './status.js';
import { buildSummary } from './summary.js';
import type { ProxySettings, ProxySummary } from './summary.js';

export interface ProxyConfig {
  readonly listen: HostPort;
  readonly upstream: HostPort;
  readonly upstreamBind: HostPort;
  readonly scenario: Scenario;
  /** The --scenario given, or null (perfect link). */
  readonly scenarioRef: string | null;
  readonly loss: number | null;
  readonly sets: readonly string[];
  readonly seed: number;
  readonly durationUs: number | null;
  /** Absolute paths. */
  readonly pcap: string | null;
  readonly out: string | null;
  readonly maxClients?: number;
  /** Datagrams and bytes the links may hold at once (default: in-flight.ts's limits). */
  readonly inFlight?: InFlightLimits;
}

export interface ProxyHooks {
  /** Resolves with the reason to stop ('SIGINT', 'SIGTERM', ...). */
  readonly stop: Promise<string>;
  /** Status line writer; only given when stderr is a terminal. */
  readonly status?: (text: string) => void;
  /** Called once bound, with the listening address (tests bind port 0). */
  readonly onListening?: (address: Address, relay: ProxyRelay) => void;
  /** The summary JSON written to --out (the command passes its formatting). */
  readonly serialize?: (summary: ProxySummary) => string;
}

export async function runProxy(config: ProxyConfig, hooks: ProxyHooks): Promise<ProxySummary> {
  // Read once: pcap timestamps are absolute. Every offset comes from the monotonic clock.
  const epochUs = msToUsUnrounded(Date.now());
  const settings: ProxySettings = {
    listen: formatHostPort({ address: config.listen.host, port: config.listen.port }),
    upstream: formatHostPort({ address: config.upstream.host, port: config.upstream.port }),
    upstreamBind: config.upstreamBind.host,
    scenario: config.scenarioRef === null ? null : config.scenario.name,
    linkConfig: config.scenarioRef === null ? 'perfect' : 'scenario',
    loss: config.loss,
    sets: config.sets,
    seed: config.seed,
    durationS: config.durationUs === null ? null : usToSeconds(config.durationUs),
    pcap: config.pcap,
    out: config.out,
  };
  const capture =
    config.pcap === null
      ? null
      : new ProxyCapture(
          config.pcap,
          epochUs,
          `bcsim proxy ${settings.listen} -> ${settings.upstream}, seed ${config.seed}`,
        );
  let relay: ProxyRelay;
  let failed: (error: unknown) => void = () => {};
  const failure = new Promise<never>((_resolve, reject) => (failed = reject));
  try {
    relay = await ProxyRelay.start({ ...config, capture, onFailure: (error) => failed(error) });
  } catch (error) {
    capture?.captureFile.abort();
    throw error;
  }
  const wall = relay.clock;
  hooks.onListening?.(relay.listening, relay);
  const stopStatus =
    hooks.status === undefined ? null : startStatus(hooks.status, relay, () => usToSeconds(wall.wallUs()));
  let durationTimer: NodeJS.Timeout | null = null;
  let stoppedBy: string;
  try {
    stoppedBy = await Promise.race([
      hooks.stop,
      failure,
      new Promise<string>((resolve) => {
        if (config.durationUs !== null)
          durationTimer = setTimeout(() => resolve('duration'), usToMs(config.durationUs));
      }),
    ]);
  } catch (error) {
    capture?.captureFile.abort();
    throw error;
  } finally {
    if (durationTimer !== null) clearTimeout(durationTimer);
    relay.stop();
    stopStatus?.();
  }
  const endUs = wall.wallUs();
  const summary = buildSummary({
    settings,
    wallSeconds: usToSeconds(endUs),
    stoppedBy,
    clients: relay.clients,
    totals: relay.totals,
    capturedPackets: capture?.packets ?? 0,
    unreadable: relay.unreadable.figures(),
    analysis: relay.analyzer.finish(endUs),
  });
  const files: CaptureFile[] = [];
  try {
    if (capture !== null) files.push(capture.flush());
    if (config.out !== null) {
      const out = new CaptureFile(config.out);
      files.push(out);
      out.write(Buffer.from(hooks.serialize?.(summary) ?? `${JSON.stringify(summary, null, 2)}\n`, 'utf8'));
    }
    commitAll(files);
  } catch (error) {
    abortAll(files);
    throw error;
  }
  return summary;
}
