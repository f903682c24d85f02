// The CLI's only window on the process: output streams, TTY facts and the
// environment. Tests pass their own, so commands never touch `process` directly.

export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

export function processIO(): CliIO {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    env: process.env,
    cwd: process.cwd(),
  };
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
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code === 'string') throw new UsageError(`${what}: cannot write (${code})`);
    throw error;
  }
}

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
