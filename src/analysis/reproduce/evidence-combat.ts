// The 34-minute, 3-player session (docs/sources.md 23, 25, 29) as an experiment of
// `reproduce ack-outbox`: the built-in valentines, a dedicated server and three
// clients calibrated per connection, so every figure is measured over the three
// connections, none multiplied.
import { TYPE_CONNECT, TYPE_DATA, TYPE_GAME, newMessageHeader, walkDatagram } from '../../core/codec/index.js';
import { secondsToUsUnrounded, usToSeconds } from '../../core/engine/index.js';
import { MetricsRecorder, seriesTrends } from '../../model/metrics/index.js';
import type { Scenario } from '../../model/scenario/index.js';
import type { PeerSummary } from '../../model/session/index.js';
import { fanOut, runScenario } from '../../model/session/index.js';
import { checksumResponsePayload } from '../../model/traffic/index.js';
import { cell } from './criteria.js';
import type { Cells } from './criteria.js';
import type { RunWith } from './readings.js';

/**
 * Fragments of the join's largest checksum response: with the default manifest, round 2's
 * ~1000 payload bytes in 405-byte chunks, 3 (docs/sources.md 6); a scenario's manifest may differ.
 */
export function checksumResponseFragments(scenario: Scenario): number {
  const manifest = scenario.traffic.manifest;
  const largest = Math.max(...manifest.rounds.map((r) => checksumResponsePayload(manifest, r).length));
  return Math.max(1, Math.ceil(largest / scenario.params.fragmentChunkBytes));
}

type CombatKeys =
  | 'outboxPeakClient'
  | 'outboxPeakServer'
  | 'selfLimiting'
  | 'messagesPerDatagram34'
  | 'ackBytes34'
  | 'keepalives34'
  | 'stateUpdateRate'
  | 'checksumResends34';

export function combatRun(scenario: Scenario, options: RunWith): Pick<Cells, CombatKeys> {
  const recorder = new MetricsRecorder();
  // StateUpdates each client sends (unreliable game messages): one ship each.
  let stateUpdates = 0;
  // Keepalives on the wire, as the capture's per-type count counts them: the join's and
  // the echoes included, whichever layer sent them (type 0x00, or 0x02 under that reading).
  const keepalives = { server: 0, client: 0 };
  const header = newMessageHeader();
  let sender: 'server' | 'client' = 'client';
  const count = (h: typeof header) => {
    if (h.type === TYPE_GAME && !h.reliable && sender === 'client') stateUpdates++;
    else if (h.type === TYPE_DATA || h.type === TYPE_CONNECT) keepalives[sender]++;
  };
  const { summary, session } = runScenario(scenario, {
    ...options,
    observer: fanOut(recorder, {
      datagramSent(_timeUs, from, bytes) {
        sender = from;
        walkDatagram(bytes, header, count);
      },
    }),
  });
  const servers = Object.values(summary.peers.server.connections);
  const clients = Object.values(summary.peers.clients);
  const most = (list: readonly PeerSummary[], get: (p: PeerSummary) => number) => Math.max(0, ...list.map(get));
  const serverPeak = most(servers, (p) => p.ackOutbox.max);
  const clientPeak = most(clients, (p) => p.ackOutbox.max);
  const inRange = (n: number) => n >= 20 && n <= 33;
  const leaks = seriesTrends(recorder.recorded()).filter((t) => t.metric === 'ackOutbox' && t.trend.leak);
  const perDatagram = Math.max(summary.peers.server.messagesPerPacketMax, summary.peers.client.messagesPerPacketMax);
  const ackBytes = Math.max(summary.peers.server.ackBytesPerPacketMax, summary.peers.client.ackBytesPerPacketMax);
  const keepaliveTotal = keepalives.server + keepalives.client;
  // Messages, as the per-type counts are: one re-send round of the fragmented checksum response is one.
  const fragments = checksumResponseFragments(scenario);
  const checksum = clients.reduce((sum, c) => sum + Math.ceil(c.fragmentRetransmits / fragments), 0);
  const log = session.traffic.phaseLog;
  const combat = log.find((p) => p.kind === 'combat');
  const after = combat === undefined ? undefined : log.find((p) => p.startUs > combat.startUs);
  const combatS =
    combat === undefined
      ? 0
      : usToSeconds((after?.startUs ?? secondsToUsUnrounded(summary.simulatedSeconds)) - combat.startUs);
  const perShip = combatS > 0 ? stateUpdates / clients.length / combatS : 0;
  return {
    outboxPeakClient: cell('outboxPeakClient', `${clientPeak} (worst of ${clients.length})`, inRange(clientPeak)),
    outboxPeakServer: cell('outboxPeakServer', `${serverPeak} (worst of ${servers.length})`, inRange(serverPeak)),
    selfLimiting: cell(
      'selfLimiting',
      leaks.length === 0 ? 'bounded' : `grows: ${leaks.map((t) => t.peer).join(', ')}`,
      leaks.length === 0,
    ),
    messagesPerDatagram34: cell('messagesPerDatagram34', `${perDatagram}`, perDatagram >= 25 && perDatagram <= 40),
    ackBytes34: cell('ackBytes34', `${ackBytes} B`, ackBytes >= 100 && ackBytes <= 190),
    keepalives34: cell(
      'keepalives34',
      `${keepaliveTotal} on the wire (S ${keepalives.server}, C ${keepalives.client})`,
      keepaliveTotal >= 47 && keepaliveTotal <= 188,
    ),
    stateUpdateRate: cell('stateUpdateRate', `${perShip.toFixed(1)}/s from each client`, perShip >= 8 && perShip <= 12),
    checksumResends34: cell('checksumResends34', `${checksum} re-sent messages`, checksum < 42),
  };
}
