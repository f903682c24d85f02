// Flag parsing shared by commands. Bad flags are UsageErrors: one line, exit 2.
import { MAX_DURATION_US, parseDuration } from '../core/engine/index.js';
import type { Micros } from '../core/engine/index.js';
import { UsageError } from './io.js';

/** Which clock a duration flag counts on, said in its errors (docs/commands.md#flags). */
export type Clock = 'simulated' | 'wall';

export function durationFlag(
  flag: string,
  value: string | undefined,
  { allowZero = false, clock }: { allowZero?: boolean; clock?: Clock } = {},
): Micros | undefined {
  if (value === undefined) return undefined;
  const us = parseDuration(value);
  const of = clock === undefined ? '' : ` of ${clock} time,`;
  if (us === null || us < 0 || (us === 0 && !allowZero))
    throw new UsageError(`${flag}: expected a duration${of} like 30s, 10m or 4h, got "${value}"`);
  if (us > MAX_DURATION_US) throw new UsageError(`${flag}: expected at most 168h (7 days), got "${value}"`);
  return us;
}

export function seedFlag(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) > 4294967295)
    throw new UsageError(`--seed: expected a whole number 0..4294967295, got "${value}"`);
  return Number(value);
}

/**
 * Plain decimal only: Number() would also take "0x1", "1e0", " 1", "0b1" or
 * "Infinity", so `--loss 0x1` silently meant 100% loss.
 */
const DECIMAL = /^(\d+(\.\d*)?|\.\d+)$/;

export function probabilityFlag(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const p = DECIMAL.test(value) ? Number(value) : Number.NaN;
  if (!(p >= 0 && p <= 1))
    throw new UsageError(`${flag}: expected a decimal number between 0 and 1, got ${JSON.stringify(value)}`);
  return p;
}

/** Commander collector for repeatable flags. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** `--jobs N`: worker threads, 1..max; undefined when not given. */
export function jobsFlag(value: string | undefined, max = 256): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max)
    throw new UsageError(`--jobs: expected a whole number 1..${max}, got ${JSON.stringify(value)}`);
  return Number(value);
}
