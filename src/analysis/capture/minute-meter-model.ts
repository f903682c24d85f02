// A simulated session read by the MinuteMeter as a live client side reads a
// real one: from the clients' side of the wire, each client's own datagrams as
// they leave it and the server's as they reach it (so a datagram the link
// drops on its way to a client is not seen, as on a real client's socket).
import { secondsToUsUnrounded } from '../../core/engine/index.js';
import type { Scenario } from '../../model/scenario/index.js';
import { runScenario } from '../../model/session/index.js';
import type { RunOptions, SessionObserver } from '../../model/session/index.js';
import type { AnalyzerOptions } from './analyze.js';
import { MinuteMeter } from './minute-meter.js';

export interface MeteredRun {
  readonly meter: MinuteMeter;
  readonly simulatedSeconds: number;
  readonly traceHash: string;
  readonly mode: string;
}

export function meterScenario(
  scenario: Scenario,
  options: Pick<RunOptions, 'preset' | 'switches' | 'seed' | 'durationUs' | 'onProgress'> & AnalyzerOptions = {},
): MeteredRun {
  const givenUp = new Map<number, number>();
  const meter = new MinuteMeter((connection) => givenUp.get(connection) ?? 0, options);
  const observer: SessionObserver = {
    datagramSent(timeUs, from, bytes, _uids, _notes, client) {
      if (from === 'client') meter.add(client, 'client', timeUs, bytes);
    },
    datagramArrived(timeUs, to, bytes, _duplicate, client) {
      if (to === 'client') meter.add(client, 'server', timeUs, bytes);
    },
    sample(_timeUs, _totals, views) {
      for (const view of views) givenUp.set(view.client, view.clientPeer.counters.gaveUp);
    },
  };
  const { summary } = runScenario(scenario, { ...options, observer });
  meter.finish(secondsToUsUnrounded(summary.simulatedSeconds));
  return { meter, simulatedSeconds: summary.simulatedSeconds, traceHash: summary.traceHash, mode: summary.mode };
}
