// Fixed-mode swarm on a second generator seed: runs 0..99. See chunks.ts.
import { CI_RUNS_PER_SEED, MORE_CI_SEEDS, swarmChunks } from './chunks.js';

swarmChunks(0, CI_RUNS_PER_SEED, 50, MORE_CI_SEEDS[0]);
