// Reports' public surface: atomic writes and output paths, formatting, the tables,
// the comparison and the report files; the scheme reports (rtype-deaths,
// schemes-side-by-side) and the R-Type defect table (issue 16).
export { TEMP_PREFIX, makeDirs, sweepTemporaries, temporaryName, writeFileAtomic, writeFilesTogether } from './atomic-write.js';
export { OutPathError, outDirProblem, outFileProblem } from './out-dir.js';
export { escapeXml, fmt } from './format.js';
export { junitDocument, writeJunitDocument, xmlText } from './junit.js';
export type { JunitCase, JunitStatus, JunitSuite } from './junit.js';
export { makeChalk } from './style.js';
export { niceTicks } from './svg-chart.js';
export { COMPACT, renderSummaryTable } from './summary-table.js';
export { settingsLines } from './settings.js';
export { verdicts } from './verdict.js';
export { renderAckOutboxReproduction, renderFragmentAckReproduction } from './reproduce-table.js';
export { STOCK_AND_FIXED, modesWithCauses, runColumn, runComparison } from './compare.js';
export type { ColumnSettings, ComparedRun, CompareOptions, Comparison, ModeSpec } from './compare.js';
export { renderCompareTable } from './compare-table.js';
export { summaryJson } from './documents.js';
export { REPORT_FILES, writeReport } from './write.js';
export { renderRtypeReproduction } from './rtype-reproduce-table.js';
export { RTYPE_COMPARE_SCHEMA, SCHEME_REPORT_FILES, renderRtypeCompare, rtypeReportHtml, rtypeReportMarkdown, rtypeSummaryJson, rtypeTimeseriesCsv, writeRtypeReport } from './rtype-files.js';
export { RTYPE_ROW_GROUPS, rtypeFindings } from './rtype-rows.js';
export { SCHEMES_COMPARE_SCHEMA, SCHEME_ROW_GROUPS, renderSchemesCompare, schemesFindings, schemesReportHtml, schemesReportMarkdown, schemesSummaryJson, schemesTimeseriesCsv, writeSchemesReport } from './schemes-files.js';
