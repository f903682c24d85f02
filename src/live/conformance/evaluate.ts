// Evaluates conformance rules on a live peer's WireLog.
// Pure: the log in, one result per rule out. Each record is decoded once with
// the codec; every connection gets its own judges; a record the codec rejects
// is skipped and counted (a hostile counterpart cannot make this throw).
import { msToUsUnrounded } from '../../core/engine/index.js';
import { decodeDatagram } from '../../core/codec/index.js';
import type { WireRecord } from '../wire-log.js';
import { AckDeadlineJudge, isWellFormedFragmentAck } from './ack-deadline.js';
import { AckSendsJudge } from './ack-sends.js';
import { Budget } from '../../core/engine/index.js';
import { JudgeContext, MAX_EVIDENCE, MAX_TRACKED_KEYS, Tally } from './judge.js';
import type { Evidence, Judge } from './judge.js';
import { RepliesJudge } from './replies.js';
import { RetransmitIntervalJudge, StopsAfterAckJudge } from './retransmits.js';
import { KEY_REUSE_GAP_MS, ruleName, ruleTitle } from './rules.js';
import type { ConformanceRule, RuleKind } from './rules.js';
import { SILENT_COUNTERPART_REASON, countVerdicts, verdictOf } from './verdict.js';
import type { ConformanceCounts } from './verdict.js';
import type { VerdictStatus } from '../verdict.js';

/** One rule's verdict (the per-rule result the CLI prints, writes as JUnit and puts in its JSON). */
export interface ConformanceResult {
  /** The rule kind: a RuleKind here; a result made elsewhere (the peer's join check) may use its own. */
  readonly rule: RuleKind | (string & {});
  readonly name: string;
  readonly title: string;
  /** pass: it checked cases and none broke it; fail: one did; not-exercised: it checked nothing. */
  readonly status: VerdictStatus;
  /** True only for status "pass": a rule that checked nothing never counts as passed. */
  readonly passed: boolean;
  /** Why the rule checked nothing (status not-exercised, or a failure made of it by requireExercised). */
  readonly reason?: string;
  /** Cases judged. */
  readonly checked: number;
  readonly violations: number;
  /** Cases the log could not decide: their window reaches past its end (always set by evaluateConformance). */
  readonly skipped?: number;
  /** Cases not judged because the bound on tracked keys was reached (always set by evaluateConformance). */
  readonly untracked?: number;
  /**
   * The counterpart's keepalive again under a seq it had used, which the re-send rules do not judge
   * (retransmits.ts); set only when there were any.
   */
  readonly keepaliveRepeats?: number;
  /** The earliest violations, at most MAX_EVIDENCE. */
  readonly evidence: readonly Evidence[];
}

export type RuleResult = ConformanceResult;

/** The verdicts and what the evaluation made of the log. */
export interface ConformanceEvaluation {
  readonly counts: ConformanceCounts;
  /** The log holds no datagram of the counterpart: no rule was exercised. */
  readonly counterpartSilent: boolean;
  readonly rules: readonly ConformanceResult[];
  readonly records: number;
  /** Records the codec rejected (or with no finite time), skipped. */
  readonly undecodable: number;
  /** Records of connections past MAX_CONNECTIONS, skipped. */
  readonly untrackedRecords: number;
  readonly connections: number;
}

export interface ConformanceOptions {
  /** When the live run ended (µs, the WireLog's clock); windows reaching past it are not judged. */
  readonly endUs: number;
  /** Bound on keys tracked at once by all judges (default MAX_TRACKED_KEYS). */
  readonly maxTrackedKeys?: number;
}

/** A server's clients, reconnections included; far above the 16-client session (schema MAX_CLIENTS). */
export const MAX_CONNECTIONS = 1024;
/** Idle state is judged and forgotten this often (log time). */
const SWEEP_EVERY_US = 10_000_000;
const REUSE_GAP_US = msToUsUnrounded(KEY_REUSE_GAP_MS);

/** One result per rule, in the rules' order. */
export function evaluateConformance(
  log: readonly WireRecord[],
  rules: readonly ConformanceRule[],
  options: ConformanceOptions,
): ConformanceResult[] {
  return [...evaluateConformanceLog(log, rules, options).rules];
}

/** evaluateConformance, with the log's counts (records, undecodable ones, connections). */
export function evaluateConformanceLog(
  log: readonly WireRecord[],
  rules: readonly ConformanceRule[],
  options: ConformanceOptions,
): ConformanceEvaluation {
  const order = timeOrder(log);
  const lastUs = order.length > 0 ? log[order[order.length - 1]].timeUs : 0;
  const endUs = Math.max(options.endUs, lastUs);
  const budget = new Budget(options.maxTrackedKeys ?? MAX_TRACKED_KEYS, 'tracked keys');
  const tallies = rules.map(() => new Tally());
  const judgesOf = new Map<number, Judge[]>();
  const datagramOf = (recordIndex: number) => log[recordIndex].bytes;
  let undecodable = 0;
  let untrackedRecords = 0;
  let nextSweepUs = SWEEP_EVERY_US;
  // Every rule judges what the counterpart sent (or did not send in answer): with nothing of it, nothing is judged.
  const counterpartSilent = !log.some((r) => r.from === 'remote');

  for (const recordIndex of counterpartSilent ? [] : order) {
    const record = log[recordIndex];
    let judges = judgesOf.get(record.connection);
    if (judges === undefined) {
      if (judgesOf.size >= MAX_CONNECTIONS) {
        untrackedRecords++;
        continue;
      }
      const made = rules.map((rule, i) =>
        makeJudge(rule, new JudgeContext(record.connection, endUs, tallies[i], budget, datagramOf)),
      );
      judgesOf.set(record.connection, (judges = made));
    }
    const decoded =
      Number.isFinite(record.timeUs) && record.bytes instanceof Uint8Array ? decodeDatagram(record.bytes) : null;
    if (decoded === null || !decoded.ok) {
      undecodable++;
      continue;
    }
    const { peerId, messages } = decoded.datagram;
    for (const message of messages) {
      const event = {
        timeUs: record.timeUs,
        arrivedFromUs: record.arrivedFromUs ?? record.timeUs,
        from: record.from,
        recordIndex,
        peerId,
        message,
        datagram: record.bytes,
      };
      for (const judge of judges) judge.observe(event);
    }
    if (record.timeUs >= nextSweepUs) {
      for (const list of judgesOf.values()) for (const judge of list) judge.sweep(record.timeUs - REUSE_GAP_US);
      nextSweepUs = record.timeUs + SWEEP_EVERY_US;
    }
  }
  for (const list of judgesOf.values()) for (const judge of list) judge.finish();

  const results = rules.map((rule, i) => toResult(rule, tallies[i], counterpartSilent));
  return {
    counts: countVerdicts(results),
    counterpartSilent,
    rules: results,
    records: log.length,
    undecodable,
    untrackedRecords,
    connections: judgesOf.size,
  };
}

function makeJudge(rule: ConformanceRule, context: JudgeContext): Judge {
  switch (rule.rule) {
    case 'fragment-acks':
      return new AckDeadlineJudge(context, {
        windowUs: msToUsUnrounded(rule.withinMs),
        fragmentsOnly: true,
        wellFormed: isWellFormedFragmentAck,
        wanted: 'a well-formed 5-byte fragment ACK',
        connectReplyAnswers: false,
      });
    case 'ack-within':
      return new AckDeadlineJudge(context, {
        windowUs: msToUsUnrounded(rule.ms),
        fragmentsOnly: false,
        wellFormed: () => true,
        wanted: 'an ACK',
        connectReplyAnswers: true,
      });
    case 'ack-sends-max':
      return new AckSendsJudge(context, rule.max);
    case 'no-repeated-processing':
      return new RepliesJudge(context);
    case 'retransmit-interval':
      return new RetransmitIntervalJudge(context, msToUsUnrounded(rule.minMs), msToUsUnrounded(rule.maxMs));
    case 'stops-after-ack':
      return new StopsAfterAckJudge(context, msToUsUnrounded(rule.graceMs));
  }
}

function toResult(rule: ConformanceRule, tally: Tally, counterpartSilent: boolean): ConformanceResult {
  // Earliest first; ties by connection, then seq, so the order never depends on Map order.
  const evidence = [...tally.evidence]
    .sort(
      (a, b) =>
        a.timeS - b.timeS || a.connection - b.connection || a.seq - b.seq || (a.fragIndex ?? -1) - (b.fragIndex ?? -1),
    )
    .slice(0, MAX_EVIDENCE)
    .map((e) => ({ ...e }));
  return {
    rule: rule.rule,
    name: ruleName(rule),
    title: ruleTitle(rule),
    ...(counterpartSilent
      ? { status: 'not-exercised', passed: false, reason: SILENT_COUNTERPART_REASON }
      : verdictOf(rule, tally)),
    checked: tally.checked,
    violations: tally.violations,
    skipped: tally.skipped,
    untracked: tally.untracked,
    ...(tally.keepaliveRepeats > 0 ? { keepaliveRepeats: tally.keepaliveRepeats } : {}),
    evidence,
  };
}

/** Record indices in time order (stable); the live peer appends in order, so this is usually the identity. */
function timeOrder(log: readonly WireRecord[]): number[] {
  const order = log.map((_, i) => i);
  let sorted = true;
  for (let i = 1; i < log.length && sorted; i++) sorted = log[i].timeUs >= log[i - 1].timeUs;
  if (!sorted) order.sort((a, b) => log[a].timeUs - log[b].timeUs || a - b);
  return order;
}
