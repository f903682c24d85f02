// Runs a scenario and returns its wire trace (the library side of `bcsim trace`).
import type { Scenario } from '../scenario/index.js';
import type { SessionObserver, RunOptions, RunResult } from '../session/index.js';
import { runScenario } from '../session/index.js';
import { TraceCollector } from './collector.js';
import type { TraceEvent } from './events.js';

export interface TraceOptions extends Omit<RunOptions, 'observer' | 'durationUs'> {
  readonly fromUs?: number;
  /** The run stops here; default the scenario's duration. */
  readonly untilUs?: number;
  /** Streams each event as it happens; with `keep: false` nothing is held in memory. */
  readonly onEvent?: (event: TraceEvent) => void;
  readonly keep?: boolean;
}

export function traceScenario(
  scenario: Scenario,
  options: TraceOptions = {},
): { events: TraceEvent[]; result: RunResult } {
  const untilUs = Math.min(options.untilUs ?? scenario.durationUs, scenario.durationUs);
  const collector = new TraceCollector({
    fromUs: options.fromUs,
    untilUs,
    onEvent: options.onEvent,
    keep: options.keep,
  });
  const result = runScenario(scenario, { ...options, durationUs: untilUs, observer: collector });
  return { events: collector.events, result };
}

/** Thrown to end a silent run once the slot it looks for has been given. */
class SlotFound extends Error {
  override readonly name = 'SlotFound';
}

/**
 * The client the server gives `slot` in this run (or null if none gets it by
 * `untilUs`). Runs are deterministic, so a silent run with the same options
 * answers it for the traced run; it stops as soon as the slot is given, which
 * in a join is within the first seconds, and holds nothing in memory.
 */
export function clientWithSlot(
  scenario: Scenario,
  slot: number,
  options: Omit<TraceOptions, 'fromUs' | 'onEvent' | 'keep'> = {},
): number | null {
  const untilUs = Math.min(options.untilUs ?? scenario.durationUs, scenario.durationUs);
  let found: number | null = null;
  const observer: SessionObserver = {
    connectionAccepted: (_timeUs, client, given) => {
      if (given !== slot) return;
      found = client;
      throw new SlotFound();
    },
  };
  try {
    runScenario(scenario, { ...options, durationUs: untilUs, observer });
  } catch (error) {
    if (!(error instanceof SlotFound)) throw error;
  }
  return found;
}
