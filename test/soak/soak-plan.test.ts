// A soak plays its scenario for the whole --duration: a plan that ends sooner
// repeats its in-game phases after the join; one that repeats, or lasts, is kept.
import { describe, expect, it } from 'vitest';
import { micros } from '../../src/core/engine/index.js';
import { soakPlan } from '../../src/live/soak/soak-plan.js';
import { loadScenario } from '../../src/model/scenario/load.js';

const HOUR_US = micros(3_600_000_000);

describe('soakPlan', () => {
  it("valentines for 4 h: the join, then combat and quiet repeating; its final disconnect is the soak's own goodbye", () => {
    const plan = soakPlan(loadScenario('valentines'), micros(4 * HOUR_US));
    expect(plan.repeated).toEqual(['combat', 'quiet']);
    expect(plan.scenario.traffic.phases.map((p) => p.kind)).toEqual(['join', 'combat', 'quiet']);
    expect(plan.scenario.traffic.repeatFrom).toBe(1);
  });

  it('valentines for 10 minutes, and long-session (which repeats already) for 8 h: played as they are', () => {
    const valentines = loadScenario('valentines');
    expect(soakPlan(valentines, micros(600_000_000))).toEqual({ scenario: valentines, repeated: null });
    const long = loadScenario('long-session');
    expect(soakPlan(long, micros(8 * HOUR_US))).toEqual({ scenario: long, repeated: null });
  });
});
