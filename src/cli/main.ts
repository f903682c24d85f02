#!/usr/bin/env -S node --max-old-space-size=896
// Entry point of the `bcsim` binary: run the CLI against the real process.
// The heap cap makes V8 collect before a run passes ~1 GB: live data is bounded by
// explicit limits (issue 9), but V8 otherwise lets garbage grow toward its default.
import { runCli } from './program.js';
import { processIO } from './io.js';

// `bcsim trace … | head` closes the pipe early: that is the reader's choice, not an error.
// stdout is written synchronously by processIO, which notices EPIPE itself (and `trace`
// stops its run); process.stdout is never opened, so it gets no handler here.
process.stderr.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

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
