// The library entry point: one run of the R-Type scheme, config in, summary out.
import { resolveRtypeConfig } from './config.js';
import type { RtypeConfig, RtypeConfigInput } from './config.js';
import { RtypeSession } from './session.js';
import { summarizeRtype } from './summary.js';
import type { RtypeSummary } from './summary.js';

/**
 * Runs `config` (missing fields from rtype-deaths) with `seed`. Throws an
 * RtypeConfigError naming the first bad field; the same input gives the same summary.
 */
export function runRtype(config: RtypeConfigInput | RtypeConfig, seed: number): RtypeSummary {
  if (!Number.isSafeInteger(seed)) throw new Error(`rtype: seed ${seed} is not a safe integer`);
  const session = new RtypeSession(resolveRtypeConfig(config), seed);
  session.run();
  return summarizeRtype(session);
}
