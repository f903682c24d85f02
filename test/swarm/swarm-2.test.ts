// Fixed-mode swarm, second half: runs 150..299. See generator.ts and invariants.ts.
import { SWARM_RUNS } from '../../src/tools/swarm/generator.js';
import { swarmChunks } from './chunks.js';

swarmChunks(150, SWARM_RUNS);
