// The grid of scenario variants: modes × varied values
// (cartesian, in the order given) × seeds, each cell with a stable index, so a
// shard, a merge and a rerun all agree on which run is which. Pure enumeration:
// `bcsim sweep` parses and bounds a grid (sweep/grid.ts) and runs it on workers;
// `reproduce ack-outbox` walks one in-process, in the same order.
import type { PresetName } from '../transport/index.js';

/** One `--vary`: a scenario path and its values, as text for `--set` and as JSON for the result line. */
export interface Vary {
  readonly path: string;
  readonly values: ReadonlyArray<{ readonly text: string; readonly value: unknown }>;
}

export interface GridSpec {
  readonly modes: readonly PresetName[];
  readonly varies: readonly Vary[];
  readonly seeds: readonly number[];
}

export interface GridCell {
  readonly index: number;
  readonly mode: PresetName;
  readonly seed: number;
  /** Position of each vary's value (same order as `varies`). */
  readonly combo: readonly number[];
}

export function comboCount(spec: GridSpec): number {
  return spec.varies.reduce((n, v) => n * v.values.length, 1);
}

export function gridSize(spec: GridSpec): number {
  return spec.modes.length * comboCount(spec) * spec.seeds.length;
}

/** The combination at position `c` of the cartesian product (the last --vary changes fastest). */
function comboAt(spec: GridSpec, c: number): number[] {
  const combo = new Array<number>(spec.varies.length);
  for (let i = spec.varies.length - 1; i >= 0; i--) {
    const n = spec.varies[i].values.length;
    combo[i] = c % n;
    c = Math.floor(c / n);
  }
  return combo;
}

/** Cell `index`: mode outermost, then the values, seeds innermost. Computed, never stored: a grid of a million is a number. */
export function cellAt(spec: GridSpec, index: number): GridCell {
  const seeds = spec.seeds.length;
  const combos = comboCount(spec);
  const seed = spec.seeds[index % seeds];
  const c = Math.floor(index / seeds) % combos;
  const mode = spec.modes[Math.floor(index / (seeds * combos))];
  return { index, mode, seed, combo: comboAt(spec, c) };
}

/** The `--set` edits of one combination. */
export function comboSets(spec: GridSpec, combo: readonly number[]): string[] {
  return spec.varies.map((v, i) => `${v.path}=${v.values[combo[i]].text}`);
}

/** The combination as the result line's `vary` object. */
export function comboVary(spec: GridSpec, combo: readonly number[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  spec.varies.forEach((v, i) => {
    out[v.path] = v.values[combo[i]].value;
  });
  return out;
}

/** Every cell in index order, lazily (in-process sweeps such as `reproduce ack-outbox`). */
export function* cells(spec: GridSpec): Generator<GridCell> {
  const size = gridSize(spec);
  for (let index = 0; index < size; index++) yield cellAt(spec, index);
}
