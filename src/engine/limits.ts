// A run that would exceed one of the simulator's hard limits (pending events,
// ledger size, …). It is the configuration's fault, not a bug: the CLI reports
// it in one line and exits 2.
export class LimitError extends Error {
  override readonly name = 'LimitError';
}
