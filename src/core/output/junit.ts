// JUnit XML for CI systems, shared by every command that writes it (`bcsim
// check --junit`, `bcsim peer --junit`): test suites of test cases, each
// passed, failed or skipped. No times or dates: the same results give the same
// bytes. A `skipped` count is written only where something was skipped, so a
// document without skipped cases has the attributes it always had.
import { basename, dirname } from 'node:path';
import { sweepTemporaries, writeFileAtomic } from './atomic-write.js';
import { escapeXml } from './format.js';

type JunitStatus = 'pass' | 'fail' | 'skipped';

export interface JunitCase {
  readonly classname: string;
  readonly name: string;
  readonly status: JunitStatus;
  /** fail and skipped: one line saying what failed, or why nothing was tested. */
  readonly message?: string;
  /** fail: the failure's text (evidence, a command that reproduces it); without it the element is empty. */
  readonly detail?: string;
}

export interface JunitSuite {
  readonly name: string;
  readonly cases: readonly JunitCase[];
  /** Lines about the whole suite (a CI system shows them with it): `<system-err>`, written only when given. */
  readonly systemErr?: string;
}

/** escapeXml, and the control characters XML 1.0 cannot carry at all (a name may hold any string). */
function xmlText(text: string): string {
  // eslint-disable-next-line no-control-regex
  return escapeXml(text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '?'));
}

interface Counts {
  tests: number;
  failures: number;
  skipped: number;
}

function count(cases: readonly JunitCase[], into: Counts = { tests: 0, failures: 0, skipped: 0 }): Counts {
  for (const c of cases) {
    into.tests++;
    if (c.status === 'fail') into.failures++;
    else if (c.status === 'skipped') into.skipped++;
  }
  return into;
}

function countAttributes(c: Counts): string {
  return `tests="${c.tests}" failures="${c.failures}"${c.skipped > 0 ? ` skipped="${c.skipped}"` : ''}`;
}

function caseXml(c: JunitCase): string {
  const open = `<testcase classname="${xmlText(c.classname)}" name="${xmlText(c.name)}">`;
  const message = `message="${xmlText(c.message ?? '')}"`;
  let inner = '';
  if (c.status === 'fail')
    inner = c.detail === undefined ? `<failure ${message}/>` : `<failure ${message}>${xmlText(c.detail)}</failure>`;
  else if (c.status === 'skipped') inner = `<skipped ${message}/>`;
  return `    ${open}${inner}</testcase>`;
}

/** The whole document: `<testsuites name=…>` holding one `<testsuite>` per suite. */
export function junitDocument(name: string, suites: readonly JunitSuite[]): string {
  const total = { tests: 0, failures: 0, skipped: 0 };
  const body = suites.map((suite) => {
    const counts = count(suite.cases);
    count(suite.cases, total);
    const err = suite.systemErr === undefined ? '' : `    <system-err>${xmlText(suite.systemErr)}</system-err>\n`;
    return `  <testsuite name="${xmlText(suite.name)}" ${countAttributes(counts)}>\n${suite.cases.map(caseXml).join('\n')}\n${err}  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${xmlText(name)}" ${countAttributes(total)}>\n${body.join('\n')}\n</testsuites>\n`;
}

/**
 * Writes the XML by temporary and rename in the file's own folder, so a CI job
 * never reads half a file; temporaries of killed runs are swept.
 */
export function writeJunitDocument(file: string, xml: string): string {
  sweepTemporaries(dirname(file), basename(file));
  return writeFileAtomic(dirname(file), basename(file), xml);
}
