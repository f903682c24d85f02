// Warnings on stderr: settings that do nothing under the chosen design.
import type { CliIO } from './io.js';

export function warn(io: CliIO, warnings: readonly string[], label?: string): void {
  for (const w of warnings) io.stderr(`bcsim: warning${label ? ` (${label})` : ''}: ${w}\n`);
}

/**
 * The cut of a run's phase plan (settings.phasePlanCut), said once per command however many
 * runs share it: the sentence names phases, not seeds, so the runs of a sweep say the same.
 */
export function phasePlanWarner(io: CliIO): (cut: { readonly warning: string } | undefined) => void {
  const said = new Set<string>();
  return (cut) => {
    if (cut === undefined || said.has(cut.warning) || said.size >= MAX_DISTINCT_CUTS) return;
    said.add(cut.warning);
    warn(io, [cut.warning]);
  };
}

/** A grid of varied phase lengths could cut its plans in many ways: a few lines say enough. */
const MAX_DISTINCT_CUTS = 8;
