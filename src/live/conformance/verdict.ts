// A rule's verdict has three values: it passed (it checked cases and none
// broke it), it failed, or it was not exercised (it checked nothing, so it
// says nothing about the counterpart). A rule that checked nothing is never
// counted as a pass, and each says why it checked nothing, from what its
// judge saw: "we sent no fragments", "the counterpart re-sent none of its 72
// reliable messages".
import { REQUEST_PAIRS } from './replies.js';
import type { ConformanceRule } from './rules.js';
import type { Tally } from './judge.js';
import { countStatuses, countsLine } from '../verdict.js';
import type { VerdictStatus } from '../verdict.js';

/** The closing counts: `conformance: 4 passed, 1 failed, 2 not exercised (7 rules)`. */
export interface ConformanceCounts {
  readonly rules: number;
  readonly passed: number;
  readonly failed: number;
  readonly notExercised: number;
}

/** The reason of every rule when the log holds no datagram of the counterpart: it never answered. */
export const SILENT_COUNTERPART_REASON = 'the counterpart sent no datagram';

/** A violation fails the rule; otherwise it passed if it checked anything. */
export function ruleStatus(checked: number, violations: number): VerdictStatus {
  if (violations > 0) return 'fail';
  return checked > 0 ? 'pass' : 'not-exercised';
}

export function countVerdicts(results: readonly { readonly status: VerdictStatus }[]): ConformanceCounts {
  return { rules: results.length, ...countStatuses(results) };
}

/** "4 passed, 1 failed, 2 not exercised (7 rules)". */
export function countsText(counts: ConformanceCounts, more = ''): string {
  return countsLine(counts, counts.rules, 'rule', more);
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Cases seen but not judged: too close to the end of the run, or past the bound on tracked keys. */
function unjudged(tally: Tally, tooLate: string): string {
  const parts: string[] = [];
  if (tally.skipped > 0) parts.push(`${tally.skipped} ${tooLate}`);
  if (tally.untracked > 0) parts.push(`${tally.untracked} untracked (the bound on tracked keys was reached)`);
  return parts.length === 0 ? '' : `: ${parts.join(', ')}`;
}

const JUDGED_REQUESTS = [...new Set(REQUEST_PAIRS.map((p) => p.request))].join(', ');

/**
 * The counterpart's keepalive repeats a re-send rule saw and did not judge (retransmits.ts): for
 * `stops-after-ack` those past the grace after our ACK, for `retransmit-interval` all of them.
 */
export function keepaliveRepeatsText(rule: string, repeats: number): string {
  const what = plural(repeats, 'keepalive repeat');
  return rule === 'stops-after-ack'
    ? `${what} past the grace after our ACK, not judged: each keepalive is a new message`
    : `${what} not judged`;
}

/** Why a rule whose tally checked nothing checked nothing (its judge counts what it saw in `tally.seen`). */
export function notExercisedReason(rule: ConformanceRule, tally: Tally): string {
  const { seen } = tally;
  switch (rule.rule) {
    case 'fragment-acks':
      if (seen === 0) return 'we sent no fragments';
      return `we sent ${plural(seen, 'fragment')}, none judgeable${unjudged(tally, `sent less than ${rule.withinMs} ms before the run ended`)}`;
    case 'ack-within':
      if (seen === 0) return 'we sent no reliable messages';
      return `we sent ${plural(seen, 'reliable message')}, none judgeable${unjudged(tally, `sent less than ${rule.ms} ms before the run ended`)}`;
    case 'ack-sends-max':
      if (seen === 0) return 'the counterpart sent no ACKs';
      return `the counterpart sent ${plural(seen, 'ACK')}, none judgeable${unjudged(tally, '')}`;
    case 'no-repeated-processing':
      if (seen === 0) return `we sent none of the requests whose replies show it: ${JUDGED_REQUESTS}`;
      return `the counterpart answered none of our ${plural(seen, 'request')} (${JUDGED_REQUESTS})`;
    case 'retransmit-interval':
      if (seen === 0) return 'the counterpart sent no reliable messages';
      return `the counterpart re-sent none of its ${plural(seen, 'reliable message')}${unjudged(tally, '')}${keepalivesAside(rule, tally)}`;
    case 'stops-after-ack':
      if (seen === 0) return 'we ACKed no reliable message of the counterpart';
      return `we ACKed ${plural(seen, 'reliable message')} of the counterpart, none judgeable${unjudged(tally, `ACKed less than ${rule.graceMs} ms before the run ended`)}${keepalivesAside(rule, tally)}`;
  }
}

function keepalivesAside(rule: ConformanceRule, tally: Tally): string {
  return tally.keepaliveRepeats === 0 ? '' : ` (${keepaliveRepeatsText(rule.rule, tally.keepaliveRepeats)})`;
}

/** A rule's verdict fields: not exercised carries its reason. */
export function verdictOf(
  rule: ConformanceRule,
  tally: Tally,
): { status: VerdictStatus; passed: boolean; reason?: string } {
  const status = ruleStatus(tally.checked, tally.violations);
  if (status !== 'not-exercised') return { status, passed: status === 'pass' };
  return { status, passed: false, reason: notExercisedReason(rule, tally) };
}

/** The one line that says why a rule checked nothing. */
export function notExercisedMessage(reason: string): string {
  return `checked 0 events: ${reason}`;
}

/**
 * The same results, with every rule that was not exercised failed instead
 * (`bcsim peer --require-exercised`): its reason stays, and the reports say it
 * failed because it checked nothing.
 */
export function requireExercised<R extends { readonly status: VerdictStatus; readonly passed: boolean }>(
  results: readonly R[],
): R[] {
  return results.map((r) => (r.status === 'not-exercised' ? { ...r, status: 'fail', passed: false } : r));
}

/** A failure that is a required rule not exercised: no violation, and a reason. */
export function failedUnexercised(result: {
  readonly status: VerdictStatus;
  readonly violations: number;
  readonly reason?: string;
}): boolean {
  return result.status === 'fail' && result.violations === 0 && result.reason !== undefined;
}
