// The short human table of `bcsim run`: per-peer metrics, delivery and links.
import type { ConnectionSummary, PeerSummary } from '../session/summary.js';
import Table from 'cli-table3';
import type { ChalkInstance } from 'chalk';
import type { Summary } from '../session/summary.js';

const PEER_ROWS: Array<[string, (p: PeerSummary) => string]> = [
  ['ACK-outbox final / max', (p) => `${p.ackOutbox.final} / ${p.ackOutbox.max}`],
  ['dead zone final / max', (p) => `${p.ackOutboxDeadZone.final} / ${p.ackOutboxDeadZone.max}`],
  ['retransmit queue final / max', (p) => `${p.retransmitQueue.final} / ${p.retransmitQueue.max}`],
  ['modelled memory final / max (B)', (p) => `${p.memoryBytes.final} / ${p.memoryBytes.max}`],
  ['dedup comparisons total', (p) => String(p.dedupComparisons.total)],
  ['dedup max per message / per second', (p) => `${p.dedupComparisons.maxPerMessage} / ${p.dedupComparisons.maxPerSecond}`],
  ['retransmits (fragment)', (p) => `${p.retransmits} (${p.fragmentRetransmits})`],
  ['packets / bytes sent', (p) => `${p.packetsSent} / ${p.bytesSent}`],
  ['ACK bytes sent (max per packet)', (p) => `${p.ackBytesSent} (${p.ackBytesPerPacketMax})`],
  ['deferred messages', (p) => String(p.deferredMessages)],
  ['ACKs received: matched / unmatched', (p) => `${p.acksMatched} / ${p.acksUnmatched}`],
  ['connection state', (p) => p.state],
];

/** No rule between rows: the table stays short. */
export const COMPACT = { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' };

export function renderSummaryTable(summary: Summary, chalk: ChalkInstance): string {
  const head = `${chalk.bold(summary.scenario)}  mode ${chalk.bold(summary.mode)}  seed ${summary.seed}  ${summary.simulatedSeconds} s simulated  trace ${summary.traceHash.slice(0, 16)}`;
  const multi = summary.session.clients > 1;
  // Issue 12: with several clients the two columns are totals, and a per-connection block follows.
  const peers = new Table({ head: multi ? ['', 'server total', 'clients total'] : ['', 'server', 'client'], style: { head: [], border: [] }, chars: COMPACT });
  for (const [label, get] of PEER_ROWS) peers.push([label, get(summary.peers.server), get(summary.peers.client)]);
  const d = summary.delivery;
  const lost = d.reliableLost > 0 ? chalk.red(String(d.reliableLost)) : String(d.reliableLost);
  const delivery = `reliable: ${d.reliableSent} sent, ${d.reliableDelivered} delivered, ${d.reliableInFlight} in flight, ${lost} lost, ${d.duplicateDeliveries} duplicate, ${d.outOfOrderDeliveries} out of order`;
  const links = (['clientToServer', 'serverToClient'] as const)
    .map((name) => {
      const l = summary.links[name];
      return `${name}${multi ? ' (all clients)' : ''}: ${l.sent} sent, ${l.delivered} delivered, ${l.dropped} dropped, ${l.duplicated} duplicated, ${l.reordered} reordered`;
    })
    .join('\n');
  if (!multi) return `${head}\n${peers.toString()}\n${delivery}\n${links}\n`;
  return `${head}\n${peers.toString()}\n${sessionLine(summary)}\n${connectionTable(summary, chalk)}\n${delivery}\n${links}\n`;
}

function sessionLine(summary: Summary): string {
  const s = summary.session;
  return `session: ${s.clients} clients, ${s.connected} connected, ${s.bootsSent} boots sent, ${s.strayDatagrams} stray datagrams, ${s.relayedMessages} messages relayed`;
}

const CONNECTION_HEAD = ['connection', 'ACK-outbox final / max', 'dead zone max', 'retransmit queue max', 'state'];

/**
 * One row per connection end: the server's peer state for the slot, then the
 * client itself, by slot (clients that never connected last, client side only).
 */
function connectionTable(summary: Summary, chalk: ChalkInstance): string {
  const table = new Table({ head: CONNECTION_HEAD, style: { head: [], border: [] }, chars: COMPACT });
  const row = (label: string, p: ConnectionSummary) => {
    const state = p.state === 'open' ? p.state : chalk.yellow(p.state);
    table.push([label, `${p.ackOutbox.final} / ${p.ackOutbox.max}`, String(p.ackOutboxDeadZone.max), String(p.retransmitQueue.max), state]);
  };
  for (const [key, client] of Object.entries(summary.peers.clients)) {
    const where = /^\d+$/.test(key) ? `slot ${key}` : 'not connected';
    const server = summary.peers.server.connections[key];
    if (server !== undefined) row(`${where} server`, server);
    row(`${where} client ${client.client}`, client);
  }
  return table.toString();
}
