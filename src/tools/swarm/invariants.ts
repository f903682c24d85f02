// The swarm's invariants, checked on one finished run: every reliable
// message the receiver ACKed is delivered exactly once and in order per category; otherwise
// the connection ends and every undelivered message is counted as lost. A connection ends only
// gracefully (and then loses nothing), by a configured give-up policy, or at a deadline the link
// forced (docs/stock-and-fixed.md#the-fixed-mode-promise; ends.ts). Fixed mode also keeps its queues bounded.
// Invariants 2, 3, 4 and 6 hold per connection (one per client). Every violation is collected,
// none stops the check.
import { usToSeconds } from '../../core/engine/index.js';
import type { RunResult, DeliveryAnomaly, Connection } from '../../model/session/index.js';
import { connectionKey } from '../../model/session/index.js';
import { connectionEnded } from '../../model/transport/index.js';
import type { PeerTransport } from '../../model/transport/index.js';
import { faultMisses } from './fault-fired.js';
import type { EndEvidence } from './end-evidence.js';
import { connectionEnds, peerEndText } from './ends.js';
import type { ConnectionEnds } from './ends.js';
import type { Peer, RunSpec } from './spec.js';

/** The message a violation is about: the shrinker keeps a candidate only if this stays the same. */
interface MessageKey {
  /** An anomaly of the ledger, or 'given-up': the message an end the link did not force gave up on. */
  readonly kind: DeliveryAnomaly['kind'] | 'given-up';
  readonly from: Peer;
  readonly category: 'low' | 'high';
  readonly seq: number;
  /** The connection it travelled on (client 1, 2, …). */
  readonly client: number;
}

export interface Violation {
  /** "1 ledger", "2 loss without an ended connection", … (the invariant's number, then its name). */
  readonly invariant: string;
  readonly detail: string;
  /** The earliest anomaly behind a ledger or loss violation (null for the others). */
  readonly message?: MessageKey | null;
  /** Every listed anomaly of its kinds (the ledger lists the earliest 25 of each kind). */
  readonly messages?: readonly MessageKey[];
}

/** What the run observer saw while the run went on. */
export interface RunTimeline {
  /** First time a peer reached a state that is not live (see isEnded), in µs, or null. */
  firstEndUs: number | null;
  firstEndBy: string | null;
}

/**
 * The live states: open, and the two on the way to a graceful close (draining: the drain close
 * policy is emptying its queues; disconnecting: the Disconnect is out). Every other state
 * (closed, timed-out, gave-up, or one added later) ended the connection.
 */
const LIVE_STATES: ReadonlySet<string> = new Set(['open', 'draining', 'disconnecting']);

export function isEnded(state: string): boolean {
  return !LIVE_STATES.has(state);
}

/** "2 loss …/lost client high seq 12": what the shrinker compares. */
export function violationKey(v: Violation): string {
  const m = v.message;
  return m ? `${v.invariant}/${messageText(m)}` : v.invariant;
}

/** Client 1's messages read as in one-client runs; another client's name it. */
function messageText(m: MessageKey): string {
  const on = (m.client ?? 1) === 1 ? '' : ` on client ${m.client}`;
  return `${m.kind} ${m.from} ${m.category} seq ${m.seq}${on}`;
}

/**
 * "The same failure" for the shrinker: the same invariant, and (when the target names a message)
 * that very message among the violation's listed anomalies: same kind, sending side, category and seq.
 */
export function failsSameWay(violations: readonly Violation[], target: Violation): boolean {
  return violations.some((v) => {
    if (v.invariant !== target.invariant) return false;
    const m = target.message;
    if (!m) return true;
    return (v.messages ?? []).some((x) => messageText(x) === messageText(m));
  });
}

function anomalies(result: RunResult, kinds: ReadonlyArray<DeliveryAnomaly['kind']>, client?: number): MessageKey[] {
  return result.summary.delivery.anomalies.list
    .filter((x) => kinds.includes(x.kind) && (client === undefined || x.client === client))
    .map((a) => ({ kind: a.kind, from: a.from, category: a.category, seq: a.seq, client: a.client }));
}

/** One connection as the checks see it. */
interface ConnectionCheck {
  readonly c: Connection;
  readonly peers: Readonly<Record<Peer, PeerTransport>>;
  /** The summary's key of the connection (its slot). */
  readonly key: string;
  readonly ended: boolean;
  readonly bothEnded: boolean;
  /** "server open, client open" (prefixed with the client when there are several). */
  readonly stateText: string;
  readonly counts: { sent: number; delivered: number; inFlight: number; lost: number; swallowed: number };
}

function connectionChecks(result: RunResult): ConnectionCheck[] {
  const { session } = result;
  const many = session.connections.length > 1;
  // As Session.deliveryStats: a message held by a receiver is in flight while its sender lives.
  const held = new Set<number>();
  for (const c of session.connections) {
    if (!connectionEnded(c.clientPeer.state)) for (const uid of c.serverPeer.heldUids()) held.add(uid);
    if (!connectionEnded(c.serverPeer.state)) for (const uid of c.clientPeer.heldUids()) held.add(uid);
  }
  return session.connections.map((c) => {
    const peers = { server: c.serverPeer, client: c.clientPeer };
    const endedPeers = [peers.server, peers.client].filter((p) => isEnded(p.state)).length;
    return {
      c,
      peers,
      key: connectionKey(c.client, session.server.slotOf(c.client - 1)),
      ended: endedPeers > 0,
      bothEnded: endedPeers === 2,
      stateText: `${many ? `client ${c.client}: ` : ''}server ${peers.server.state}, client ${peers.client.state}`,
      counts: session.ledger.connectionCounts(c.client, held),
    };
  });
}

/** What the checks found: the violations, and what the run could not show (not a failure). */
export interface RunCheck {
  readonly violations: Violation[];
  /** Configured faults that never acted on a connection the link had ended first. */
  readonly notExercised: string[];
  /** How each connection ended that did (one line per end). */
  readonly ends: string[];
}

/** `evidence`: the wire record the fixed-mode end checks judge by (null in stock mode). */
export function checkRun(
  spec: RunSpec,
  result: RunResult,
  timeline: RunTimeline,
  evidence: EndEvidence | null,
): RunCheck {
  const out: Violation[] = [];
  const notExercised: string[] = [];
  const add = (invariant: string, detail: string, messages: MessageKey[] = []) =>
    out.push({ invariant, detail, message: messages[0] ?? null, messages });
  const { session, summary } = result;
  const d = summary.delivery;
  const connections = connectionChecks(result);
  const fixed = spec.preset === 'fixed';
  const ends = connectionEnds(result, fixed ? evidence : null, isEnded);
  const many = ends.length > 1;

  // 1. The ledger balances; nothing is delivered twice, out of order or corrupt (over every connection).
  if (d.reliableSent !== d.reliableDelivered + d.reliableInFlight + d.reliableLost) {
    add(
      '1 ledger',
      `reliableSent ${d.reliableSent} != delivered ${d.reliableDelivered} + inFlight ${d.reliableInFlight} + lost ${d.reliableLost}`,
    );
  }
  if (d.duplicateDeliveries !== 0)
    add('1 ledger: duplicate', `duplicateDeliveries ${d.duplicateDeliveries}`, anomalies(result, ['duplicate']));
  if (d.outOfOrderDeliveries !== 0)
    add(
      '1 ledger: out of order',
      `outOfOrderDeliveries ${d.outOfOrderDeliveries}`,
      anomalies(result, ['out-of-order']),
    );
  if (d.corruptDeliveries !== 0) add('1 ledger: corrupt', `corruptDeliveries ${d.corruptDeliveries}`);

  // 2 and 3 are the fixed-mode promise: stock is known to break them (docs/transport.md).
  if (fixed) checkPromise(spec, result, add, connections, ends);

  // 4. Every configured fault fired (on each connection it is configured on), unless the link ended that connection first.
  const endedByLink = new Set(ends.filter((e) => e.endedByLink).map((e) => e.client));
  for (const check of spec.checks) {
    const misses = faultMisses(check, result);
    const missed = misses.filter((m) => !endedByLink.has(m.client));
    if (missed.length > 0) add('4 fault did not fire', missed.map((m) => m.text).join('; '));
    for (const m of misses) if (endedByLink.has(m.client)) notExercised.push(m.text);
  }

  // 6. Bounded queues (fixed mode), per connection: no dead-zone ACK-outbox entry ever, an empty outbox after the quiet tail.
  if (fixed) {
    const many = connections.length > 1;
    for (const x of connections) {
      const figures = { server: summary.peers.server.connections[x.key], client: summary.peers.clients[x.key] };
      for (const p of ['server', 'client'] as const) {
        const who = many ? `client ${x.c.client}'s ${p === 'server' ? 'server side' : 'client'}` : p;
        const deadZoneMax = figures[p]?.ackOutboxDeadZone.max ?? x.peers[p].counters.ackOutboxDeadZoneMax;
        if (deadZoneMax !== 0)
          add('6 bounded queues', `${who} ackOutboxDeadZone.max ${deadZoneMax} (fixed mode keeps no dead-zone entry)`);
        const outbox = x.peers[p].gauges().ackOutbox;
        if (!x.ended && outbox !== 0)
          add('6 bounded queues', `${who} ackOutbox ${outbox} after the quiet tail (${x.stateText})`);
      }
    }
  }

  // 0. The generator's timing assumptions held (else the windows or the tail are not what the spec says).
  const endedEarlyUs = timeline.firstEndUs ?? Number.POSITIVE_INFINITY;
  const log = session.traffic.phaseLog;
  const afterJoin = log.find((p) => p.index === 1);
  if ((afterJoin === undefined || afterJoin.startUs > spec.joinAllowanceUs) && endedEarlyUs > spec.joinAllowanceUs) {
    add(
      '0 harness timing',
      `the join ended at ${afterJoin ? usToSeconds(afterJoin.startUs).toFixed(3) : 'never'} s, after its ${usToSeconds(spec.joinAllowanceUs)} s allowance`,
    );
  }
  const lastIndex = session.scenario.traffic.phases.length - 1;
  const tail = log.find((p) => p.index === lastIndex);
  const tailLatestUs = spec.durationUs - spec.tailUs;
  if ((tail === undefined || tail.startUs > tailLatestUs) && endedEarlyUs > tailLatestUs) {
    add(
      '0 harness timing',
      `the quiet tail started at ${tail ? usToSeconds(tail.startUs).toFixed(3) : 'never'} s, after ${usToSeconds(tailLatestUs)} s`,
    );
  }
  const endLines = ends.flatMap((e) => e.ends.map((x) => peerEndText(x, many, e.client)));
  return { violations: out, notExercised, ends: endLines };
}

type Add = (invariant: string, detail: string, messages?: MessageKey[]) => void;

function checkPromise(
  spec: RunSpec,
  result: RunResult,
  add: Add,
  connections: readonly ConnectionCheck[],
  ends: readonly ConnectionEnds[],
): void {
  const many = connections.length > 1;
  // 2. Losses only on a connection that ended; a graceful close loses nothing; an end that was not
  // graceful is one the link forced (or a configured give-up policy, judged the same way).
  for (const [i, x] of connections.entries()) {
    const n = x.counts;
    const on = many ? ` on client ${x.c.client}` : '';
    if (!x.ended && n.lost > 0) {
      add(
        '2 loss without an ended connection',
        `reliableLost ${n.lost}${on} (swallowed ${n.swallowed}) while its connection did not end (${x.stateText})`,
        anomalies(result, ['swallowed', 'lost'], x.c.client),
      );
    }
    if (x.bothEnded && n.inFlight > 0) {
      add(
        '2 ended but not counted as lost',
        `both peers ended (${x.stateText}) yet reliableInFlight ${n.inFlight}${on}: undelivered messages must be counted as lost`,
      );
    }
    const e = ends[i];
    if (e.closedBoth && n.lost > 0) {
      add(
        '2 graceful close lost messages',
        `reliableLost ${n.lost}${on} (swallowed ${n.swallowed}) although both ends closed gracefully (${x.stateText})`,
        anomalies(result, ['swallowed', 'lost'], x.c.client),
      );
    }
    for (const end of e.ends) {
      if (end.verdict === null || end.verdict.forced) continue;
      const m = end.message;
      const key: MessageKey[] =
        m === null
          ? []
          : [{ kind: 'given-up', from: end.role, category: m.low ? 'low' : 'high', seq: m.seq, client: e.client }];
      add('2 end the link did not force', peerEndText(end, many, e.client), key);
    }
  }
  // 3. Liveness after the quiet tail: nothing stuck on a connection that lives.
  for (const x of connections) {
    if (x.ended) continue;
    const stuck: string[] = [];
    if (x.counts.inFlight !== 0) stuck.push(`reliableInFlight ${x.counts.inFlight}`);
    for (const p of ['server', 'client'] as const) {
      const g = x.peers[p].gauges();
      const reliableQueued = reliableFirstSends(x.peers[p]);
      if (g.retransmitQueue !== 0) stuck.push(`${p} retransmitQueue ${g.retransmitQueue}`);
      // The first-send queue may hold unreliable StateUpdates of the lull, waiting for the next update.
      if (reliableQueued !== 0) stuck.push(`${p} firstSendQueue ${g.firstSendQueue} (${reliableQueued} reliable)`);
    }
    if (stuck.length > 0)
      add(
        '3 liveness',
        `${stuck.join(', ')} after a ${(usToSeconds(spec.tailUs)).toFixed(0)} s quiet tail, the connection did not end (${x.stateText})`,
      );
    if (spec.disconnectTail)
      add('3 liveness', `the disconnect phase never completed: ${x.stateText} after the quiet tail`);
  }
}

function reliableFirstSends(peer: PeerTransport): number {
  let n = 0;
  for (const message of peer.firstSendQueue.values()) if (message.reliable) n++;
  return n;
}
