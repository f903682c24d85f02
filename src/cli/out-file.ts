// Output files named on flags (--junit, --out FILE, --html), checked before any work
// starts. The rule for every output path (docs/commands.md): its folder must exist;
// a mistyped folder is refused, never made.
import { resolve } from 'node:path';
import { outFileProblem } from '../core/output/index.js';
import { UsageError, writingTo } from './io.js';

/** The absolute target of `flag value`, or undefined without the flag; a bad place is one UsageError line. */
export function outFileFlag(flag: string, value: string | undefined, cwd: string): string | undefined {
  if (value === undefined) return undefined;
  const label = `${flag} ${value === '' ? "''" : value}`;
  const problem = writingTo(label, () => outFileProblem(value, cwd));
  if (problem !== undefined) throw new UsageError(`${label}: ${problem}`);
  return resolve(cwd, value);
}
