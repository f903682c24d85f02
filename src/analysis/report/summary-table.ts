// The short human table of `bcsim run`: per-peer metrics, delivery and links.
import { figureOf } from '../../model/session/index.js';
import type { ConnectionSummary, FigureRef, PeerSummary, Summary } from '../../model/session/index.js';
import Table from 'cli-table3';
import { COMPACT } from '../../core/output/index.js';
import type { TerminalStyle } from '../../core/output/index.js';

const slash = (v: readonly number[]) => v.join(' / ');
const paren = ([a, b]: readonly number[]) => `${a} (${b})`;

/** Per-peer rows: the figures each shows (counter schema names), and how they are written. */
export const PEER_ROWS: ReadonlyArray<{
  readonly label: string;
  readonly figures: readonly FigureRef[];
  readonly text: (values: readonly number[]) => string;
}> = [
  { label: 'ACK-outbox final / max', figures: ['ackOutbox.final', 'ackOutbox.max'], text: slash },
  { label: 'dead zone final / max', figures: ['ackOutboxDeadZone.final', 'ackOutboxDeadZone.max'], text: slash },
  { label: 'retransmit queue final / max', figures: ['retransmitQueue.final', 'retransmitQueue.max'], text: slash },
  { label: 'modelled memory final / max (B)', figures: ['memoryBytes.final', 'memoryBytes.max'], text: slash },
  { label: 'dedup comparisons total', figures: ['dedupComparisons'], text: slash },
  {
    label: 'dedup max per message / per second',
    figures: ['dedupComparisonsMaxPerMessage', 'dedupComparisonsMaxPerSecond'],
    text: slash,
  },
  { label: 'retransmits (fragment)', figures: ['retransmits', 'fragmentRetransmits'], text: paren },
  { label: 'packets / bytes sent', figures: ['packetsSent', 'bytesSent'], text: slash },
  { label: 'ACK bytes sent (max per packet)', figures: ['ackBytesSent', 'ackBytesPerPacketMax'], text: paren },
  { label: 'deferred messages', figures: ['deferredMessages'], text: slash },
  { label: 'ACKs received: matched / unmatched', figures: ['acksMatched', 'acksUnmatched'], text: slash },
];

function peerCell(row: (typeof PEER_ROWS)[number], p: PeerSummary): string {
  return row.text(row.figures.map((ref) => figureOf(p, ref)));
}

export function renderSummaryTable(summary: Summary, style: TerminalStyle): string {
  const head = `${style.bold(summary.scenario)}  mode ${style.bold(summary.mode)}  seed ${summary.seed}  ${summary.simulatedSeconds} s simulated  trace ${summary.traceHash.slice(0, 16)}`;
  const multi = summary.session.clients > 1;
  // With several clients the two columns are totals, and a per-connection block follows.
  const peers = new Table({
    head: multi ? ['', 'server total', 'clients total'] : ['', 'server', 'client'],
    style: { head: [], border: [] },
    chars: COMPACT,
  });
  for (const row of PEER_ROWS)
    peers.push([row.label, peerCell(row, summary.peers.server), peerCell(row, summary.peers.client)]);
  peers.push(['connection state', summary.peers.server.state, summary.peers.client.state]);
  const d = summary.delivery;
  const lost = d.reliableLost > 0 ? style.red(String(d.reliableLost)) : String(d.reliableLost);
  const delivery = `reliable: ${d.reliableSent} sent, ${d.reliableDelivered} delivered, ${d.reliableInFlight} in flight, ${lost} lost, ${d.duplicateDeliveries} duplicate, ${d.outOfOrderDeliveries} out of order`;
  const links = (['clientToServer', 'serverToClient'] as const)
    .map((name) => {
      const l = summary.links[name];
      return `${name}${multi ? ' (all clients)' : ''}: ${l.sent} sent, ${l.delivered} delivered, ${l.dropped} dropped, ${l.duplicated} duplicated, ${l.reordered} reordered`;
    })
    .join('\n');
  if (!multi) return `${head}\n${peers.toString()}\n${delivery}\n${links}\n`;
  return `${head}\n${peers.toString()}\n${sessionLine(summary)}\n${connectionTable(summary, style)}\n${delivery}\n${links}\n`;
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
function connectionTable(summary: Summary, style: TerminalStyle): string {
  const table = new Table({ head: CONNECTION_HEAD, style: { head: [], border: [] }, chars: COMPACT });
  const row = (label: string, p: ConnectionSummary) => {
    const state = p.state === 'open' ? p.state : style.yellow(p.state);
    table.push([
      label,
      `${p.ackOutbox.final} / ${p.ackOutbox.max}`,
      String(p.ackOutboxDeadZone.max),
      String(p.retransmitQueue.max),
      state,
    ]);
  };
  for (const [key, client] of Object.entries(summary.peers.clients)) {
    const where = /^\d+$/.test(key) ? `slot ${key}` : 'not connected';
    const server = summary.peers.server.connections[key];
    if (server !== undefined) row(`${where} server`, server);
    row(`${where} client ${client.client}`, client);
  }
  return table.toString();
}
