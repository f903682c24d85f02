// Fixed-mode swarm on the committed generator seed: runs 0..99. See chunks.ts.
import { CI_RUNS_PER_SEED, swarmChunks } from './chunks.js';

swarmChunks(0, CI_RUNS_PER_SEED);
