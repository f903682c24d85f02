// Swarm testing: seeded random scenarios, checked against the invariants.
export { DEFAULT_GENERATOR_SEED, SWARM_RUNS, BASE_SCENARIO, generateRun, generateRuns } from './generator.js';
export { runSwarm, specFor, swarmCommand, parseSwarmCommand, switchOptions, MAX_SWARM_RUNS } from './swarm.js';
export type { SwarmOptions, SwarmResult, ParsedSwarmCommand } from './swarm.js';
export { reproCommand, parseReproCommand, shellQuote, shellWords } from './repro.js';
export type { Direction, RunSpec } from './spec.js';
export { executeScenario } from './execute.js';
export type { RunOutcome } from './execute.js';
export { failsSameWay, violationKey } from './invariants.js';
export type { Violation } from './invariants.js';
export { likelyCause } from './report.js';
