// `bcsim compare rtype-deaths`: one R-Type scheme scenario run
// as documented, as implemented and repaired, same workload, links and seed.
import { runRtype } from '../session/index.js';
import type { RtypeConfig, RtypeSummary } from '../session/index.js';
import { RTYPE_PRESET_NAMES } from '../transport/index.js';
import type { RtypePresetName } from '../transport/index.js';
import { rtypeConfigOf } from './rtype-side.js';
import type { RtypeSchemeScenario } from './scenario-file.js';

export interface RtypePresetRun {
  readonly preset: RtypePresetName;
  readonly summary: RtypeSummary;
}

export interface RtypeComparison {
  readonly scenario: RtypeSchemeScenario;
  readonly seed: number;
  readonly durationMs: number;
  /** The run's config (documented's; the other columns differ in `preset` only). */
  readonly config: RtypeConfig;
  readonly runs: readonly RtypePresetRun[];
}

export function runRtypePresets(
  scenario: RtypeSchemeScenario,
  options: { durationMs?: number; seed?: number } = {},
): RtypeComparison {
  const durationMs = options.durationMs ?? scenario.durationMs;
  const seed = options.seed ?? scenario.seed;
  const runs = RTYPE_PRESET_NAMES.map((preset) => ({
    preset,
    summary: runRtype(rtypeConfigOf(scenario, preset, durationMs), seed),
  }));
  return { scenario, seed, durationMs, config: rtypeConfigOf(scenario, 'documented', durationMs), runs };
}
