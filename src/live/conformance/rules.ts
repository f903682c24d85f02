// The conformance rules a live peer judges its counterpart by:
// their shapes (checked with zod, strict like the scenario schema),
// the default set and the one-sentence title of each.
import * as z from 'zod';
import type { PlantedBug } from '../../model/transport/index.js';

export const RULE_KINDS = [
  'fragment-acks',
  'ack-within',
  'ack-sends-max',
  'no-repeated-processing',
  'retransmit-interval',
  'stops-after-ack',
] as const;
export type RuleKind = (typeof RULE_KINDS)[number];

/**
 * A wire key sent again after this long is taken to be a new message (a
 * sequence number reused after the u16 wrap, docs/sources.md 1), not a
 * retransmission: longer than the 45 s peer timeout (docs/sources.md 19), far
 * shorter than a wrap at the measured reliable rates. So no time window of a
 * rule may exceed it.
 */
export const KEY_REUSE_GAP_MS = 60_000;
export const MAX_RULES = 100;
const MAX_RULE_NAME_CHARS = 100;
/** The stock two-pass outbox frees an ACK entry at its 9th send (docs/sources.md 8). */
const MAX_ACK_SENDS_LIMIT = 1_000_000;

const windowMs = (what: string) =>
  z
    .number({ error: `expected ${what} in ms, a number >= 0` })
    .min(0, `expected ${what} in ms, a number >= 0`)
    .max(
      KEY_REUSE_GAP_MS,
      `expected at most ${KEY_REUSE_GAP_MS.toLocaleString('en-US')} ms (a key sent again after that is a new message)`,
    );
const name = z
  .string({ error: 'expected a rule name (a string)' })
  .min(1, 'expected a non-empty rule name')
  .max(MAX_RULE_NAME_CHARS, `expected at most ${MAX_RULE_NAME_CHARS} characters`)
  .optional();

export const RULE_SCHEMAS = {
  'fragment-acks': z.strictObject({ rule: z.literal('fragment-acks'), name, withinMs: windowMs('withinMs') }),
  'ack-within': z.strictObject({ rule: z.literal('ack-within'), name, ms: windowMs('ms') }),
  'ack-sends-max': z.strictObject({
    rule: z.literal('ack-sends-max'),
    name,
    max: z
      .number({ error: 'expected max, a whole number of sends >= 1' })
      .int('expected max, a whole number of sends >= 1')
      .min(1, 'expected max, a whole number of sends >= 1')
      .max(MAX_ACK_SENDS_LIMIT, `expected at most ${MAX_ACK_SENDS_LIMIT.toLocaleString('en-US')} sends`),
  }),
  'no-repeated-processing': z.strictObject({ rule: z.literal('no-repeated-processing'), name }),
  'retransmit-interval': z.strictObject({
    rule: z.literal('retransmit-interval'),
    name,
    minMs: windowMs('minMs'),
    maxMs: windowMs('maxMs'),
  }),
  'stops-after-ack': z.strictObject({ rule: z.literal('stops-after-ack'), name, graceMs: windowMs('graceMs') }),
} as const;

export type FragmentAcksRule = z.infer<(typeof RULE_SCHEMAS)['fragment-acks']>;
export type AckWithinRule = z.infer<(typeof RULE_SCHEMAS)['ack-within']>;
export type AckSendsMaxRule = z.infer<(typeof RULE_SCHEMAS)['ack-sends-max']>;
export type NoRepeatedProcessingRule = z.infer<(typeof RULE_SCHEMAS)['no-repeated-processing']>;
export type RetransmitIntervalRule = z.infer<(typeof RULE_SCHEMAS)['retransmit-interval']>;
export type StopsAfterAckRule = z.infer<(typeof RULE_SCHEMAS)['stops-after-ack']>;
export type ConformanceRule =
  | FragmentAcksRule
  | AckWithinRule
  | AckSendsMaxRule
  | NoRepeatedProcessingRule
  | RetransmitIntervalRule
  | StopsAfterAckRule;

/**
 * Used when the user gives no rules file. The windows suit clean loopback
 * against a stock-timed counterpart:
 * - 2 s for a fragment ACK, 1 s for any ACK: a stock peer ACKs in its next
 *   network update (docs/sources.md 8, 16), ~95 ms apart at the slowest (docs/sources.md 13);
 * - 9 sends: the stock two-pass ACK-outbox frees an entry at its 9th send (docs/sources.md 8);
 * - retransmits 0.2–3 s apart: the stock fixed 2 s interval (docs/sources.md 11)
 *   plus a network update of slack;
 * - 1 s grace after our ACK: a retransmission already due when our ACK arrived may still leave.
 */
export const DEFAULT_CONFORMANCE_RULES: readonly ConformanceRule[] = [
  { rule: 'fragment-acks', withinMs: 2000 },
  { rule: 'ack-within', ms: 1000 },
  { rule: 'ack-sends-max', max: 9 },
  { rule: 'no-repeated-processing' },
  { rule: 'retransmit-interval', minMs: 200, maxMs: 3000 },
  { rule: 'stops-after-ack', graceMs: 1000 },
];

/** A rule kind as data, as a conform case is: its windows (its fields in ms) and the planted bugs that fail it. */
export interface RuleEntry {
  readonly windows: readonly string[];
  /** Planted bugs of `bcsim peer server` (switches.ts PlantedBug) that fail it against bcsim's fixed client. */
  readonly plantedBugs: readonly PlantedBug[];
}

/**
 * Every rule kind; the claim is `ruleTitle`. `fragment-acks` is also a conform
 * case, failed by the same planted bug. The other rules judge what a fixed
 * client on clean loopback rarely provokes (re-sends, repeated ACK entries), so
 * no planted bug is declared to fail them.
 */
export const RULE_CATALOGUE: Readonly<Record<RuleKind, RuleEntry>> = {
  'fragment-acks': { windows: ['withinMs'], plantedBugs: ['fragment-ack-index-zero'] },
  'ack-within': { windows: ['ms'], plantedBugs: [] },
  'ack-sends-max': { windows: [], plantedBugs: [] },
  'no-repeated-processing': { windows: [], plantedBugs: [] },
  'retransmit-interval': { windows: ['minMs', 'maxMs'], plantedBugs: [] },
  'stops-after-ack': { windows: ['graceMs'], plantedBugs: [] },
};

/** The name a rule is reported under: its own, or its kind. */
export function ruleName(rule: ConformanceRule): string {
  return rule.name ?? rule.rule;
}

/** One sentence saying what the rule demands of the counterpart. */
export function ruleTitle(rule: ConformanceRule): string {
  switch (rule.rule) {
    case 'fragment-acks':
      return `Every fragment we sent got a well-formed 5-byte fragment ACK with its seq and index within ${rule.withinMs} ms.`;
    case 'ack-within':
      return `Every reliable message or fragment we sent was ACKed within ${rule.ms} ms of its first transmission.`;
    case 'ack-sends-max':
      return `No ACK entry of the counterpart was sent more than ${rule.max} times.`;
    case 'no-repeated-processing':
      return 'No request of ours drew more than one distinct reliable reply, so none was processed twice as far as the wire shows.';
    case 'retransmit-interval':
      return `The counterpart re-sent each reliable message ${rule.minMs} to ${rule.maxMs} ms after its previous transmission.`;
    case 'stops-after-ack':
      return `The counterpart stopped re-sending each message within ${rule.graceMs} ms of our ACK.`;
  }
}

/** What each rule can and cannot see, for help texts and the README. */
export const RULE_NOTES: Readonly<Record<RuleKind, string>> = {
  'fragment-acks':
    "Each fragment of ours needs [01][seq][01][index] from the counterpart (transport-layer.md §3). The stock server sends exactly this (the stock bug is on the sender's side), so a counterpart ACKing fragments with 4-byte ACKs or wrong indices fails.",
  'ack-within':
    'ACKs are matched on seq, low/high bit, fragment flag and index. Messages first sent less than the window before the end are skipped.',
  'ack-sends-max':
    'An entry counts the ACKs of one key since our latest transmission of that message. The stock two-pass outbox sends an entry up to 9 times; the fix frees it after 3, so max 3 tells the two apart.',
  'no-repeated-processing':
    'Only requests answered once are visible: the join pairs (Connect, checksum rounds, GameInit, NewPlayerInGame). A second distinct reliable reply to one request of ours means it was processed twice. Repeated delivery of messages nobody answers leaves no trace on the wire.',
  'retransmit-interval':
    'Gaps between consecutive transmissions of one reliable key of the counterpart; the same key with another payload is a new message. A keepalive repeated under its seq is a new keepalive, counted apart and not judged.',
  'stops-after-ack':
    'Judged from our first ACK of each message. On a lossy link (behind `bcsim proxy --loss`) our ACK can be lost and a re-send is then correct: use this rule on clean loopback. A keepalive repeated under its seq (a server echoing our keepalive) is a new keepalive, counted apart and not judged.',
};
