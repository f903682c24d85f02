// `bcsim shrink`: from a failing swarm run to the smallest scenario that still fails
// the same way. 1) the run is re-run with its link decisions recorded; 2) the recording replaces
// the random processes as an explicit fault list, and the replay must give the same trace hash
// and the same failure; 3) passes shrink duration, fault classes, fault events, traffic and
// values, round after round, until a round accepts nothing or the run budget is spent.
import { usToSeconds, ZERO_US, micros } from '../../core/engine/index.js';
import { executeScenario, failsSameWay, violationKey } from '../swarm/index.js';
import type { RunOutcome, Violation, RunSpec } from '../swarm/index.js';
import { cloneDoc, documentOf, durationUsOf, loadDoc, normalizeLink, setFaults, toEntry } from './case.js';
import type { Doc } from './case.js';
import { Budget } from './ddmin.js';
import { countItems, itemsOf } from './items.js';
import { bisectDuration, dropClasses, minimizeFaults, shrinkTraffic, simplifyValues } from './passes.js';
import type { Judge } from './passes.js';
import { withRecorders } from './record.js';

export const DEFAULT_BUDGET = 500;
/** Harness checks: they describe the generator's promises, not the transport, and a shrunk run breaks them on purpose. */
const HARNESS = new Set(['0 harness timing', '4 fault did not fire']);

export interface ShrinkInput {
  readonly base: string;
  readonly preset: 'fixed' | 'stock';
  readonly seed: number;
  readonly sets: readonly string[];
  /** What the run is judged by (a swarm spec, or a plain one for a `bcsim run` line). */
  readonly spec: RunSpec;
  readonly cwd: string;
  readonly budget?: number;
  /** Called after each accepted candidate (progress). */
  readonly onProgress?: (runs: number, budget: number, faults: number) => void;
}

export interface ShrinkResult {
  /** The failure every accepted candidate reproduced: invariant and message (violationKey). */
  readonly target: string;
  readonly targetDetail: string;
  /** The recorded run, as an explicit fault list (before shrinking). */
  readonly recorded: Doc;
  readonly shrunk: Doc;
  readonly before: ReturnType<typeof countItems>;
  readonly after: ReturnType<typeof countItems>;
  readonly durationBeforeS: number;
  readonly durationAfterS: number;
  /** Runs spent on candidates (the budget counts these), and rounds of passes. */
  readonly runs: number;
  readonly rounds: number;
  readonly originalHash: string;
  readonly replayHash: string;
  readonly final: RunOutcome;
}

export class ShrinkError extends Error {
  override readonly name = 'ShrinkError';
}

/** The spec a candidate is judged by: no harness expectations, any duration. */
function judgeSpec(spec: RunSpec): RunSpec {
  return {
    ...spec,
    checks: [],
    joinAllowanceUs: micros(Number.MAX_SAFE_INTEGER),
    durationUs: micros(Number.MAX_SAFE_INTEGER),
    tailUs: ZERO_US,
  };
}

function target(outcome: RunOutcome): Violation | null {
  return outcome.violations.find((x) => !HARNESS.has(x.invariant)) ?? null;
}

export function shrink(input: ShrinkInput): ShrinkResult {
  const spec = judgeSpec(input.spec);
  const run = (doc: Doc) => executeScenario(spec, () => loadDoc(doc, 'candidate'), input.seed);

  // 1. The failing run, recorded.
  const original = documentOf(input.base, input.preset, input.seed, input.sets, input.cwd);
  normalizeLink(original);
  const { scenario, byClient } = withRecorders(loadDoc(original, input.base));
  const first = executeScenario(spec, () => scenario, input.seed);
  const overflow = first.violations.find((v) => v.detail.startsWith('RecordingLimit: '));
  if (overflow !== undefined) throw new ShrinkError(overflow.detail.slice('RecordingLimit: '.length));
  const goal = target(first);
  if (goal === null) throw new ShrinkError('the run does not fail: nothing to shrink');

  // 2. The recording alone must replay the run: same datagrams, same failure.
  const replayDoc = cloneDoc(original);
  setFaults(
    replayDoc,
    byClient.map((r) => ({
      clientToServer: r.clientToServer.map(toEntry),
      serverToClient: r.serverToClient.map(toEntry),
    })),
  );
  const replay = run(replayDoc);
  if (replay.traceHash !== first.traceHash)
    throw new ShrinkError(
      `the recorded fault list does not replay the run (trace hash ${replay.traceHash.slice(0, 12)} != ${first.traceHash.slice(0, 12)})`,
    );
  if (!failsSameWay(replay.violations, goal))
    throw new ShrinkError(
      `the replay fails differently: ${replay.violations.map(violationKey).join('; ') || 'not at all'} instead of ${violationKey(goal)}`,
    );

  // 3. Shrink.
  const budget = new Budget(input.budget ?? DEFAULT_BUDGET);
  const judge: Judge = {
    budget,
    check(doc) {
      let outcome: RunOutcome;
      try {
        outcome = run(doc);
      } catch {
        return false; // an edit the schema refuses is no candidate
      }
      const same = failsSameWay(outcome.violations, goal);
      if (same) input.onProgress?.(budget.used, budget.max, itemsOf(doc).length);
      return same;
    },
    fails(doc) {
      return budget.take() && judge.check(doc);
    },
  };
  let current = replayDoc;
  let rounds = 0;
  for (;;) {
    rounds++;
    const before = JSON.stringify(current);
    current = bisectDuration(current, durationUsOf(current), judge);
    current = dropClasses(current, judge);
    current = minimizeFaults(current, judge);
    current = shrinkTraffic(current, judge);
    current = simplifyValues(current, judge);
    if (JSON.stringify(current) === before || budget.exhausted) break;
  }
  const final = run(current);
  return {
    target: violationKey(goal),
    targetDetail: goal.detail,
    recorded: replayDoc,
    shrunk: current,
    before: countItems(itemsOf(replayDoc)),
    after: countItems(itemsOf(current)),
    durationBeforeS: usToSeconds(durationUsOf(replayDoc)),
    durationAfterS: usToSeconds(durationUsOf(current)),
    runs: budget.used,
    rounds,
    originalHash: first.traceHash,
    replayHash: replay.traceHash,
    final,
  };
}
