// Warnings on stderr: settings that do nothing under the chosen design (issue 11).
import type { CliIO } from './io.js';

export function warn(io: CliIO, warnings: readonly string[], label?: string): void {
  for (const w of warnings) io.stderr(`bcsim: warning${label ? ` (${label})` : ''}: ${w}\n`);
}
