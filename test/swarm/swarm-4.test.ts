// Fixed-mode swarm on a third generator seed: runs 0..149. See chunks.ts.
import { MORE_CI_SEEDS, swarmChunks } from './chunks.js';

swarmChunks(0, 150, 50, MORE_CI_SEEDS[1]);
