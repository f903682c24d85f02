// The proxy's status line (the analysis figures per peer,
// live, on a TTY). One line, rewritten with \r about twice a
// second, only when stderr is a terminal; cleared at exit. The ACK-outbox is
// each end's estimate under the ACK behaviour its own wire shows so far
// (capture/ack-behaviour.ts), summed over the clients; "?" while unknown.
import type { ProxyRelay } from './relay.js';

const STATUS_INTERVAL_MS = 500;

interface Side {
  outstanding: number;
  retransmissions: number;
  rounds: number;
  stale: number;
  outbox: number;
  /** Ends whose behaviour is still unknown (no estimate), and the behaviours seen. */
  unknown: number;
  behaviours: Set<string>;
}

/** The line for the relay's state `elapsedS` seconds in (totals over clients). */
export function statusLine(relay: ProxyRelay, elapsedS: number): string {
  const side = (): Side => ({
    outstanding: 0,
    retransmissions: 0,
    rounds: 0,
    stale: 0,
    outbox: 0,
    unknown: 0,
    behaviours: new Set(),
  });
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
      if (d.ackOutbox === null) s.unknown++;
      else {
        s.outbox += d.ackOutbox;
        s.behaviours.add(d.ackBehaviour);
      }
    }
  }
  const outbox = (s: Side) =>
    s.behaviours.size === 0
      ? '? (unknown)'
      : `${s.outbox}${s.unknown > 0 ? '+?' : ''} (${[...s.behaviours].join('/')})`;
  const fmt = (name: string, s: Side) =>
    `${name}: unacked ${s.outstanding} resent ${s.retransmissions} frag-rounds ${s.rounds} stale ${s.stale} outbox ${outbox(s)}`;
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
