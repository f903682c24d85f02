// The per-peer half of the summary: the server's total and each of its
// connections, the clients' total and each client, and their links, keyed by slot.
import type { Session } from './session.js';
import { connectionKey, sumLinks, summarizeLink, summarizePeer } from './summary.js';
import type { ClientLinksSummary, ConnectionSummary, Summary } from './summary.js';

export function summarizeConnections(session: Session): Pick<Summary, 'peers' | 'links' | 'session'> {
  const peaks = session.peaks;
  const connections: Record<string, ConnectionSummary> = {};
  const clients: Record<string, ConnectionSummary> = {};
  const links: Record<string, ClientLinksSummary> = {};
  // Connected clients in slot order, then any that never connected.
  const order = [...session.connections].sort(
    (a, b) =>
      (session.server.slotOf(a.client - 1) ?? 1e9 + a.client) - (session.server.slotOf(b.client - 1) ?? 1e9 + b.client),
  );
  for (const c of order) {
    const slot = session.server.slotOf(c.client - 1);
    const key = connectionKey(c.client, slot);
    if (slot !== null)
      connections[key] = { client: c.client, slot, ...summarizePeer(c.serverPeer, peaks.dedupPerSecond(c.serverPeer)) };
    clients[key] = { client: c.client, slot, ...summarizePeer(c.clientPeer, peaks.dedupPerSecond(c.clientPeer)) };
    links[key] = {
      client: c.client,
      clientToServer: summarizeLink(c.links.clientToServer.counters),
      serverToClient: summarizeLink(c.links.serverToClient.counters),
    };
  }
  const linkList = Object.values(links);
  const serverTotal = summarizePeer(
    session.totals.server,
    peaks.totalDedupPerSecond('server'),
    peaks.totalGaugePeaks('server'),
  );
  return {
    peers: {
      server: { ...serverTotal, connections },
      client: summarizePeer(
        session.totals.client,
        peaks.totalDedupPerSecond('client'),
        peaks.totalGaugePeaks('client'),
      ),
      clients,
    },
    links: {
      clientToServer: sumLinks(linkList.map((l) => l.clientToServer)),
      serverToClient: sumLinks(linkList.map((l) => l.serverToClient)),
      clients: links,
    },
    session: {
      clients: session.connections.length,
      connected: session.server.acceptedConnections().length,
      bootsSent: session.server.bootsSent,
      strayDatagrams: session.server.strayDatagrams,
      relayedMessages: session.traffic.relayed,
    },
  };
}
