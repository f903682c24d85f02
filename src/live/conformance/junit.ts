// JUnit XML of the conformance rules, for a reimplementer's CI (`bcsim peer …
// --expect rules.json --junit out.xml`, issue 14 item 3): one test suite, one
// test case per rule, a failure carrying its evidence. No times or dates: the
// same wire log gives the same file (as src/check/junit.ts).
import { basename, dirname } from 'node:path';
import { sweepTemporaries, writeFileAtomic, escapeXml } from '../../report/index.js';
import type { ConformanceResult } from './evaluate.js';
import { evidenceLines } from './report.js';

export const JUNIT_SUITE_NAME = 'bcsim peer conformance';

/** escapeXml, and the control characters XML 1.0 cannot carry at all (a rule name may hold any string). */
function xmlText(text: string): string {
  // eslint-disable-next-line no-control-regex
  return escapeXml(text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '?'));
}

/** `classname` labels the run (e.g. "bcsim peer client live"); the suite is always JUNIT_SUITE_NAME. */
export function conformanceJunitXml(results: readonly ConformanceResult[], classname: string = JUNIT_SUITE_NAME): string {
  const failures = results.filter((r) => !r.passed).length;
  const tests = results.length;
  const suite = xmlText(JUNIT_SUITE_NAME);
  const cases = results.map((rule) => {
    const open = `    <testcase classname="${xmlText(classname)}" name="${xmlText(`${rule.name}: ${rule.title}`)}"`;
    if (rule.passed) return `${open}/>`;
    const message = `${rule.violations} violation${rule.violations === 1 ? '' : 's'} in ${rule.checked} checked`;
    const body = rule.evidence.flatMap((e) => evidenceLines(e, '')).join('\n');
    const more = rule.violations > rule.evidence.length ? `\n… and ${rule.violations - rule.evidence.length} more` : '';
    return `${open}>\n      <failure message="${xmlText(message)}">${xmlText(body + more)}</failure>\n    </testcase>`;
  });
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<testsuites name="${suite}" tests="${tests}" failures="${failures}">\n` +
    `  <testsuite name="${suite}" tests="${tests}" failures="${failures}">\n${cases.join('\n')}\n  </testsuite>\n` +
    `</testsuites>\n`
  );
}

/**
 * Writes the XML by temporary and rename in the file's own folder, so a CI job
 * never reads half a file; temporaries of killed runs are swept.
 */
export function writeConformanceJunit(file: string, results: readonly ConformanceResult[], classname: string = JUNIT_SUITE_NAME): string {
  sweepTemporaries(dirname(file), basename(file));
  return writeFileAtomic(dirname(file), basename(file), conformanceJunitXml(results, classname));
}
