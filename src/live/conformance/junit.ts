// JUnit XML of the conformance rules, for a reimplementer's CI (`bcsim peer …
// --expect rules.json --junit out.xml`): one test suite, one test case per
// rule, written by live mode's one verdict writer (../verdict.ts), the same as
// conform's cases; so the same wire log gives the same bytes.
import { writeJunitDocument } from '../../core/output/index.js';
import type { JunitCase } from '../../core/output/index.js';
import { verdictJunitCase, verdictJunitXml } from '../verdict.js';
import type { ConformanceResult } from './evaluate.js';
import { evidenceLines } from './report.js';
import { notExercisedMessage } from './verdict.js';

export const JUNIT_SUITE_NAME = 'bcsim peer conformance';

/** One rule as a JUnit case: pass, fail (with its evidence) or skipped (not exercised, with the reason). */
export function conformanceJunitCase(rule: ConformanceResult, classname: string): JunitCase {
  const failure =
    rule.status === 'fail' && rule.violations > 0
      ? {
          message: `${rule.violations} violation${rule.violations === 1 ? '' : 's'} in ${rule.checked} checked`,
          detail:
            rule.evidence.flatMap((e) => evidenceLines(e, '')).join('\n') +
            (rule.violations > rule.evidence.length ? `\n… and ${rule.violations - rule.evidence.length} more` : ''),
        }
      : undefined;
  return verdictJunitCase(classname, {
    name: `${rule.name}: ${rule.title}`,
    status: rule.status,
    ...(failure === undefined ? {} : { failure }),
    ...(rule.reason === undefined ? {} : { reason: notExercisedMessage(rule.reason) }),
  });
}

/** `classname` labels the run (e.g. "bcsim peer client live"); the suite is always JUNIT_SUITE_NAME. */
export function conformanceJunitXml(
  results: readonly ConformanceResult[],
  classname: string = JUNIT_SUITE_NAME,
): string {
  return verdictJunitXml(
    JUNIT_SUITE_NAME,
    results.map((r) => conformanceJunitCase(r, classname)),
  );
}

/** Writes the XML atomically (temporary and rename in the file's folder). */
export function writeConformanceJunit(
  file: string,
  results: readonly ConformanceResult[],
  classname: string = JUNIT_SUITE_NAME,
): string {
  return writeJunitDocument(file, conformanceJunitXml(results, classname));
}
