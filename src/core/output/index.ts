// Output plumbing with no BC knowledge, for every layer that writes: atomic writes and output
// paths, JUnit XML, terminal styling, tables that keep to a width, number formatting.
export {
  TEMP_PREFIX,
  makeDirs,
  sweepTemporaries,
  temporaryName,
  writeFileAtomic,
  writeFilesTogether,
} from './atomic-write.js';
export { OutPathError, outDirProblem, outFileProblem } from './out-dir.js';
export { writeFolderAtomic } from './atomic-folder.js';
export { bytesLabel, durationLabel, escapeXml, fmt, round4, textHtml } from './format.js';
export { junitDocument, writeJunitDocument } from './junit.js';
export type { JunitCase, JunitSuite } from './junit.js';
export { terminalStyle } from './style.js';
export type { TerminalStyle } from './style.js';
export { COMPACT, TEXT_WIDTH, columns, fittedTable, wrapItems, wrapLine } from './fit-table.js';
