// One verdict model for everything live mode judges: a conform case and a
// conformance rule of `bcsim peer` each PASS, FAIL, or are NOT EXERCISED (they
// checked nothing, so they say nothing: never counted as a pass). Both print
// the same closing count line and write the same JUnit test case.
import { junitDocument } from '../core/output/index.js';
import type { JunitCase } from '../core/output/index.js';

export type VerdictStatus = 'pass' | 'fail' | 'not-exercised';

/** What the text calls each status. */
export const STATUS_WORD: Readonly<Record<VerdictStatus, string>> = {
  pass: 'PASS',
  fail: 'FAIL',
  'not-exercised': 'NOT EXERCISED',
};

export interface StatusCounts {
  readonly passed: number;
  readonly failed: number;
  readonly notExercised: number;
}

export function countStatuses(results: readonly { readonly status: VerdictStatus }[]): StatusCounts {
  const of = (status: VerdictStatus) => results.filter((r) => r.status === status).length;
  return { passed: of('pass'), failed: of('fail'), notExercised: of('not-exercised') };
}

/** "4 passed, 1 failed, 2 not exercised (7 rules)"; `more` goes inside the brackets. */
export function countsLine(counts: StatusCounts, total: number, noun: 'case' | 'rule', more = ''): string {
  const what = `${total} ${noun}${total === 1 ? '' : 's'}`;
  return `${counts.passed} passed, ${counts.failed} failed, ${counts.notExercised} not exercised (${what}${more})`;
}

/** A verdict as JUnit sees it. */
export interface JudgedItem {
  readonly name: string;
  readonly status: VerdictStatus;
  /** For a FAIL: its one line and its evidence. */
  readonly failure?: { readonly message: string; readonly detail?: string };
  /** For a verdict that checked nothing: why (also on a FAIL that is only a required case or rule not exercised). */
  readonly reason?: string;
}

/**
 * One test case: a failure with its evidence; a skip with its reason; and a
 * failure, with the reason, for one that checked nothing but was required to.
 */
export function verdictJunitCase(classname: string, item: JudgedItem): JunitCase {
  const { name } = item;
  if (item.status === 'pass') return { classname, name, status: 'pass' };
  if (item.status === 'not-exercised')
    return { classname, name, status: 'skipped', message: `not exercised: ${item.reason ?? ''}` };
  if (item.failure === undefined)
    return { classname, name, status: 'fail', message: `not exercised, and required to be: ${item.reason ?? ''}` };
  const { message, detail } = item.failure;
  return { classname, name, status: 'fail', message, ...(detail === undefined ? {} : { detail }) };
}

/** The document: one suite of these test cases (`systemErr`: what the run says besides them). */
export function verdictJunitXml(suite: string, cases: readonly JunitCase[], systemErr: readonly string[] = []): string {
  return junitDocument(suite, [
    { name: suite, cases: [...cases], ...(systemErr.length === 0 ? {} : { systemErr: systemErr.join('\n') }) },
  ]);
}
