// Swarm testing (issues 9 and 15): seeded random scenarios, checked against the invariants.
export { DEFAULT_GENERATOR_SEED, SWARM_RUNS, BASE_SCENARIO, generateRun, generateRuns } from './generator.js';
export { runSwarm, specFor, swarmCommand, parseSwarmCommand, MAX_SWARM_RUNS } from './swarm.js';
export type { SwarmOptions, SwarmResult, ParsedSwarmCommand } from './swarm.js';
export { reproCommand, shellWords } from './repro.js';
export type { RunSpec } from './spec.js';
