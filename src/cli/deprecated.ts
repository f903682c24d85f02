// Old spellings of renamed flags: they still work for one release, with one line
// on stderr that names the new spelling (docs/commands.md#deprecated-spellings).
import type { CliIO } from './io.js';
import { UsageError } from './io.js';

interface Spelling {
  readonly flag: string;
  readonly value: string | undefined;
}

/** The value given under the new spelling or the old one; the old one says so on stderr. */
export function renamedFlag(io: CliIO, command: string, old: Spelling, now: Spelling): string | undefined {
  if (old.value === undefined) return now.value;
  if (now.value !== undefined)
    throw new UsageError(`${command}: give ${now.flag}, not also its old spelling ${old.flag}`);
  deprecated(io, `${command} ${old.flag} is now ${now.flag}`);
  return old.value;
}

export function deprecated(io: CliIO, what: string): void {
  io.stderr(`bcsim: deprecated: ${what}; the old spelling works in this release only\n`);
}
