// The shape of a scenario file, checked with zod. Only shapes
// and ranges live here; defaults and cross-field rules are in resolve.ts.
// Every object is strict: an unknown key is an error, never silently ignored.
import * as z from 'zod';
import { MAX_FRAGMENT_CHUNK_BYTES } from '../../core/codec/index.js';
// The link's lower bounds keep the microsecond clock exact (link/validate.ts).
import { MIN_BANDWIDTH_BYTES_PER_SECOND, MIN_SLOT_MS } from '../link/index.js';
import { PRESET_NAMES } from '../transport/index.js';
import { DAY_MS, HOUR_MS, MAX_CLIENTS, fieldSchemas, grouped } from './schema-fields.js';
import { modeObjectSchema } from './switch-schema.js';
import { buildTrafficSchema } from './traffic-schema.js';

// Size limits: a scenario is a hand-written file, not a data set.
export const MAX_NAME_CHARS = 200;
export const MAX_DESCRIPTION_CHARS = 10_000;
export const MAX_OUTAGES = 1_000;
export const MAX_DROP_RULES = 1_000;
/** An explicit fault list: a shrunk run has a handful, a recorded one a few thousand. */
export const MAX_FAULTS = 100_000;
export const MAX_ASSERTIONS = 1_000;
const MAX_ASSERTION_PATH_CHARS = 200;

// Queue limits bound memory. Measured per entry: ~500 B in
// the retransmit queue, ~250 B in the first-send queue, ~265 B in the ACK-outbox.
// Both peers' queues full cost ~270 MB; with 150,000 pending events and a full
// ledger as well a process peaked at ~700 MB, under the 1 GB budget.
export const MAX_QUEUE_LIMIT = 1 << 17;
export const MAX_ACK_OUTBOX_LIMIT = 1 << 17;

const count = grouped;

const OPS = ['eq', 'lt', 'lte', 'gt', 'gte'] as const;
export type ExpectOp = (typeof OPS)[number];

let built: ReturnType<typeof buildScenarioSchema> | undefined;

/**
 * The schema of a scenario file, built on first use: building it costs about as much
 * as a short run, and a run of an unedited built-in never needs it (stored.ts).
 */
export function scenarioSchema(): ReturnType<typeof buildScenarioSchema> {
  return (built ??= buildScenarioSchema());
}

function buildScenarioSchema() {
  const fields = fieldSchemas();
  const { probability, nonNegative, positive, positiveInt, oneOf, durationSchema } = fields;
  const { updatePeriodsSchema } = fields;

  /** "stock", or { "preset": "stock", "<switch>": … }. */
  const modeSchema = z.preprocess(
    (value) => (typeof value === 'string' ? { preset: value } : value),
    modeObjectSchema(fields),
  );

  const transportSchema = z.strictObject({
    updatePeriodMs: updatePeriodsSchema.optional(),
    disconnectedPeerLingerMs: nonNegative('milliseconds', HOUR_MS).optional(),
    datagramsPerUpdate: positiveInt('datagrams', 64).optional(),
    ackResendIntervalMs: nonNegative('milliseconds', HOUR_MS).optional(),
    ackPassOneLimit: positiveInt('sends', 255).optional(),
    ackFreeAtCount: positiveInt('sends', 255).optional(),
    // Fragment 0 adds 7 header bytes and must fit the 510 bytes after the datagram header.
    fragmentChunkBytes: positiveInt('bytes', MAX_FRAGMENT_CHUNK_BYTES).optional(),
    keepaliveIdleMs: positive('milliseconds', DAY_MS).optional(),
    peerTimeoutMs: positive('milliseconds', DAY_MS).optional(),
    maxMessageAgeMs: z
      .union([positive('milliseconds', DAY_MS), z.null()], { error: 'expected milliseconds > 0, or null for no limit' })
      .optional(),
    clientTickOffsetMs: nonNegative('milliseconds', 10_000).optional(),
    firstSendQueueLimit: positiveInt('messages', MAX_QUEUE_LIMIT).optional(),
    retransmitQueueLimit: positiveInt('messages', MAX_QUEUE_LIMIT).optional(),
    ackOutboxLimit: positiveInt('entries', MAX_ACK_OUTBOX_LIMIT).optional(),
  });

  const matchSchema = z.strictObject({
    type: z
      .union(
        [
          oneOf(['ack', 'game', 'data', 'connect', 'connectAck', 'boot', 'disconnect']),
          z.number().int().min(0).max(255),
        ],
        {
          error: 'expected a message type name (ack, game, data, connect, connectAck, boot, disconnect) or a type byte',
        },
      )
      .optional(),
    seq: z.number({ error: 'expected a seq 0..65535' }).int().min(0).max(65535, 'expected a seq 0..65535').optional(),
    fragment: z.boolean({ error: 'expected true or false' }).optional(),
    fragIndex: z
      .number({ error: 'expected a fragment index 0..255' })
      .int()
      .min(0)
      .max(255, 'expected a fragment index 0..255')
      .optional(),
    lowType: z.boolean({ error: 'expected true or false' }).optional(),
    reliable: z.boolean({ error: 'expected true or false' }).optional(),
  });

  const dropRuleSchema = z.strictObject({
    scope: oneOf(['datagram', 'message']).optional(),
    match: matchSchema,
    first: positiveInt('matches', 1_000_000_000).optional(),
    probability: probability.optional(),
    from: durationSchema.optional(),
    until: durationSchema.optional(),
  });

  /** One explicit link decision (src/model/link/faults.ts): `datagram` is the link's send index. */
  const faultSchema = z.strictObject({
    at: durationSchema,
    datagram: z
      .number({ error: 'expected a datagram send index 0..1,000,000,000' })
      .int('expected a datagram send index 0..1,000,000,000')
      .min(0, 'expected a datagram send index 0..1,000,000,000')
      .max(1e9, 'expected a datagram send index 0..1,000,000,000'),
    action: oneOf(['drop', 'duplicate', 'delay']),
    delayMs: nonNegative('milliseconds', HOUR_MS).optional(),
  });

  const linkDirectionSchema = z.strictObject({
    latencyMs: nonNegative('milliseconds', HOUR_MS).optional(),
    jitterMs: nonNegative('milliseconds', HOUR_MS).optional(),
    jitter: oneOf(['uniform', 'normal', 'exponential']).optional(),
    loss: probability.optional(),
    gilbertElliott: z
      .strictObject({
        pGoodToBad: probability,
        pBadToGood: probability,
        lossGood: probability.optional(),
        lossBad: probability.optional(),
      })
      .optional(),
    duplicate: probability.optional(),
    duplicateDelayMs: nonNegative('milliseconds', HOUR_MS).optional(),
    reorder: probability.optional(),
    reorderGap: positiveInt('datagrams', 1_000_000).optional(),
    bandwidthBytesPerSecond: z
      .number({ error: `expected a number of bytes per second >= ${MIN_BANDWIDTH_BYTES_PER_SECOND}` })
      .min(MIN_BANDWIDTH_BYTES_PER_SECOND, `expected a number of bytes per second >= ${MIN_BANDWIDTH_BYTES_PER_SECOND}`)
      .max(1e12, `expected at most ${count(1e12)} bytes per second`)
      .optional(),
    burstBytes: positiveInt('bytes', 1e9).optional(),
    queueLimitPackets: positiveInt('datagrams', 1_000_000).optional(),
    slotMs: z
      .number({ error: `expected a number of milliseconds >= ${MIN_SLOT_MS} (1 microsecond)` })
      .min(MIN_SLOT_MS, `expected a number of milliseconds >= ${MIN_SLOT_MS} (1 microsecond)`)
      .max(HOUR_MS, `expected at most ${count(HOUR_MS)} milliseconds`)
      .optional(),
    outages: z
      .array(z.strictObject({ start: durationSchema, end: durationSchema }))
      .max(MAX_OUTAGES, `expected at most ${count(MAX_OUTAGES)} outages`)
      .optional(),
    drop: z
      .array(dropRuleSchema)
      .max(MAX_DROP_RULES, `expected at most ${count(MAX_DROP_RULES)} drop rules`)
      .optional(),
    faults: z
      .array(faultSchema)
      .max(MAX_FAULTS, `expected at most ${count(MAX_FAULTS)} faults`)
      .optional(),
  });

  const linkBlockSchema = z.strictObject({
    both: linkDirectionSchema.optional(),
    clientToServer: linkDirectionSchema.optional(),
    serverToClient: linkDirectionSchema.optional(),
  });

  /** The links of every client, and per-client overrides keyed by client number: link.clients["2"]. */
  const linkSchema = linkBlockSchema.extend({
    clients: z
      // Keys are checked in resolve.ts, where the message can name the key.
      .record(z.string(), linkBlockSchema)
      .optional(),
  });

  const assertionSchema = z
    .strictObject({
      eq: z.number().optional(),
      lt: z.number().optional(),
      lte: z.number().optional(),
      gt: z.number().optional(),
      gte: z.number().optional(),
    })
    .refine((ops) => OPS.some((op) => ops[op] !== undefined), 'expected at least one of eq, lt, lte, gt, gte');

  const expectSchema = z.partialRecord(
    oneOf(PRESET_NAMES),
    z
      .record(
        z
          .string()
          .max(MAX_ASSERTION_PATH_CHARS, `expected a summary path of at most ${MAX_ASSERTION_PATH_CHARS} characters`),
        assertionSchema,
      )
      .refine(
        (block) => Object.keys(block).length > 0,
        'expected at least one assertion (an empty block checks nothing)',
      )
      .refine(
        (block) => Object.keys(block).length <= MAX_ASSERTIONS,
        `expected at most ${count(MAX_ASSERTIONS)} assertions`,
      ),
  );

  return z.strictObject({
    name: z
      .string({ error: 'expected a scenario name' })
      .min(1, 'expected a non-empty name')
      .max(MAX_NAME_CHARS, `expected a name of at most ${MAX_NAME_CHARS} characters`),
    description: z
      .string({ error: 'expected a string' })
      .max(MAX_DESCRIPTION_CHARS, `expected at most ${count(MAX_DESCRIPTION_CHARS)} characters`)
      .optional(),
    duration: durationSchema.optional(),
    seed: z
      .number({ error: 'expected a whole number seed 0..4294967295' })
      .int('expected a whole number seed 0..4294967295')
      .min(0, 'expected a whole number seed 0..4294967295')
      .max(4294967295, 'expected a whole number seed 0..4294967295')
      .optional(),
    mode: modeSchema.optional(),
    clients: z
      .number({ error: `expected a number of clients 1..${MAX_CLIENTS}` })
      .int(`expected a number of clients 1..${MAX_CLIENTS}`)
      .min(1, `expected a number of clients 1..${MAX_CLIENTS}`)
      .max(MAX_CLIENTS, `expected a number of clients 1..${MAX_CLIENTS}`)
      .optional(),
    tickMs: z
      .number({ error: 'expected a number of milliseconds from 1 to 10,000' })
      .min(1, 'expected a number of milliseconds from 1 to 10,000')
      .max(10_000, 'expected a number of milliseconds from 1 to 10,000')
      .optional(),
    transport: transportSchema.optional(),
    link: linkSchema.optional(),
    traffic: buildTrafficSchema(fields).optional(),
    expect: expectSchema.optional(),
  });
}

export type ScenarioInput = z.infer<ReturnType<typeof buildScenarioSchema>>;
export type LinkDirectionInput = NonNullable<NonNullable<ScenarioInput['link']>['both']>;
