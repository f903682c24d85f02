#!/usr/bin/env node
// Entry point of the `bcsim` binary: run the CLI against the real process.
import { runCli } from './program.js';
import { processIO } from './io.js';

// `bcsim trace … | head` closes the pipe early: that is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}

runCli(process.argv.slice(2), processIO()).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // A bug, not bad input: keep the stack so it can be reported.
    process.stderr.write(`bcsim: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 70;
  },
);
