// The CLI as a library call (the `bcsim` binary's entry point is main.ts, which
// runs it against the real process).
export { runCli } from './program.js';
export type { CliIO } from './io.js';
