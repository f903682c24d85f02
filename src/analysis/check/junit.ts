// JUnit XML for CI systems: one test suite per scenario and mode (and seed, in a
// `--seeds` sweep), one test case per assertion. No times or dates: the same
// runs give the same file. The document itself is the shared writer's
// (src/core/output/junit.ts).
import { junitDocument, writeJunitDocument } from '../../core/output/index.js';
import type { JunitCase, JunitSuite } from '../../core/output/index.js';
import { OP_SYMBOL } from './assertions.js';
import type { CheckRun } from './check.js';

export interface JunitOptions {
  /** Name each suite and class "<scenario> [<mode>] seed <n>", so the cases of a seed sweep stay distinct. */
  readonly seedInNames?: boolean;
}

export function junitXml(runs: readonly CheckRun[], options: JunitOptions = {}): string {
  const suites = runs.map((run): JunitSuite => {
    const name = options.seedInNames
      ? `${run.scenario} [${run.mode}] seed ${run.seed}`
      : `${run.scenario} [${run.mode}]`;
    const cases = run.results.map(
      (a): JunitCase => ({
        classname: name,
        name: `${a.path} ${OP_SYMBOL[a.op]} ${a.expected}`,
        status: a.pass ? 'pass' : a.notApplicable !== undefined ? 'skipped' : 'fail',
        message: `${a.path} is ${a.actual}, expected ${OP_SYMBOL[a.op]} ${a.expected}${a.notApplicable === undefined ? '' : `: not applicable, ${a.notApplicable}`}`,
        detail: `reproduce: ${run.reproduce}`,
      }),
    );
    if (run.determinism) {
      const d = run.determinism;
      cases.push({
        classname: name,
        name: 'determinism: two runs give identical traces',
        status: d.identical ? 'pass' : 'fail',
        message: d.message,
      });
    }
    return { name, cases };
  });
  return junitDocument('bcsim check', suites);
}

/**
 * Writes the XML by temporary and rename in the file's own folder, so a CI job
 * never reads half a file; temporaries of killed runs are swept.
 */
export function writeJunitFile(file: string, runs: readonly CheckRun[], options: JunitOptions = {}): string {
  return writeJunitDocument(file, junitXml(runs, options));
}
