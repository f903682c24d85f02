// A run that would exceed one of the simulator's hard limits (pending events,
// ledger size, …). It is the configuration's fault, not a bug: the CLI reports
// it in one line and exits 2.
import { secondsToUs } from './time.js';

export class LimitError extends Error {
  override readonly name = 'LimitError';
}

/** The longest run or offset a scenario may ask for (7 days): the CLI's flags check it before any scenario is parsed. */
export const MAX_DURATION_US = secondsToUs(7 * 24 * 3600);
