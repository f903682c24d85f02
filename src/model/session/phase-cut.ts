// A run shorter than its phase plan (a --duration, a --set duration, trace --until):
// which phase it ended in and which phases never ran, so the cut is said once on
// stderr and recorded in the settings, and `expect` can tell what it cannot judge.
import { formatDuration, usToSeconds } from '../../core/engine/index.js';
import type { MicrosIn } from '../../core/engine/index.js';
import type { PhaseStart, TrafficPlan } from '../traffic/index.js';

export interface PhasePlanCut {
  /** Simulated time at which the run ended. */
  readonly endsAtSeconds: number;
  /** The timed phase the end fell in, before its own end; null when the end fell between phases. */
  readonly inPhase: {
    readonly index: number;
    readonly kind: string;
    readonly startSeconds: number;
    readonly durationSeconds: number;
  } | null;
  /** Phases of the plan that never started (indexes of traffic.phases). */
  readonly notRun: ReadonlyArray<{ readonly index: number; readonly kind: string }>;
  /** The same as one line, the same for every seed: `traffic.phases[2] (disconnect) never runs`. */
  readonly warning: string;
}

/**
 * The cut of a finished run, or null when it ran its plan to the end. A plan's
 * open-ended last phase (no duration) runs until the end by design, and so does a
 * cycle (repeatFrom) once it has been entered: neither is a cut.
 */
export function phasePlanCut(plan: TrafficPlan, log: readonly PhaseStart[], endUs: MicrosIn): PhasePlanCut | null {
  const started = new Set(log.map((p) => p.index));
  const cycleEntered = plan.repeatFrom !== null && started.has(plan.repeatFrom);
  const notRun = plan.phases
    .map((phase, index) => ({ index, kind: phase.kind }))
    .filter(({ index }) => !started.has(index) && !(cycleEntered && index >= (plan.repeatFrom as number)));
  const last = log.at(-1);
  const lastPhase = last === undefined ? undefined : plan.phases[last.index];
  const lastLength = lastPhase !== undefined && 'durationUs' in lastPhase ? lastPhase.durationUs : null;
  // The phase in progress was cut when it has a length it did not reach (a cycle's phases are cut by design).
  const cutInProgress =
    last !== undefined &&
    lastLength !== null &&
    last.startUs + lastLength > endUs &&
    !(cycleEntered && last.index >= (plan.repeatFrom as number));
  if (notRun.length === 0 && !cutInProgress) return null;
  const inPhase =
    cutInProgress && last !== undefined && lastLength !== null
      ? {
          index: last.index,
          kind: last.kind,
          startSeconds: usToSeconds(last.startUs),
          durationSeconds: usToSeconds(lastLength),
        }
      : null;
  const phaseName = (index: number, kind: string) => `traffic.phases[${index}] (${kind}${withLength(plan, index)})`;
  let warning = `the phase plan is cut: the run ends at ${formatDuration(endUs)}`;
  if (inPhase !== null) warning += ` inside ${phaseName(inPhase.index, inPhase.kind)}`;
  if (notRun.length > 0)
    warning += `, and ${notRun.map((p) => phaseName(p.index, p.kind)).join(', ')} never run${notRun.length === 1 ? 's' : ''}`;
  return { endsAtSeconds: usToSeconds(endUs), inPhase, notRun, warning };
}

function withLength(plan: TrafficPlan, index: number): string {
  const phase = plan.phases[index];
  return 'durationUs' in phase && phase.durationUs !== null ? `, ${formatDuration(phase.durationUs)}` : '';
}
