// Runs the CLI in-process with captured output.
import { runCli } from '../../src/cli/program.js';
import type { CliIO } from '../../src/cli/io.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function cli(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    stdoutIsTTY: false,
    stderrIsTTY: false,
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
  };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}
