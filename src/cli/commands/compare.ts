// `bcsim compare <scenario>`: stock against fixed (and, with --causes, each
// fragment-ACK cause), a table on the terminal and four report files.
import { relative, resolve } from 'node:path';
import { runComparison, modesWithCauses, STOCK_AND_FIXED } from '../../report/compare.js';
import { renderCompareTable } from '../../report/compare-table.js';
import { summaryJson } from '../../report/documents.js';
import { makeChalk } from '../../report/style.js';
import { OutPathError, outDirProblem } from '../../report/out-dir.js';
import { REPORT_FILES, writeReport } from '../../report/write.js';
import type { CliIO } from '../io.js';
import { EXIT_OK, UsageError, writingTo } from '../io.js';
import { durationFlag, seedFlag } from '../options.js';
import { progressFor } from '../progress.js';
import { loadForCli } from '../scenario-ref.js';

export interface CompareFlags {
  duration?: string;
  seed?: string;
  out?: string;
  json?: boolean;
  causes?: boolean;
  set?: string[];
}

export function compareCommand(ref: string, flags: CompareFlags, io: CliIO): number {
  const scenario = loadForCli(ref, flags.set ?? [], io);
  const durationUs = durationFlag('--duration', flags.duration);
  const seed = seedFlag(flags.seed);
  // Checked before running (issue 9): a bad --out fails now, not after the runs.
  const label = flags.out === undefined ? `reports/${scenario.name}` : `--out ${flags.out === '' ? "''" : flags.out}`;
  const dir = resolve(io.cwd, flags.out ?? `reports/${scenario.name}`);
  const problem = writingTo(label, () => outDirProblem(flags.out ?? dir, REPORT_FILES, io.cwd));
  if (problem !== undefined) throw new UsageError(`${label}: ${problem}`);
  const progress = progressFor(io, flags.json === true);
  const comparison = runComparison(scenario, {
    modes: flags.causes ? modesWithCauses() : STOCK_AND_FIXED,
    durationUs,
    seed,
    onProgress: progress ? (label, us, total) => progress.update(label, us, total) : undefined,
  });
  progress?.done();
  const written = writingTo(label, () => {
    try {
      return writeReport(dir, comparison);
    } catch (error) {
      // Foreign files that appeared while the simulation ran: still refused.
      if (error instanceof OutPathError) throw new UsageError(`${label}: ${error.message}`);
      throw error;
    }
  });
  if (flags.json) {
    io.stdout(summaryJson(comparison));
  } else {
    io.stdout(renderCompareTable(comparison, makeChalk(io.stdoutIsTTY, io.env)));
    const html = written.find((f) => f.endsWith('report.html')) as string;
    const show = (path: string) => (relative(io.cwd, path).startsWith('..') ? path : relative(io.cwd, path) || '.');
    io.stdout(`report written to ${show(dir)}/ (open ${show(html)})\n`);
  }
  return EXIT_OK;
}
