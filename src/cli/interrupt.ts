// Ctrl-C while a run writes a capture. A simulation that never yields runs no
// signal handler, and the default action would kill the process with the
// capture's hidden temporary (up to hundreds of MB) left behind. So a run
// writing a capture gives the event loop a turn every few simulated seconds
// (runScenarioYielding); on SIGINT or SIGTERM it stops there, the temporaries
// are removed and stderr says so.
import { RunAborted, runScenario, runScenarioYielding } from '../model/session/index.js';
import type { RunOptions, RunResult } from '../model/session/index.js';
import type { Scenario } from '../model/scenario/index.js';
import type { CliIO } from './io.js';
import { writingTo } from './io.js';

/** Exit code of a command stopped by SIGINT/SIGTERM (128 + SIGINT). */
export const EXIT_INTERRUPTED = 130;

export interface InterruptibleRuns {
  /** One run; throws RunAborted once a signal has come. */
  run(scenario: Scenario, options: RunOptions): Promise<RunResult>;
  /** Stops listening for signals. */
  stop(): void;
}

/** Runs that stop at a signal where the process can take one (io.onInterrupt); plain runs elsewhere (tests in-process). */
export function interruptibleRuns(io: CliIO): InterruptibleRuns {
  const controller = new AbortController();
  const stopListening = io.onInterrupt?.((signal) => controller.abort(signal));
  return {
    run: (scenario, options) =>
      stopListening
        ? runScenarioYielding(scenario, options, eventLoopTurn, controller.signal)
        : Promise.resolve(runScenario(scenario, options)),
    stop: () => stopListening?.(),
  };
}

/** One turn of the event loop: a pending signal's handler runs before it resolves. */
function eventLoopTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The stderr line after an interrupted run removed its captures' temporaries. */
function interruptedLine(error: RunAborted, removed: ReadonlyArray<{ temporary: string; target: string }>): string {
  const what = removed
    .map((f) => `removed the unfinished capture ${f.temporary}; ${f.target} was not written`)
    .join('; ');
  return `bcsim: interrupted (${error.reason})${what === '' ? '' : `; ${what}`}\n`;
}

/** What a captured run's failure ends with: Ctrl-C is exit 130 with the removed temporaries named; an
 * unwritable capture (ENOSPC, …) is one line and exit 2, like any unwritable output. */
export function capturedRunFailed(
  error: unknown,
  captures: { abort(): void; paths(): ReadonlyArray<{ temporary: string; target: string }> },
  what: string,
  io: CliIO,
  beforeLine: () => void = () => {},
): number {
  captures.abort();
  if (error instanceof RunAborted) {
    beforeLine();
    io.stderr(interruptedLine(error, captures.paths()));
    return EXIT_INTERRUPTED;
  }
  return writingTo(what, () => {
    throw error;
  });
}
