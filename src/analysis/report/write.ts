// Writes the four report files of a comparison as one folder that is replaced
// whole: a reader or a killed run never sees a new summary.json beside
// an old report.html. How, and what a kill leaves: see atomic-folder.ts.
import { reportHtml } from './html.js';
import { reportMarkdown, summaryJson, timeseriesCsv } from './documents.js';
import type { Comparison } from './compare.js';
import { writeFolderAtomic } from '../../core/output/index.js';

export const REPORT_FILES = ['summary.json', 'timeseries.csv', 'report.md', 'report.html'] as const;

/**
 * Renders everything first, then writes: a rendering error leaves the folder
 * untouched. Throws OutPathError, touching nothing, if `dir` holds other files.
 */
export function writeReport(dir: string, comparison: Comparison): string[] {
  const contents: Record<(typeof REPORT_FILES)[number], string> = {
    'summary.json': summaryJson(comparison),
    'timeseries.csv': timeseriesCsv(comparison),
    'report.md': reportMarkdown(comparison),
    'report.html': reportHtml(comparison),
  };
  return writeFolderAtomic(dir, contents);
}
