// The fixed-mode promise, checked on one finished run (issue 9, item 6):
// every reliable message the receiver ACKed is delivered exactly once and in
// order per category; otherwise the connection ends and every undelivered
// message is counted as lost. Every violation is collected, none stops the check.
import { runScenario } from '../../src/session/run.js';
import type { RunResult } from '../../src/session/run.js';
import type { SessionObserver } from '../../src/session/observer.js';
import type { PeerTransport } from '../../src/transport/peer.js';
import { loadScenario } from '../../src/scenario/load.js';
import type { Scenario } from '../../src/scenario/scenario.js';
import { loadRun, parseReproCommand, reproCommand } from './repro.js';
import type { FaultCheck, Peer, RunSpec } from './spec.js';

export interface Violation {
  /** "1 ledger", "2 loss without an ended connection", … (the number is the brief's invariant). */
  readonly invariant: string;
  readonly detail: string;
}

/** What the run observer saw while the run went on. */
export interface RunTimeline {
  /** First time a peer reached a state that is not live (see isEnded), in µs, or null. */
  firstEndUs: number | null;
  firstEndBy: string | null;
}

export interface RunOutcome {
  readonly spec: RunSpec;
  readonly violations: readonly Violation[];
  readonly wallMs: number;
  readonly states: Record<Peer, string>;
  /** A one-line digest of the delivery ledger. */
  readonly ledger: string;
  /** The run's trace hash: equal hashes, identical runs. */
  readonly traceHash: string;
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

/** Loads and runs a spec exactly as `bcsim run <base> --mode fixed --seed N --set …` does, then checks it. */
export function executeRun(spec: RunSpec): RunOutcome {
  return executeScenario(spec, () => loadRun(spec), 'fixed', spec.seed);
}

/**
 * Runs a printed reproduction command (`bcsim run …` as formatFailure prints it) and checks the
 * result against `spec`'s expectations: what a developer gets from pasting the command.
 */
export function executeCommand(line: string, spec: RunSpec): RunOutcome {
  const command = parseReproCommand(line);
  if (command.preset !== 'fixed') throw new Error(`expected --mode fixed in: ${line}`);
  return executeScenario(spec, () => loadScenario(command.base, { sets: command.sets }), 'fixed', command.seed);
}

function executeScenario(spec: RunSpec, load: () => Scenario, preset: 'fixed', seed: number): RunOutcome {
  const t0 = performance.now();
  const timeline: RunTimeline = { firstEndUs: null, firstEndBy: null };
  const observer: SessionObserver = {
    stateChanged(timeUs, role, state) {
      if (timeline.firstEndUs === null && isEnded(state)) {
        timeline.firstEndUs = timeUs;
        timeline.firstEndBy = `${role} ${state}`;
      }
    },
  };
  const result = runScenario(load(), { preset, seed, observer });
  const violations = checkRun(spec, result, timeline);
  const d = result.summary.delivery;
  return {
    spec,
    violations,
    wallMs: performance.now() - t0,
    states: { server: result.session.peers.server.state, client: result.session.peers.client.state },
    traceHash: result.summary.traceHash,
    ledger: `sent ${d.reliableSent}, delivered ${d.reliableDelivered}, in flight ${d.reliableInFlight}, lost ${d.reliableLost} (swallowed ${d.reliableSwallowed}), refused ${d.reliableRefused}`,
  };
}

export function checkRun(spec: RunSpec, result: RunResult, timeline: RunTimeline): Violation[] {
  const out: Violation[] = [];
  const add = (invariant: string, detail: string) => out.push({ invariant, detail });
  const { session, summary } = result;
  const d = summary.delivery;
  const peers = session.peers;
  const stateText = `server ${peers.server.state}, client ${peers.client.state}`;
  const endedPeers = PEERS.filter((p) => isEnded(peers[p].state));
  const anyEnded = endedPeers.length > 0;

  // 1. The ledger balances; nothing is delivered twice, out of order or corrupt.
  if (d.reliableSent !== d.reliableDelivered + d.reliableInFlight + d.reliableLost) {
    add('1 ledger', `reliableSent ${d.reliableSent} != delivered ${d.reliableDelivered} + inFlight ${d.reliableInFlight} + lost ${d.reliableLost}`);
  }
  if (d.duplicateDeliveries !== 0) add('1 ledger', `duplicateDeliveries ${d.duplicateDeliveries}`);
  if (d.outOfOrderDeliveries !== 0) add('1 ledger', `outOfOrderDeliveries ${d.outOfOrderDeliveries}`);
  if (d.corruptDeliveries !== 0) add('1 ledger', `corruptDeliveries ${d.corruptDeliveries}`);

  // 2. Losses only with an ended connection; a graceful disconnect alone loses nothing.
  if (!anyEnded && (d.reliableLost > 0 || d.reliableSwallowed > 0)) {
    add('2 loss without an ended connection', `reliableLost ${d.reliableLost} (swallowed ${d.reliableSwallowed}) while no connection ended (${stateText})`);
  }
  if (endedPeers.length === PEERS.length && d.reliableInFlight > 0) {
    add('2 ended but not counted as lost', `both peers ended (${stateText}) yet reliableInFlight ${d.reliableInFlight}: undelivered messages must be counted as lost`);
  }
  if (spec.expectNoLoss && d.reliableLost > 0) {
    add(
      '2 graceful disconnect lost messages',
      `reliableLost ${d.reliableLost} (swallowed ${d.reliableSwallowed}) in a run whose only connection end is the disconnect phase (${stateText}; first end: ${timeline.firstEndBy ?? 'none'})`,
    );
  }

  // 3. Liveness after the quiet tail: nothing stuck while the connection lives.
  if (!anyEnded) {
    const stuck: string[] = [];
    if (d.reliableInFlight !== 0) stuck.push(`reliableInFlight ${d.reliableInFlight}`);
    for (const p of PEERS) {
      const g = peers[p].gauges();
      const reliableQueued = reliableFirstSends(peers[p]);
      if (g.retransmitQueue !== 0) stuck.push(`${p} retransmitQueue ${g.retransmitQueue}`);
      // The first-send queue may hold unreliable StateUpdates of the lull, waiting for the next update.
      if (reliableQueued !== 0) stuck.push(`${p} firstSendQueue ${g.firstSendQueue} (${reliableQueued} reliable)`);
    }
    if (stuck.length > 0) add('3 liveness', `${stuck.join(', ')} after a ${(spec.tailUs / 1e6).toFixed(0)} s quiet tail, no connection ended (${stateText})`);
    if (spec.disconnectTail) add('3 liveness', `the disconnect phase never completed: ${stateText} after the quiet tail`);
  }

  // 4. Every configured fault fired.
  for (const check of spec.checks) {
    const miss = faultMissed(check, result);
    if (miss !== null) add('4 fault did not fire', miss);
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

// ---------------------------------------------------------------- reporting

/** A best guess at the cause, from the run's classes and what it violated (for the report, not a verdict). */
export function likelyCause(o: RunOutcome): string {
  const names = new Set(o.violations.map((v) => v.invariant));
  const classes = new Set(o.spec.classes);
  if (names.has('0 harness timing') || names.has('4 fault did not fire')) return 'harness: the generator promised something the run did not show';
  if (o.spec.plantedBug !== null) return `planted bug ${o.spec.plantedBug}`;
  if ([...classes].some((c) => c.startsWith('aliasing probe'))) return 'aliasing at high rates (seqs more than half the u16 space apart)';
  if (classes.has('give-up: retryLimit') || classes.has('give-up: maxMessageAgeMs')) return 'give-up does not end the connection (lost while open, or stalls)';
  if (names.has('2 graceful disconnect lost messages')) return 'disconnect loses data';
  if (o.spec.disconnectTail && names.has('3 liveness')) return 'disconnect stalls';
  if (names.has('3 liveness')) return 'stuck: messages in flight with the connection open';
  return 'other';
}

export function formatFailure(o: RunOutcome): string {
  const lines = [
    `run ${o.spec.index} (generator seed ${o.spec.generatorSeed}, run seed ${o.spec.seed}) — likely: ${likelyCause(o)}`,
    `  classes: ${o.spec.classes.join('; ')}`,
    `  end: server ${o.states.server}, client ${o.states.client}; ${o.ledger}`,
    ...o.violations.map((v) => `  ✗ [${v.invariant}] ${v.detail}`),
    `  repro: ${reproCommand(o.spec)}`,
  ];
  return lines.join('\n');
}

export function formatReport(outcomes: readonly RunOutcome[]): string {
  const failures = outcomes.filter((o) => o.violations.length > 0);
  const byCause = new Map<string, number[]>();
  for (const f of failures) {
    const cause = likelyCause(f);
    byCause.set(cause, [...(byCause.get(cause) ?? []), f.spec.index]);
  }
  const head = [
    `${failures.length} of ${outcomes.length} fixed-mode runs broke the promise (generator seed ${outcomes[0]?.spec.generatorSeed}).`,
    ...[...byCause].map(([cause, runs]) => `  ${runs.length} × ${cause}: runs ${runs.join(', ')}`),
    '',
  ];
  return [...head, ...failures.map(formatFailure)].join('\n');
}

/** Runs specs in order and returns every outcome (the caller decides what to assert). */
export function executeRuns(specs: readonly RunSpec[]): RunOutcome[] {
  return specs.map(executeRun);
}

