// The scenario schema's field shapes, each with its one-line message: numbers with their
// unit and bounds, probabilities, choices, durations, client numbers and update periods.
// Shared by the scenario schema and the traffic schema; built only when they are.
import * as z from 'zod';
import { MAX_DURATION_US, parseDuration, secondsToUs } from '../../core/engine/index.js';
import type { Micros } from '../../core/engine/index.js';

/** A session is one server and 1 to 16 clients. */
export const MAX_CLIENTS = 16;

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/**
 * 1234567 -> "1,234,567", as toLocaleString('en-US') writes it; that call's first
 * use loads ICU (~30 ms), which every run would pay while the schema is built.
 */
export const grouped = (n: number): string =>
  Number.isSafeInteger(n) ? String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',') : n.toLocaleString('en-US');

/** Builds the shapes once per schema, so each is one instance wherever the schema uses it. */
export function fieldSchemas() {
  const between01 = 'expected a number between 0 and 1';
  const probability = z.number({ error: between01 }).min(0, between01).max(1, between01);
  // Every number has an upper bound too: a run that asks for 1e300 ms gets a
  // one-line answer here, not a failed invariant deep in the engine.
  const nonNegative = (unit: string, max: number) =>
    z
      .number({ error: `expected a number of ${unit} >= 0` })
      .min(0, `expected a number of ${unit} >= 0`)
      .max(max, `expected at most ${grouped(max)} ${unit}`);
  const positive = (unit: string, max: number) =>
    z
      .number({ error: `expected a number of ${unit} > 0` })
      .positive(`expected a number of ${unit} > 0`)
      .max(max, `expected at most ${grouped(max)} ${unit}`);
  const positiveInt = (what: string, max: number) =>
    z
      .number({ error: `expected a whole number of ${what} >= 1` })
      .int(`expected a whole number of ${what} >= 1`)
      .min(1, `expected a whole number of ${what} >= 1`)
      .max(max, `expected at most ${grouped(max)} ${what}`);
  const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
    z.enum(values, { error: `expected one of ${values.join(', ')}` });

  /** "30s", "10m", "4h", "1h30m", "250ms", or a number of seconds; at most 7 days. */
  const durationSchema = z.unknown().transform((value, ctx): Micros => {
    const us =
      typeof value === 'number' && value >= 0
        ? secondsToUs(value)
        : typeof value === 'string'
          ? parseDuration(value)
          : null;
    if (us === null) {
      ctx.addIssue({ code: 'custom', message: 'expected a duration like "30s", "10m", "4h" or "1h30m"', input: value });
      return z.NEVER;
    }
    if (us > MAX_DURATION_US) {
      ctx.addIssue({ code: 'custom', message: 'expected a duration of at most 168h (7 days)', input: value });
      return z.NEVER;
    }
    return us;
  });

  const values = (list: readonly string[]) => oneOf(list as unknown as [string, ...string[]]);
  const bool = z.boolean({ error: 'expected true or false' });

  const periodMs = z
    .number({ error: 'expected a number of milliseconds from 1 to 10,000' })
    .min(1, 'expected a number of milliseconds from 1 to 10,000')
    .max(10_000, 'expected a number of milliseconds from 1 to 10,000');
  const updatePeriodsSchema = z.strictObject({ server: periodMs.optional(), client: periodMs.optional() });

  const clientNumber = z
    .number({ error: `expected a client number 1..${MAX_CLIENTS}` })
    .int(`expected a client number 1..${MAX_CLIENTS}`)
    .min(1, `expected a client number 1..${MAX_CLIENTS}`)
    .max(MAX_CLIENTS, `expected a client number 1..${MAX_CLIENTS}`);

  return {
    probability,
    nonNegative,
    positive,
    positiveInt,
    oneOf,
    durationSchema,
    values,
    bool,
    updatePeriodsSchema,
    clientNumber,
  };
}

export type FieldSchemas = ReturnType<typeof fieldSchemas>;
