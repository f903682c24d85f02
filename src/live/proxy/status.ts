// The proxy's status line (issue 14, item 1: the analysis figures per peer,
// live, "in a status line on a TTY"). One line, rewritten with \r about twice a
// second, only when stderr is a terminal; cleared at exit.
import type { ProxyRelay } from './relay.js';

export const STATUS_INTERVAL_MS = 500;

interface Side {
  outstanding: number;
  retransmissions: number;
  rounds: number;
  stale: number;
  outbox: number;
}

/** The line for the relay's state `elapsedS` seconds in (totals over clients). */
export function statusLine(relay: ProxyRelay, elapsedS: number): string {
  const side = (): Side => ({ outstanding: 0, retransmissions: 0, rounds: 0, stale: 0, outbox: 0 });
  const sides = { client: side(), server: side() };
  let forwarded = 0;
  let dropped = 0;
  for (const c of relay.clients) {
    for (const l of [c.links.clientToServer, c.links.serverToClient]) {
      forwarded += l.counters.delivered;
      dropped += l.counters.dropped;
    }
    sides.client.outstanding += c.outstanding.count('client');
    sides.server.outstanding += c.outstanding.count('server');
  }
  for (const live of relay.analyzer.live()) {
    for (const role of ['client', 'server'] as const) {
      const s = sides[role];
      const d = live[role];
      s.retransmissions += d.retransmissions;
      s.rounds += d.fragmentRounds;
      s.stale += d.staleAcks;
      s.outbox += d.ackOutbox;
    }
  }
  const fmt = (name: string, s: Side) => `${name}: unacked ${s.outstanding} resent ${s.retransmissions} frag-rounds ${s.rounds} stale ${s.stale} outbox ${s.outbox}`;
  return `proxy ${elapsedS.toFixed(0)}s ${relay.clients.length} cl fwd ${forwarded} drop ${dropped} | ${fmt('C', sides.client)} | ${fmt('S', sides.server)}`;
}

/** Starts refreshing; the returned function stops and clears the line. */
export function startStatus(write: (text: string) => void, relay: ProxyRelay, elapsedS: () => number): () => void {
  const timer = setInterval(() => write(`\r${statusLine(relay, elapsedS())}\x1b[K`), STATUS_INTERVAL_MS);
  return () => {
    clearInterval(timer);
    write('\r\x1b[K');
  };
}
