// The sweep grid: modes × varied values (cartesian, in the
// order the flags were given) × seeds, each cell with a stable index, so a
// shard, a merge and a rerun all agree on which run is which. The enumeration
// itself lives in scenario/grid.ts (reproduce walks a grid too); here, the
// flags that describe one and the bounds it must keep.
import { parseSeedList } from '../../analysis/check/index.js';
import { gridSize } from '../../model/scenario/index.js';
import type { GridSpec, Vary } from '../../model/scenario/index.js';
import { PRESET_NAMES } from '../../model/transport/index.js';
import type { PresetName } from '../../model/transport/index.js';
import { SweepInputError } from './errors.js';

export { cellAt, cells, comboCount, comboSets, comboVary, gridSize } from '../../model/scenario/index.js';
export type { GridCell, GridSpec, Vary } from '../../model/scenario/index.js';

/** Most values one --vary may take, and most runs one grid may hold: a typo cannot ask for billions. */
export const MAX_VARY_VALUES = 1_000;
const MAX_VARIES = 8;
export const MAX_GRID_RUNS = 1_000_000;

/** `path=v1,v2,…` or `path=lo..hi:step`. Values are split on top-level commas, so JSON values keep theirs. */
export function parseVary(raw: string): Vary {
  const flag = `--vary ${raw}`;
  const eq = raw.indexOf('=');
  if (eq <= 0 || eq === raw.length - 1)
    throw new SweepInputError(
      `${flag}: expected path=v1,v2,… or path=lo..hi:step, for example link.both.loss=0.05,0.1`,
    );
  const path = raw.slice(0, eq);
  const body = raw.slice(eq + 1);
  const range = /^(-?\d+(?:\.\d+)?)\.\.(-?\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/.exec(body);
  const texts = range ? rangeValues(flag, range[1], range[2], range[3]) : splitTopLevel(flag, body);
  if (texts.length > MAX_VARY_VALUES)
    throw new SweepInputError(
      `${flag}: at most ${MAX_VARY_VALUES.toLocaleString('en-US')} values per --vary, got ${texts.length.toLocaleString('en-US')}`,
    );
  const seen = new Set<string>();
  for (const t of texts) {
    if (seen.has(t)) throw new SweepInputError(`${flag}: the value ${t} is given twice`);
    seen.add(t);
  }
  return { path, values: texts.map((text) => ({ text, value: jsonOrText(text) })) };
}

/** lo, lo+step, … up to hi, with as many decimals as the inputs have (0.1 steps stay 0.3, not 0.30000000000000004). */
function rangeValues(flag: string, loText: string, hiText: string, stepText: string): string[] {
  const [lo, hi, step] = [Number(loText), Number(hiText), Number(stepText)];
  if (!(step > 0)) throw new SweepInputError(`${flag}: the step must be above 0`);
  if (hi < lo) throw new SweepInputError(`${flag}: the range runs backwards (write ${hiText}..${loText}:${stepText})`);
  const count = Math.floor((hi - lo) / step + 1e-9) + 1;
  if (count > MAX_VARY_VALUES)
    throw new SweepInputError(
      `${flag}: at most ${MAX_VARY_VALUES.toLocaleString('en-US')} values per --vary, the range has ${count.toLocaleString('en-US')}`,
    );
  const decimals = Math.max(...[loText, stepText].map((t) => (t.split('.')[1] ?? '').length));
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(String(Number((lo + i * step).toFixed(decimals))));
  return out;
}

function splitTopLevel(flag: string, body: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let inString = false;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 0) {
      out.push(body.slice(start, i));
      start = i + 1;
    }
  }
  out.push(body.slice(start));
  if (out.some((t) => t.trim() === ''))
    throw new SweepInputError(`${flag}: an empty value (expected v1,v2,… or lo..hi:step)`);
  return out;
}

function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `--seeds`, with the flag's name on the problem. */
export function parseSeeds(text: string): number[] {
  const parsed = parseSeedList(text);
  if ('problem' in parsed) throw new SweepInputError(`--seeds: ${parsed.problem}`);
  return parsed.seeds;
}

/** `--modes stock`, `fixed`, or `stock,fixed`. */
export function parseModes(text: string): PresetName[] {
  const modes = text.split(',').map((m) => m.trim());
  for (const m of modes) {
    if (!(PRESET_NAMES as string[]).includes(m))
      throw new SweepInputError(
        `--modes: expected ${PRESET_NAMES.join(', ')} or a comma-separated list of them, got ${JSON.stringify(text)}`,
      );
  }
  if (new Set(modes).size !== modes.length)
    throw new SweepInputError(`--modes: a mode is given twice in ${JSON.stringify(text)}`);
  return modes as PresetName[];
}

export function checkGridSize(spec: GridSpec): void {
  const size = gridSize(spec);
  if (size > MAX_GRID_RUNS)
    throw new SweepInputError(
      `the grid has ${size.toLocaleString('en-US')} runs (modes × values × seeds), more than the ${MAX_GRID_RUNS.toLocaleString('en-US')} one sweep may have`,
    );
  if (spec.varies.length > MAX_VARIES) throw new SweepInputError(`--vary: at most ${MAX_VARIES} varied paths`);
  const paths = new Set<string>();
  for (const v of spec.varies) {
    if (paths.has(v.path)) throw new SweepInputError(`--vary ${v.path}: the path is varied twice`);
    paths.add(v.path);
  }
}
