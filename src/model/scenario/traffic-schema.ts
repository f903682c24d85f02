// The shape of a scenario's traffic block: the phase plan, the join's checksum manifest,
// and ship deaths. Shapes and ranges only; defaults and the round rules are resolved in resolve.ts
// and resolve-manifest.ts.
import * as z from 'zod';
import {
  BURST_KIND_NAMES,
  DEAD_PLAYER_FEEDS,
  EVENT_KIND_NAMES,
  MAX_BURST_MESSAGES,
  SERVER_CHECKS,
  TREE_HASHINGS,
} from '../traffic/index.js';
import { buildManifestSchema } from './manifest-schema.js';
import { HOUR_MS, grouped } from './schema-fields.js';
import type { FieldSchemas } from './schema-fields.js';

/**
 * Keeps the microsecond clock exact: a positive rate's mean gap (and the ~37x tail of an
 * exponential draw) stays far below 2^53 us.
 */
const MIN_RATE = 0.000001;
/** Whole-message bytes of a generated StateUpdate; larger payloads are fragmented. */
const MAX_MESSAGE_BYTES = 4096;
/** A scenario is a hand-written file, not a data set. */
export const MAX_PHASES = 1_000;

export function buildTrafficSchema(fields: FieldSchemas) {
  const { probability, nonNegative, positiveInt, oneOf, durationSchema, updatePeriodsSchema, clientNumber } = fields;
  const sizeRange = z
    .tuple([positiveInt('bytes', MAX_MESSAGE_BYTES), positiveInt('bytes', MAX_MESSAGE_BYTES)], {
      error: 'expected [min, max] whole-message bytes',
    })
    .refine(([min, max]) => min <= max && min >= 3, 'expected [min, max] with 3 <= min <= max');

  const tinyRate = `expected 0 or a rate of at least ${MIN_RATE}`;
  const reliableRate = z.preprocess(
    (value) => (value === 'measured' ? 4.9 : value === 'heavy' ? 60 : value),
    z
      .number({ error: 'expected reliable messages per second, "measured" (4.9) or "heavy" (60)' })
      .min(0, 'expected a rate >= 0')
      .max(10_000, 'expected at most 10,000 per second')
      .refine((r) => r === 0 || r >= MIN_RATE, tinyRate),
  );

  const rate = z
    .number({ error: 'expected a rate >= 0' })
    .min(0, 'expected a rate >= 0')
    .max(10_000, 'expected at most 10,000')
    .refine((r) => r === 0 || r >= MIN_RATE, tinyRate);
  const arrival = oneOf(['poisson', 'periodic']);

  const phaseSchema = z.preprocess(
    (value) => (typeof value === 'string' ? { kind: value } : value),
    z.discriminatedUnion(
      'kind',
      [
        // With `client`: that client joins now, late, while the game goes on.
        z.strictObject({
          kind: z.literal('join'),
          client: clientNumber.optional(),
          updatePeriodMs: updatePeriodsSchema.optional(),
        }),
        // Without `client`: every client leaves.
        z.strictObject({ kind: z.literal('disconnect'), client: clientNumber.optional() }),
        // The client's host goes away without a word; the server times it out (docs/sources.md 19).
        z.strictObject({ kind: z.literal('timeout'), client: clientNumber }),
        z.strictObject({
          kind: z.literal('lobby'),
          duration: durationSchema.optional(),
          chatPerMinute: rate.optional(),
          updatePeriodMs: updatePeriodsSchema.optional(),
        }),
        z.strictObject({
          kind: z.literal('quiet'),
          duration: durationSchema.optional(),
          updatePeriodMs: updatePeriodsSchema.optional(),
        }),
        z.strictObject({
          kind: z.literal('combat'),
          updatePeriodMs: updatePeriodsSchema.optional(),
          duration: durationSchema.optional(),
          stateUpdatesPerSecond: rate.optional(),
          stateUpdateBytes: sizeRange.optional(),
          reliablePerSecond: reliableRate.optional(),
          clientShare: probability.optional(),
          arrival: arrival.optional(),
          eventKinds: z
            .array(oneOf(EVENT_KIND_NAMES as unknown as [string, ...string[]]))
            .min(1, 'expected at least one event kind')
            .max(EVENT_KIND_NAMES.length)
            .refine((list) => new Set(list).size === list.length, 'expected each event kind at most once')
            .optional(),
        }),
        z.strictObject({
          kind: z.literal('lull'),
          updatePeriodMs: updatePeriodsSchema.optional(),
          duration: durationSchema.optional(),
          stateUpdatesPerSecond: rate.optional(),
          stateUpdateBytes: sizeRange.optional(),
          arrival: arrival.optional(),
        }),
      ],
      { error: 'expected a phase kind: join, lobby, combat, lull, quiet, disconnect or timeout' },
    ),
  );

  /** Messages of one of a death's bursts: message kind -> count, at most a datagram's 255 in all. */
  const burst = z
    .partialRecord(
      oneOf(BURST_KIND_NAMES as unknown as [string, ...string[]]),
      z
        .number({ error: 'expected a whole number of messages' })
        .int('expected a whole number of messages')
        .min(0, 'expected a whole number of messages >= 0'),
    )
    .refine(
      (b) => Object.values(b).reduce((sum: number, n) => sum + (n ?? 0), 0) <= MAX_BURST_MESSAGES,
      `expected at most ${MAX_BURST_MESSAGES} messages in all`,
    );

  const trafficSchema = z.strictObject({
    /** Client k starts its join (k - 1) x joinStagger after the join phase starts. */
    joinStagger: durationSchema.optional(),
    phases: z
      .array(phaseSchema)
      .min(1, 'expected at least one phase')
      .max(MAX_PHASES, `expected at most ${grouped(MAX_PHASES)} phases`)
      .optional(),
    repeatFrom: z.union([z.number().int().min(0), z.null()], { error: 'expected a phase index, or null' }).optional(),
    /** The checksum rounds of every join (docs/sources.md 31); default: the measured join's. */
    manifest: buildManifestSchema().optional(),
    /** Where the client hashes a recursive round: concurrent with its update loop, or inside it. */
    treeHashing: oneOf(TREE_HASHINGS as unknown as ['concurrent', 'in-update']).optional(),
    /** The client's think time for checksum round 2 (docs/sources.md J1: ~700 ms). */
    round2ThinkMs: nonNegative('milliseconds', 60_000).optional(),
    /** How the server spends its time answering the round 2 and 0xFF responses (docs/sources.md 33). */
    serverChecks: oneOf(SERVER_CHECKS as unknown as ['concurrent', 'in-update', 'none']).optional(),
    /** Ship deaths in combat (docs/sources.md 32): the explosion, the ship selection and the messages of each. */
    deaths: z
      .strictObject({
        perMinute: rate,
        arrival: arrival.optional(),
        explosionMs: nonNegative('milliseconds', HOUR_MS).optional(),
        selectionMs: nonNegative('milliseconds', HOUR_MS).optional(),
        whileDead: oneOf(DEAD_PLAYER_FEEDS as unknown as ['game', 'nothing']).optional(),
        burst: burst.optional(),
        afterExplosion: burst.optional(),
        onPick: burst.optional(),
      })
      .optional(),
  });

  return trafficSchema;
}
