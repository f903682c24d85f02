// Fixed-mode swarm, first half: runs 0..149. See generator.ts and invariants.ts.
import { swarmChunks } from './chunks.js';

swarmChunks(0, 150);
