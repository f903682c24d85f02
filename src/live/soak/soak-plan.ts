// A soak plays its scenario for the whole --duration. A scenario whose phase
// plan ends sooner and does not repeat (valentines: the 34-minute session, then
// the players leave) is played as a server that stays up: after the join, its
// in-game phases repeat, and the clients leave only at the soak's end, as every
// soak's clients do. The models run the same plan.
import type { Micros } from '../../core/engine/index.js';
import type { Scenario } from '../../model/scenario/index.js';
import { isEventPhase } from '../../model/traffic/index.js';

export interface SoakPlan {
  readonly scenario: Scenario;
  /** The phases that repeat (kinds, in order), or null when the plan is played as it is. */
  readonly repeated: readonly string[] | null;
}

export function soakPlan(scenario: Scenario, durationUs: Micros): SoakPlan {
  const same = { scenario, repeated: null };
  const { phases, repeatFrom } = scenario.traffic;
  if (repeatFrom !== null) return same;
  let planUs = 0;
  for (const p of phases) {
    if (isEventPhase(p)) continue;
    // A phase without a length lasts to the end: the plan never runs out.
    if (p.durationUs === null) return same;
    planUs += p.durationUs;
  }
  if (planUs >= durationUs) return same;
  const first = phases.findIndex((p, i) => !isEventPhase(p) && phases.slice(0, i).some((q) => q.kind === 'join'));
  if (first < 0) return same;
  const after = phases.slice(first).findIndex(isEventPhase);
  const end = after < 0 ? phases.length : first + after;
  const cycle = phases.slice(first, end);
  if (!cycle.some((p) => !isEventPhase(p) && p.durationUs !== null && p.durationUs > 0)) return same;
  return {
    scenario: { ...scenario, traffic: { ...scenario.traffic, phases: phases.slice(0, end), repeatFrom: first } },
    repeated: cycle.map((p) => p.kind),
  };
}
