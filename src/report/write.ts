// Writes the four report files of a comparison into one folder, each atomically.
import { reportHtml } from './html.js';
import { reportMarkdown, summaryJson, timeseriesCsv } from './documents.js';
import type { Comparison } from './compare.js';
import { sweepTemporaries, writeFileAtomic } from './atomic-write.js';

export const REPORT_FILES = ['summary.json', 'timeseries.csv', 'report.md', 'report.html'] as const;

/** Renders everything first, then writes: a rendering error leaves the folder untouched. */
export function writeReport(dir: string, comparison: Comparison): string[] {
  const contents: Record<(typeof REPORT_FILES)[number], string> = {
    'summary.json': summaryJson(comparison),
    'timeseries.csv': timeseriesCsv(comparison),
    'report.md': reportMarkdown(comparison),
    'report.html': reportHtml(comparison),
  };
  sweepTemporaries(dir);
  return REPORT_FILES.map((name) => writeFileAtomic(dir, name, contents[name]));
}
