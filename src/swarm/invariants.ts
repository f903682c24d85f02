// The swarm's invariants, checked on one finished run (issues 9 and 15): every reliable
// message the receiver ACKed is delivered exactly once and in order per category; otherwise
// the connection ends and every undelivered message is counted as lost. Fixed mode also keeps
// its queues bounded. Every violation is collected, none stops the check.
import type { RunResult } from '../session/run.js';
import type { DeliveryAnomaly } from '../session/ledger.js';
import type { PeerTransport } from '../transport/peer.js';
import type { FaultCheck, Peer, RunSpec } from './spec.js';

/** The message a violation is about: the shrinker keeps a candidate only if this stays the same. */
export interface MessageKey {
  readonly kind: DeliveryAnomaly['kind'];
  readonly from: Peer;
  readonly category: 'low' | 'high';
  readonly seq: number;
}

export interface Violation {
  /** "1 ledger", "2 loss without an ended connection", … (the number is the brief's invariant). */
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

const PEERS: readonly Peer[] = ['server', 'client'];

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

function messageText(m: MessageKey): string {
  return `${m.kind} ${m.from} ${m.category} seq ${m.seq}`;
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

function anomalies(result: RunResult, kinds: ReadonlyArray<DeliveryAnomaly['kind']>): MessageKey[] {
  return result.summary.delivery.anomalies.list.filter((x) => kinds.includes(x.kind)).map((a) => ({ kind: a.kind, from: a.from, category: a.category, seq: a.seq }));
}

export function checkRun(spec: RunSpec, result: RunResult, timeline: RunTimeline): Violation[] {
  const out: Violation[] = [];
  const add = (invariant: string, detail: string, messages: MessageKey[] = []) => out.push({ invariant, detail, message: messages[0] ?? null, messages });
  const { session, summary } = result;
  const d = summary.delivery;
  const peers = session.peers;
  const stateText = `server ${peers.server.state}, client ${peers.client.state}`;
  const endedPeers = PEERS.filter((p) => isEnded(peers[p].state));
  const anyEnded = endedPeers.length > 0;
  const fixed = spec.preset === 'fixed';

  // 1. The ledger balances; nothing is delivered twice, out of order or corrupt.
  if (d.reliableSent !== d.reliableDelivered + d.reliableInFlight + d.reliableLost) {
    add('1 ledger', `reliableSent ${d.reliableSent} != delivered ${d.reliableDelivered} + inFlight ${d.reliableInFlight} + lost ${d.reliableLost}`);
  }
  if (d.duplicateDeliveries !== 0) add('1 ledger: duplicate', `duplicateDeliveries ${d.duplicateDeliveries}`, anomalies(result, ['duplicate']));
  if (d.outOfOrderDeliveries !== 0) add('1 ledger: out of order', `outOfOrderDeliveries ${d.outOfOrderDeliveries}`, anomalies(result, ['out-of-order']));
  if (d.corruptDeliveries !== 0) add('1 ledger: corrupt', `corruptDeliveries ${d.corruptDeliveries}`);

  // 2 and 3 are the fixed-mode promise: stock is known to break them (docs/transport.md).
  if (fixed) checkPromise(spec, result, timeline, add, { anyEnded, bothEnded: endedPeers.length === PEERS.length, stateText });

  // 4. Every configured fault fired.
  for (const check of spec.checks) {
    const miss = faultMissed(check, result);
    if (miss !== null) add('4 fault did not fire', miss);
  }

  // 6. Bounded queues (fixed mode): no dead-zone ACK-outbox entry ever, an empty outbox after the quiet tail.
  if (fixed) {
    for (const p of PEERS) {
      const s = summary.peers[p];
      if (s.ackOutboxDeadZone.max !== 0) add('6 bounded queues', `${p} ackOutboxDeadZone.max ${s.ackOutboxDeadZone.max} (fixed mode keeps no dead-zone entry)`);
      if (!anyEnded && peers[p].gauges().ackOutbox !== 0) add('6 bounded queues', `${p} ackOutbox ${peers[p].gauges().ackOutbox} after the quiet tail (${stateText})`);
    }
  }

  // 0. The generator's timing assumptions held (else the windows or the tail are not what the spec says).
  const endedEarlyUs = timeline.firstEndUs ?? Number.POSITIVE_INFINITY;
  const log = session.traffic.phaseLog;
  const afterJoin = log.find((p) => p.index === 1);
  if ((afterJoin === undefined || afterJoin.startUs > spec.joinAllowanceUs) && endedEarlyUs > spec.joinAllowanceUs) {
    add('0 harness timing', `the join ended at ${afterJoin ? (afterJoin.startUs / 1e6).toFixed(3) : 'never'} s, after its ${spec.joinAllowanceUs / 1e6} s allowance`);
  }
  const lastIndex = session.scenario.traffic.phases.length - 1;
  const tail = log.find((p) => p.index === lastIndex);
  const tailLatestUs = spec.durationUs - spec.tailUs;
  if ((tail === undefined || tail.startUs > tailLatestUs) && endedEarlyUs > tailLatestUs) {
    add('0 harness timing', `the quiet tail started at ${tail ? (tail.startUs / 1e6).toFixed(3) : 'never'} s, after ${tailLatestUs / 1e6} s`);
  }
  return out;
}

type Add = (invariant: string, detail: string, messages?: MessageKey[]) => void;

function checkPromise(spec: RunSpec, result: RunResult, timeline: RunTimeline, add: Add, s: { anyEnded: boolean; bothEnded: boolean; stateText: string }): void {
  const d = result.summary.delivery;
  const peers = result.session.peers;
  const lostKey = () => anomalies(result, ['swallowed', 'lost']);
  // 2. Losses only with an ended connection; a graceful disconnect alone loses nothing.
  if (!s.anyEnded && (d.reliableLost > 0 || d.reliableSwallowed > 0)) {
    add('2 loss without an ended connection', `reliableLost ${d.reliableLost} (swallowed ${d.reliableSwallowed}) while no connection ended (${s.stateText})`, lostKey());
  }
  if (s.bothEnded && d.reliableInFlight > 0) {
    add('2 ended but not counted as lost', `both peers ended (${s.stateText}) yet reliableInFlight ${d.reliableInFlight}: undelivered messages must be counted as lost`);
  }
  if (spec.expectNoLoss && d.reliableLost > 0) {
    add(
      '2 graceful disconnect lost messages',
      `reliableLost ${d.reliableLost} (swallowed ${d.reliableSwallowed}) in a run whose only connection end is the disconnect phase (${s.stateText}; first end: ${timeline.firstEndBy ?? 'none'})`,
      lostKey(),
    );
  }
  // 3. Liveness after the quiet tail: nothing stuck while the connection lives.
  if (s.anyEnded) return;
  const stuck: string[] = [];
  if (d.reliableInFlight !== 0) stuck.push(`reliableInFlight ${d.reliableInFlight}`);
  for (const p of PEERS) {
    const g = peers[p].gauges();
    const reliableQueued = reliableFirstSends(peers[p]);
    if (g.retransmitQueue !== 0) stuck.push(`${p} retransmitQueue ${g.retransmitQueue}`);
    // The first-send queue may hold unreliable StateUpdates of the lull, waiting for the next update.
    if (reliableQueued !== 0) stuck.push(`${p} firstSendQueue ${g.firstSendQueue} (${reliableQueued} reliable)`);
  }
  if (stuck.length > 0) add('3 liveness', `${stuck.join(', ')} after a ${(spec.tailUs / 1e6).toFixed(0)} s quiet tail, no connection ended (${s.stateText})`);
  if (spec.disconnectTail) add('3 liveness', `the disconnect phase never completed: ${s.stateText} after the quiet tail`);
}

function reliableFirstSends(peer: PeerTransport): number {
  let n = 0;
  for (const message of peer.firstSendQueue.values()) if (message.reliable) n++;
  return n;
}

function faultMissed(check: FaultCheck, result: RunResult): string | null {
  if (check.fault === 'giveUp') {
    const gaveUp = result.session.peers[check.peer].counters.gaveUp;
    return gaveUp > 0 ? null : `give-up policy configured but ${check.peer} gaveUp = 0`;
  }
  const c = result.session.connections[0].links[check.direction].counters;
  const where = check.direction;
  switch (check.fault) {
    case 'loss':
      return c.droppedBy.loss > 0 ? null : `loss configured on ${where} but droppedBy.loss = 0`;
    case 'duplicate':
      return c.duplicated > 0 ? null : `duplication configured on ${where} but duplicated = 0`;
    case 'outage':
      return c.droppedBy.outage > 0 ? null : `outage configured on ${where} but droppedBy.outage = 0`;
    case 'rule':
      return c.droppedBy.rule + c.messagesDropped > 0 ? null : `drop rule configured on ${where} but droppedBy.rule + messagesDropped = 0`;
    case 'reorder':
      return c.reordered > 0 ? null : `reordering (netem reorder or jitter) configured on ${where} but reordered = 0`;
    case 'bandwidth':
      return c.bucketDelayed > 0 ? null : `bandwidth cap configured on ${where} but bucketDelayed = 0`;
    case 'slot':
      return c.slotDelayed > 0 ? null : `slot configured on ${where} but slotDelayed = 0`;
  }
}

