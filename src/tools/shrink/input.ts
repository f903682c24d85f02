// What `bcsim shrink` accepts: the line swarm printed for a failure, either form.
// - `bcsim swarm --seed G --index I [--mode M] [--switch s]…`: the run is regenerated, and judged
//   by its spec (e.g. "a graceful disconnect loses nothing");
// - `bcsim run <base> --mode M --seed N --set … [--json]`: judged by the invariants any run has
//   (ledger, loss only with an ended connection, liveness, bounded queues, no throw).
import { ZERO_US, micros } from '../../core/engine/index.js';
import { parseReproCommand, parseSwarmCommand, specFor } from '../swarm/index.js';
import type { RunSpec } from '../swarm/index.js';
import type { ShrinkInput } from './shrink.js';

export function parseShrinkLine(line: string, cwd: string): Omit<ShrinkInput, 'budget' | 'onProgress'> {
  const trimmed = line
    .trim()
    .replace(/^repro:\s*/, '')
    .replace(/^swarm:\s*/, '');
  if (/^bcsim\s+swarm\b/.test(trimmed)) {
    const c = parseSwarmCommand(trimmed);
    const spec = specFor(c.generatorSeed, c.index, c.preset, c.switches);
    return { base: spec.base, preset: spec.preset, seed: spec.seed, sets: spec.sets, spec, cwd };
  }
  if (!/^bcsim\s+run\b/.test(trimmed))
    throw new Error(
      'expected the line swarm printed: "bcsim swarm --seed G --index I …" or "bcsim run <scenario> --mode M --seed N --set …"',
    );
  const c = parseReproCommand(trimmed);
  if (c.preset !== 'fixed' && c.preset !== 'stock') throw new Error(`--mode: expected fixed or stock, got ${c.preset}`);
  if (!Number.isSafeInteger(c.seed)) throw new Error('the run line needs --seed N');
  const spec: RunSpec = {
    preset: c.preset,
    generatorSeed: 0,
    index: 0,
    base: c.base,
    seed: c.seed,
    // (informative only: the checks read the session's connections)
    clients: Number(c.sets.find((x) => x.startsWith('clients='))?.slice('clients='.length) ?? 1) || 1,
    sets: c.sets,
    checks: [],
    classes: [],
    durationUs: ZERO_US,
    joinAllowanceUs: micros(Number.MAX_SAFE_INTEGER),
    tailUs: ZERO_US,
    disconnectTail: false,
    plantedBug: null,
  };
  return { base: c.base, preset: c.preset, seed: c.seed, sets: c.sets, spec, cwd };
}
