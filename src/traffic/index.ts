// Traffic's public surface: the plan a scenario describes, the driver the session
// runs, and the join script and opcodes the live peer and the proxy reuse.
export { DEFAULT_JOIN_STAGGER_US, DEFAULT_PLAN, MEASURED_STATE_UPDATES_PER_DIRECTION, RELIABLE_RATE_PRESETS, isEventPhase } from './plan.js';
export type { Phase, TrafficPlan } from './plan.js';
export { Opcode } from './payloads.js';
export { JOIN_STEPS } from './join.js';
export type { TrafficPort } from './sources.js';
export { TrafficDriver } from './driver.js';
export type { PhaseStart } from './driver.js';
