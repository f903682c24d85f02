// Checks' public surface: expectations, seed lists, --fail-on, the determinism
// comparison and JUnit output.
export { describeSeeds, parseSeedList } from './seeds.js';
export { OP_SYMBOL, PathError, evaluate, failedAssertion, resolvePath } from './assertions.js';
export { FailOnError, checkFailOn, failures, parseFailOn } from './fail-on.js';
export { checkScenario, expectPathProblem, modesToCheck } from './check.js';
export type { CheckRun } from './check.js';
export { compareRuns, runTwice } from './determinism.js';
export { writeJunitFile } from './junit.js';
