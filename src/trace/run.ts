// Runs a scenario and returns its wire trace (the library side of `bcsim trace`).
import type { Scenario } from '../scenario/scenario.js';
import { runScenario } from '../session/run.js';
import type { RunOptions, RunResult } from '../session/run.js';
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

export function traceScenario(scenario: Scenario, options: TraceOptions = {}): { events: TraceEvent[]; result: RunResult } {
  const untilUs = Math.min(options.untilUs ?? scenario.durationUs, scenario.durationUs);
  const collector = new TraceCollector({ fromUs: options.fromUs, untilUs, onEvent: options.onEvent, keep: options.keep });
  const result = runScenario(scenario, { ...options, durationUs: untilUs, observer: collector });
  return { events: collector.events, result };
}
