// Terminal styling that respects NO_COLOR, FORCE_COLOR and a non-TTY stdout.
import { Chalk } from 'chalk';
import type { ChalkInstance } from 'chalk';

export function makeChalk(isTTY: boolean, env: Readonly<Record<string, string | undefined>>): ChalkInstance {
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== '';
  const force = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== '';
  return new Chalk({ level: noColor ? 0 : force || isTTY ? 1 : 0 });
}
