// Runs generated specs and checks them. A run that throws (the transport's own assertions,
// an engine invariant, a limit) is a failure of its own (invariant 5), never a crash of the swarm.
import { runScenario } from '../../model/session/index.js';
import type { RunResult, SessionObserver } from '../../model/session/index.js';
import { loadScenario } from '../../model/scenario/index.js';
import type { Scenario } from '../../model/scenario/index.js';
import { EndEvidence } from './end-evidence.js';
import { checkRun, isEnded } from './invariants.js';
import type { RunTimeline, Violation } from './invariants.js';
import { loadRun, parseReproCommand } from './repro.js';
import type { Peer, RunSpec } from './spec.js';

export interface RunOutcome {
  readonly spec: RunSpec;
  readonly violations: readonly Violation[];
  /** Configured faults that never acted on a connection the link ended first: not exercised, not failed. */
  readonly notExercised: readonly string[];
  /** How each end came about (one line per ended peer). */
  readonly ends: readonly string[];
  readonly states: Record<Peer, string>;
  /** A one-line digest of the delivery ledger. */
  readonly ledger: string;
  /** The run's trace hash: equal hashes, identical runs ('' when the run threw). */
  readonly traceHash: string;
}

/** Loads and runs a spec exactly as `bcsim run <base> --mode M --seed N --set …` does, then checks it. */
export function executeRun(spec: RunSpec): RunOutcome {
  return executeScenario(spec, () => loadRun(spec), spec.seed);
}

/**
 * Runs a printed reproduction command (`bcsim run …` as formatFailure prints it) and checks the
 * result against `spec`'s expectations: what a developer gets from pasting the command.
 */
export function executeCommand(line: string, spec: RunSpec): RunOutcome {
  const command = parseReproCommand(line);
  if (command.preset !== spec.preset) throw new Error(`expected --mode ${spec.preset} in: ${line}`);
  return executeScenario(spec, () => loadScenario(command.base, { sets: command.sets }), command.seed);
}

export interface ExecuteOptions {
  /** Watches the run too (a trace, a capture, the shrinker's recorder). */
  readonly observer?: SessionObserver;
}

/** Runs a loaded scenario with the spec's preset and `seed`, and checks it against the spec. */
export function executeScenario(
  spec: RunSpec,
  load: () => Scenario,
  seed: number,
  options: ExecuteOptions = {},
): RunOutcome {
  const timeline: RunTimeline = { firstEndUs: null, firstEndBy: null };
  const extra = options.observer;
  // Fixed mode judges every end that was not graceful by what the wire shows (ends.ts).
  const evidence = spec.preset === 'fixed' ? new EndEvidence() : null;
  const wire = evidence?.observer(isEnded);
  const observer: SessionObserver = {
    ...extra,
    stateChanged(timeUs, role, state, client) {
      if (timeline.firstEndUs === null && isEnded(state)) {
        timeline.firstEndUs = timeUs;
        timeline.firstEndBy = `${role} ${state}`;
      }
      wire?.stateChanged?.(timeUs, role, state, client);
      extra?.stateChanged?.(timeUs, role, state, client);
    },
  };
  if (wire !== undefined) {
    observer.datagramSent = (timeUs, from, bytes, uids, notes, client) => {
      wire.datagramSent?.(timeUs, from, bytes, uids, notes, client);
      extra?.datagramSent?.(timeUs, from, bytes, uids, notes, client);
    };
    observer.datagramArrived = (timeUs, to, bytes, duplicate, client) => {
      wire.datagramArrived?.(timeUs, to, bytes, duplicate, client);
      extra?.datagramArrived?.(timeUs, to, bytes, duplicate, client);
    };
  }
  // A scenario that does not load is bad input, not a failing run: its error goes to the caller.
  const scenario = load();
  let result: RunResult;
  try {
    result = runScenario(scenario, { preset: spec.preset, seed, observer });
  } catch (error) {
    const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    const violations: Violation[] = [{ invariant: '5 the run threw', detail, message: null, messages: [] }];
    return {
      spec,
      violations,
      notExercised: [],
      ends: [],
      states: { server: 'error', client: 'error' },
      ledger: 'none (the run threw)',
      traceHash: '',
    };
  }
  const { violations, notExercised, ends } = checkRun(spec, result, timeline, evidence);
  const d = result.summary.delivery;
  return {
    spec,
    violations,
    notExercised,
    ends,
    states: { server: result.session.peers.server.state, client: result.session.peers.client.state },
    traceHash: result.summary.traceHash,
    ledger: `sent ${d.reliableSent}, delivered ${d.reliableDelivered}, in flight ${d.reliableInFlight}, lost ${d.reliableLost} (swallowed ${d.reliableSwallowed}), refused ${d.reliableRefused}`,
  };
}

/** Runs specs in order and returns every outcome (the caller decides what to assert). */
export function executeRuns(specs: readonly RunSpec[]): RunOutcome[] {
  return specs.map(executeRun);
}
