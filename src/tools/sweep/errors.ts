// Bad sweep input (a flag, a file, a line of a shard): the CLI turns it into
// one `bcsim: …` line and exit 2. A class of its own keeps src/tools/sweep free of the CLI.
export class SweepInputError extends Error {
  override readonly name = 'SweepInputError';
}
