// The proxy's exit summary, schema bcsim.proxy/1: settings,
// per client its two links' counters (the same LinkSummary as a simulated run,
// session/summary.ts), what bypassed the link model, and the wire analysis of
// everything both peers sent (capture/analyze.ts, the `bcsim analyze` figures).
import { removalText } from '../../analysis/capture/index.js';
import type { OutboxEstimate, WireAnalysis } from '../../analysis/capture/index.js';
import { deviationCountsText, newDeviationCounts } from '../../core/codec/index.js';
import type { DeviationCounts } from '../../core/codec/index.js';
import { round3, summarizeLink, sumLinks } from '../../model/session/index.js';
import type { LinkSummary } from '../../model/session/index.js';
import { VERSION } from '../../version.js';
import { formatHostPort } from '../endpoint.js';
import { unreadableLine } from '../unreadable.js';
import type { UnreadableFigures } from '../unreadable.js';
import type { Bypass, ClientEntry, Direction } from './client-entry.js';
import type { RelayTotals } from './relay.js';

const PROXY_SCHEMA = 'bcsim.proxy/1';

export interface ProxySettings {
  readonly listen: string;
  readonly upstream: string;
  readonly upstreamBind: string;
  /** The scenario whose links are applied; null = a perfect link (no --scenario). */
  readonly scenario: string | null;
  /** 'scenario': the scenario's link model; 'perfect': none, unless --loss / --set add faults. */
  readonly linkConfig: 'scenario' | 'perfect';
  readonly loss: number | null;
  readonly sets: readonly string[];
  readonly seed: number;
  readonly durationS: number | null;
  readonly pcap: string | null;
  readonly out: string | null;
}

interface ProxyClientSummary {
  readonly client: number;
  readonly address: string;
  /** The proxy's socket facing the server for this client. */
  readonly upstreamSocket: string | null;
  /** The scenario client whose links it got (min(k, scenario clients)). */
  readonly linkClient: number;
  readonly links: Record<Direction, LinkSummary>;
  readonly gamespy: Record<Direction, number>;
  readonly undecodable: Record<Direction, number>;
  /** Reliable messages each end had on the wire without an ACK at exit. */
  readonly outstandingAtExit: { readonly client: number; readonly server: number };
  /** Datagrams in a reimplementation's wire forms (docs/sources.md 30), relayed and measured: the analysis's counts per direction. */
  readonly deviations: Record<Direction, DeviationCounts>;
}

export interface ProxySummary {
  readonly schema: typeof PROXY_SCHEMA;
  readonly version: string;
  readonly settings: ProxySettings;
  readonly wallSeconds: number;
  /** Why it stopped: 'duration', 'SIGINT', 'SIGTERM' or 'stopped'. */
  readonly stoppedBy: string;
  readonly clients: readonly ProxyClientSummary[];
  readonly totals: RelayTotals & {
    readonly clients: number;
    readonly links: Record<Direction, LinkSummary>;
    readonly gamespy: number;
    readonly undecodable: number;
    readonly capturedPackets: number;
  };
  /** Datagrams that read in no form, by source address (a client's, or the server's), the first few in hex. */
  readonly unreadable: UnreadableFigures;
  readonly analysis: WireAnalysis;
}

const pick = (b: Record<Direction, Bypass>, key: keyof Bypass): Record<Direction, number> => ({
  clientToServer: b.clientToServer[key],
  serverToClient: b.serverToClient[key],
});

export function buildSummary(input: {
  settings: ProxySettings;
  wallSeconds: number;
  stoppedBy: string;
  clients: readonly ClientEntry[];
  totals: RelayTotals;
  capturedPackets: number;
  unreadable: UnreadableFigures;
  analysis: WireAnalysis;
}): ProxySummary {
  const clients = input.clients.map(
    (c): ProxyClientSummary => ({
      client: c.k,
      address: formatHostPort(c.address),
      upstreamSocket: c.socketAddress === null ? null : formatHostPort(c.socketAddress),
      linkClient: c.linkClient,
      links: {
        clientToServer: summarizeLink(c.links.clientToServer.counters),
        serverToClient: summarizeLink(c.links.serverToClient.counters),
      },
      gamespy: pick(c.bypass, 'gamespy'),
      undecodable: pick(c.bypass, 'undecodable'),
      outstandingAtExit: { client: c.outstanding.count('client'), server: c.outstanding.count('server') },
      deviations: deviationsOf(input.analysis, c.k),
    }),
  );
  const sum = (f: (c: ProxyClientSummary) => Record<Direction, number>) =>
    clients.reduce((n, c) => n + f(c).clientToServer + f(c).serverToClient, 0);
  return {
    schema: PROXY_SCHEMA,
    version: VERSION,
    settings: input.settings,
    wallSeconds: round3(input.wallSeconds),
    stoppedBy: input.stoppedBy,
    clients,
    totals: {
      clients: clients.length,
      ...input.totals,
      links: {
        clientToServer: sumLinks(clients.map((c) => c.links.clientToServer)),
        serverToClient: sumLinks(clients.map((c) => c.links.serverToClient)),
      },
      gamespy: sum((c) => c.gamespy),
      undecodable: sum((c) => c.undecodable),
      capturedPackets: input.capturedPackets,
    },
    unreadable: input.unreadable,
    analysis: input.analysis,
  };
}

function deviationsOf(analysis: WireAnalysis, client: number): Record<Direction, DeviationCounts> {
  const a = analysis.connections.find((x) => x.index === client);
  return {
    clientToServer: a?.clientToServer.deviations ?? newDeviationCounts(),
    serverToClient: a?.serverToClient.deviations ?? newDeviationCounts(),
  };
}

/** "peak 15 (single-pass)", "peak 20, dead zone 18 (two-pass)", or why there is none. */
function outboxText(o: OutboxEstimate): string {
  if (o.peak === null) return `none (ACK behaviour unknown: ${o.behaviour.summary})`;
  const dead = o.deadZone === null ? '' : `, dead zone ${o.deadZone.peak}`;
  return `peak ${o.peak}${dead} (${o.behaviour.rule})`;
}

/** The human form: a few lines per client. */
export function renderSummary(s: ProxySummary): string {
  const lines = [
    `bcsim proxy ${s.settings.listen} -> ${s.settings.upstream}: ${s.wallSeconds} s, stopped by ${s.stoppedBy}, seed ${s.settings.seed}, ` +
      `links: ${s.settings.scenario === null ? 'perfect' : `scenario ${s.settings.scenario}`}${s.settings.loss === null ? '' : `, loss ${s.settings.loss}`}`,
  ];
  const link = (name: string, l: LinkSummary) => {
    const causes = Object.entries(l.droppedBy)
      .filter(([, n]) => n > 0)
      .map(([cause, n]) => `${cause} ${n}`)
      .join(', ');
    return (
      `  ${name}  sent ${l.sent}  delivered ${l.delivered}  dropped ${l.dropped}${causes ? ` (${causes})` : ''}` +
      `${l.messagesDropped ? `  messages cut ${l.messagesDropped}` : ''}${l.duplicated ? `  duplicated ${l.duplicated}` : ''}${l.reordered ? `  reordered ${l.reordered}` : ''}`
    );
  };
  for (const c of s.clients) {
    lines.push(`client ${c.client} ${c.address} (links of scenario client ${c.linkClient})`);
    lines.push(link('C>S', c.links.clientToServer), link('S>C', c.links.serverToClient));
    const gs = c.gamespy.clientToServer + c.gamespy.serverToClient;
    const un = c.undecodable.clientToServer + c.undecodable.serverToClient;
    if (gs + un > 0) lines.push(`  bypassed the link model: GameSpy ${gs}, undecodable ${un}`);
    const a = s.analysis.connections.find((x) => x.index === c.client);
    if (a !== undefined) {
      for (const d of [a.clientToServer, a.serverToClient]) {
        const retx = d.reliable.low.retransmissions + d.reliable.high.retransmissions;
        lines.push(
          `  ${d.from} sent ${d.datagrams} datagrams, ${retx} re-sends, ${d.fragments.rounds} fragment rounds, ${d.acks.sent} ACKs (${d.acks.stale} stale)`,
        );
        // docs/sources.md 30: relayed and measured, and named here.
        if (d.deviations.datagrams > 0)
          lines.push(
            `  ${d.from} sent ${d.deviations.datagrams} datagrams in non-stock wire forms (${deviationCountsText(d.deviations)})`,
          );
      }
      lines.push(
        `  ACK-outbox estimate: client ${outboxText(a.ackOutbox.client)}, server ${outboxText(a.ackOutbox.server)}`,
      );
      if (a.removal !== null) lines.push(`  ${removalText(a.removal)}`);
    }
  }
  if (s.clients.length === 0) lines.push('no client sent anything');
  const t = s.totals;
  const extra = [
    t.refused ? `refused ${t.refused} (over ${s.clients.length} clients)` : '',
    t.foreign ? `foreign ${t.foreign}` : '',
    t.socketErrors ? `socket errors ${t.socketErrors}` : '',
    t.pendingOverflow ? `overflow while binding ${t.pendingOverflow}` : '',
    t.inFlightRefused ? `dropped at the in-flight limit ${t.inFlightRefused}` : '',
  ].filter((x) => x !== '');
  if (extra.length > 0) lines.push(extra.join(', '));
  if (s.unreadable.total > 0) lines.push(`unreadable datagrams: ${unreadableLine(s.unreadable)}`);
  if (s.settings.pcap !== null) lines.push(`pcapng: ${s.settings.pcap} (${t.capturedPackets} packets)`);
  if (s.settings.out !== null) lines.push(`summary: ${s.settings.out}`);
  return `${lines.join('\n')}\n`;
}
