// JUnit XML for CI systems: one test suite per scenario and mode (and seed, in a
// `--seeds` sweep), one test case per assertion. No times or dates: the same
// runs give the same file.
import { basename, dirname } from 'node:path';
import { sweepTemporaries, writeFileAtomic, escapeXml } from '../report/index.js';
import { OP_SYMBOL } from './assertions.js';
import type { CheckRun } from './check.js';

export interface JunitOptions {
  /** Name each suite and class "<scenario> [<mode>] seed <n>", so the cases of a seed sweep stay distinct. */
  readonly seedInNames?: boolean;
}

export function junitXml(runs: readonly CheckRun[], options: JunitOptions = {}): string {
  const total = runs.reduce((n, r) => n + r.results.length + (r.determinism ? 1 : 0), 0);
  const failures = runs.reduce((n, r) => n + r.results.filter((a) => !a.pass).length + (r.determinism && !r.determinism.identical ? 1 : 0), 0);
  const suites = runs.map((run) => {
    const name = options.seedInNames ? `${run.scenario} [${run.mode}] seed ${run.seed}` : `${run.scenario} [${run.mode}]`;
    const cases = run.results.map((a) => {
      const title = `${a.path} ${OP_SYMBOL[a.op]} ${a.expected}`;
      const failure = a.pass ? '' : `<failure message="${escapeXml(`${a.path} is ${a.actual}, expected ${OP_SYMBOL[a.op]} ${a.expected}`)}">${escapeXml(`reproduce: ${run.reproduce}`)}</failure>`;
      return `    <testcase classname="${escapeXml(name)}" name="${escapeXml(title)}">${failure}</testcase>`;
    });
    if (run.determinism) {
      const d = run.determinism;
      const failure = d.identical ? '' : `<failure message="${escapeXml(d.message)}"/>`;
      cases.push(`    <testcase classname="${escapeXml(name)}" name="determinism: two runs give identical traces">${failure}</testcase>`);
    }
    const failed = run.results.filter((a) => !a.pass).length + (run.determinism && !run.determinism.identical ? 1 : 0);
    return `  <testsuite name="${escapeXml(name)}" tests="${cases.length}" failures="${failed}">\n${cases.join('\n')}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="bcsim check" tests="${total}" failures="${failures}">\n${suites.join('\n')}\n</testsuites>\n`;
}

/**
 * Writes the XML by temporary and rename in the file's own folder, so a CI job
 * never reads half a file (issue 9); temporaries of killed runs are swept.
 */
export function writeJunitFile(file: string, runs: readonly CheckRun[], options: JunitOptions = {}): string {
  sweepTemporaries(dirname(file), basename(file));
  return writeFileAtomic(dirname(file), basename(file), junitXml(runs, options));
}
