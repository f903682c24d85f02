// Runs the CLI against the real process: what the `bcsim` binary (main.ts) starts.
import { runCli } from './program.js';
import { processIO } from './io.js';

const io = processIO();
runCli(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // A bug, not bad input: keep the stack so it can be reported.
    io.stderr(`bcsim: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 70;
  },
);
