// Runs the CLI in-process with captured output.
import { runCli } from '../../src/cli/program.js';
import type { CliIO } from '../../src/cli/io.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** Pretend stdout is a terminal. */
  stdoutIsTTY?: boolean;
  /** What `decode -` reads. */
  readStdin?: () => string;
}

/** stderr without the one line a run shorter than its phase plan prints (README "check in CI"). */
export function withoutPlanCut(stderr: string): string {
  return stderr.replace(/^bcsim: warning: the phase plan is cut: .*\n/gm, '');
}

export async function cli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    stdoutIsTTY: options.stdoutIsTTY ?? false,
    stderrIsTTY: false,
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    ...(options.readStdin ? { readStdin: options.readStdin } : {}),
  };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}
