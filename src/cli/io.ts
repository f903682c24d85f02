// The CLI's only window on the process: output streams, TTY facts and the
// environment. Tests pass their own, so commands never touch `process` directly.
import { readSync, writeSync } from 'node:fs';
import { systemErrorWords } from '../core/files/index.js';

export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /**
   * True once the reader of stdout has gone (`bcsim trace … | head`): later output
   * is dropped, and a long command may stop early. Absent means never closed.
   */
  stdoutClosed?(): boolean;
  /** All of standard input as text (`bcsim decode -`). Absent means no stdin. */
  readStdin?(): string;
  /**
   * Calls `handler` on SIGINT or SIGTERM (the live commands stop cleanly and
   * write their files). Returns a function that removes it. Absent: never.
   */
  onInterrupt?(handler: (signal: string) => void): () => void;
}

/**
 * The real process. stdout and stderr are written synchronously to fds 1 and 2, so a run
 * that never yields to the event loop (a long `trace`) cannot pile its output up in memory,
 * and a closed pipe (EPIPE) is seen at the write that hits it, not after the run.
 * process.stdout and process.stderr are never opened: no stream, so no stream error event.
 */
export function processIO(): CliIO {
  let closed = false;
  let stderrClosed = false;
  return {
    stdout: (text) => {
      if (closed) return;
      try {
        writeAllSync(1, text);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // The reader went away (`| head`): its choice, not an error. Drop what follows.
        if (code === 'EPIPE') closed = true;
        else if (systemErrorWords(error) !== undefined)
          throw new UsageError(`stdout: cannot write (${systemErrorWords(error, true)})`);
        else throw error;
      }
    },
    stderr: (text) => {
      if (stderrClosed) return;
      try {
        writeAllSync(2, text);
      } catch {
        // Nowhere left to report it (`2>&1 | head`, a closed terminal): drop what follows.
        stderrClosed = true;
      }
    },
    // isatty, not process.stdout.isTTY: that getter opens a stream on fd 1 and makes it non-blocking.
    // node:tty is looked up when asked: it loads Node's net and stream modules, which a run
    // printing JSON never needs.
    get stdoutIsTTY() {
      return process.getBuiltinModule('node:tty').isatty(1);
    },
    get stderrIsTTY() {
      return process.getBuiltinModule('node:tty').isatty(2);
    },
    env: process.env,
    cwd: process.cwd(),
    stdoutClosed: () => closed,
    readStdin: () => readAllSync(0),
    onInterrupt: (handler) => {
      process.on('SIGINT', handler);
      process.on('SIGTERM', handler);
      return () => {
        process.off('SIGINT', handler);
        process.off('SIGTERM', handler);
      };
    },
  };
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Writes all of `text` to `fd`, waiting (1 ms at a time) while a non-blocking pipe is full. */
/** Reads `fd` to its end, waiting (1 ms at a time) while a non-blocking pipe is empty. */
function readAllSync(fd: number): string {
  const chunks: Buffer[] = [];
  const buffer = Buffer.alloc(64 * 1024);
  for (;;) {
    let n: number;
    try {
      n = readSync(fd, buffer, 0, buffer.length, null);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN') {
        Atomics.wait(sleeper, 0, 0, 1);
        continue;
      }
      if (code === 'EOF') break; // Windows: the writer closed the pipe
      throw error;
    }
    if (n === 0) break;
    chunks.push(Buffer.from(buffer.subarray(0, n)));
  }
  return Buffer.concat(chunks).toString('utf8');
}

function writeAllSync(fd: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset, bytes.length - offset);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      Atomics.wait(sleeper, 0, 0, 1);
    }
  }
}

/** Bad input from the user: one line on stderr, exit code 2, no stack trace. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Runs a file write, turning a filesystem refusal into a one-line usage error naming `what`. */
export function writingTo<T>(what: string, write: () => T): T {
  try {
    return write();
  } catch (error) {
    const words = systemErrorWords(error, true);
    if (words !== undefined) throw new UsageError(`${what}: cannot write (${words})`);
    throw error;
  }
}

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
