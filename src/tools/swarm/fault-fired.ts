// Invariant 4: every configured fault was seen to act. A fault of the shared link blocks acts on
// every client's links, so it must fire on each connection; one of link.clients["k"] on client k's.
// (On a connection the link ended first, a fault that never acted was not exercised: invariants.ts.)
import type { RunResult, Connection } from '../../model/session/index.js';
import type { FaultCheck } from './spec.js';

/** One connection a configured fault never acted on. */
export interface FaultMiss {
  readonly client: number;
  /** "loss configured on clientToServer but droppedBy.loss = 0", prefixed with the client when there are several. */
  readonly text: string;
}

export function faultMisses(check: FaultCheck, result: RunResult): FaultMiss[] {
  const connections = result.session.connections;
  const many = connections.length > 1;
  const misses: FaultMiss[] = [];
  for (const c of connections) {
    if (check.fault !== 'giveUp' && check.client !== undefined && check.client !== c.client) continue;
    const miss = missedOn(check, c);
    if (miss !== null) misses.push({ client: c.client, text: many ? `client ${c.client}: ${miss}` : miss });
  }
  return misses;
}

function missedOn(check: FaultCheck, c: Connection): string | null {
  if (check.fault === 'giveUp') {
    const gaveUp = (check.peer === 'server' ? c.serverPeer : c.clientPeer).counters.gaveUp;
    return gaveUp > 0 ? null : `give-up policy configured but ${check.peer} gaveUp = 0`;
  }
  const counters = c.links[check.direction].counters;
  const where = check.direction;
  switch (check.fault) {
    case 'loss':
      return counters.droppedBy.loss > 0 ? null : `loss configured on ${where} but droppedBy.loss = 0`;
    case 'duplicate':
      return counters.duplicated > 0 ? null : `duplication configured on ${where} but duplicated = 0`;
    case 'outage':
      return counters.droppedBy.outage > 0 ? null : `outage configured on ${where} but droppedBy.outage = 0`;
    case 'rule':
      return counters.droppedBy.rule + counters.messagesDropped > 0
        ? null
        : `drop rule configured on ${where} but droppedBy.rule + messagesDropped = 0`;
    case 'reorder':
      return counters.reordered > 0
        ? null
        : `reordering (netem reorder or jitter) configured on ${where} but reordered = 0`;
    case 'bandwidth':
      return counters.bucketDelayed > 0 ? null : `bandwidth cap configured on ${where} but bucketDelayed = 0`;
    case 'slot':
      return counters.slotDelayed > 0 ? null : `slot configured on ${where} but slotDelayed = 0`;
  }
}
