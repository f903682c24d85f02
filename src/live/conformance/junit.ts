// JUnit XML of the conformance rules, for a reimplementer's CI (`bcsim peer …
// --expect rules.json --junit out.xml`): one test suite, one test case per
// rule; a failure carries its evidence, a rule that checked nothing is
// skipped with its reason. The document is the shared writer's
// (src/analysis/report/junit.ts), so the same wire log gives the same bytes.
import { junitDocument, writeJunitDocument } from '../../analysis/report/index.js';
import type { JunitCase } from '../../analysis/report/index.js';
import type { ConformanceResult } from './evaluate.js';
import { evidenceLines } from './report.js';
import { failedUnexercised, notExercisedMessage } from './verdict.js';

export const JUNIT_SUITE_NAME = 'bcsim peer conformance';

/** One rule as a JUnit case: pass, fail (with its evidence) or skipped (not exercised, with the reason). */
export function conformanceJunitCase(rule: ConformanceResult, classname: string): JunitCase {
  const name = `${rule.name}: ${rule.title}`;
  switch (rule.status) {
    case 'pass':
      return { classname, name, status: 'pass' };
    case 'not-exercised':
      return { classname, name, status: 'skipped', message: notExercisedMessage(rule.reason ?? '') };
    case 'fail': {
      if (failedUnexercised(rule))
        return {
          classname,
          name,
          status: 'fail',
          message: `not exercised, and required to be: ${notExercisedMessage(rule.reason ?? '')}`,
        };
      const message = `${rule.violations} violation${rule.violations === 1 ? '' : 's'} in ${rule.checked} checked`;
      const body = rule.evidence.flatMap((e) => evidenceLines(e, '')).join('\n');
      const more =
        rule.violations > rule.evidence.length ? `\n… and ${rule.violations - rule.evidence.length} more` : '';
      return { classname, name, status: 'fail', message, detail: body + more };
    }
  }
}

/** `classname` labels the run (e.g. "bcsim peer client live"); the suite is always JUNIT_SUITE_NAME. */
export function conformanceJunitXml(
  results: readonly ConformanceResult[],
  classname: string = JUNIT_SUITE_NAME,
): string {
  return junitDocument(JUNIT_SUITE_NAME, [
    { name: JUNIT_SUITE_NAME, cases: results.map((r) => conformanceJunitCase(r, classname)) },
  ]);
}

/** Writes the XML atomically (temporary and rename in the file's folder). */
export function writeConformanceJunit(
  file: string,
  results: readonly ConformanceResult[],
  classname: string = JUNIT_SUITE_NAME,
): string {
  return writeJunitDocument(file, conformanceJunitXml(results, classname));
}
