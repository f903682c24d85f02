// Runs the CLI against the real process: what the `bcsim` binary (main.ts) starts,
// from the bundle the build makes (code-cache.ts) or, without one, from this module.
import { runCli } from './program.js';
import { processIO } from './io.js';

// `bcsim trace … | head` closes the pipe early: that is the reader's choice, not an error.
// stdout is written synchronously by processIO, which notices EPIPE itself (and `trace`
// stops its run); process.stdout is never opened, so it gets no handler here.
function onStderrError(error: NodeJS.ErrnoException): void {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
}

// The handler goes on process.stderr when the stream is first opened, by whoever opens it:
// opening it loads Node's tty, net and stream modules (~5 ms), which a run that prints
// nothing on stderr (`run --json`) never needs.
const stderr = Object.getOwnPropertyDescriptor(process, 'stderr');
if (stderr?.get && stderr.configurable) {
  const open = stderr.get;
  let handled = false;
  Object.defineProperty(process, 'stderr', {
    configurable: true,
    enumerable: stderr.enumerable,
    get() {
      const stream = open.call(process) as NodeJS.WriteStream;
      if (!handled) stream.on('error', onStderrError);
      handled = true;
      return stream;
    },
  });
} else process.stderr.on('error', onStderrError);

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
