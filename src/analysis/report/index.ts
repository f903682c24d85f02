// Reports' public surface: the tables, the comparison and the report files; the
// scheme reports (rtype-deaths, schemes-side-by-side) and the R-Type defect table.
// The output plumbing they write with is core/output.
export { chartFigure } from './scheme-page.js';
export { schemeHtml, schemeMarkdown, schemeTerminal } from './scheme-document.js';
export type { SchemeDocument } from './scheme-document.js';
export type { RowGroup } from './scheme-tables.js';
export { niceTicks } from './svg-chart.js';
export { renderSummaryTable } from './summary-table.js';
export { settingsLines } from './settings.js';
export { verdicts } from './verdict.js';
export { renderAckOutboxReproduction, renderFragmentAckReproduction } from './reproduce-table.js';
export { STOCK_AND_FIXED, comparisonOf, modesWithCauses, runColumn, runComparison } from './compare.js';
export { sensitivityModes } from './sensitivity.js';
export type { ColumnSettings, ComparedRun, CompareOptions, Comparison, ModeSpec } from './compare.js';
export { renderCompareTable } from './compare-table.js';
export { summaryJson } from './documents.js';
export { REPORT_FILES, writeReport } from './write.js';
export { renderRtypeReproduction } from './rtype-reproduce-table.js';
export { SCHEME_REPORT_FILES, renderRtypeCompare, rtypeSummaryJson, writeRtypeReport } from './rtype-files.js';
export {
  renderSchemesCompare,
  schemesReportHtml,
  schemesSummaryJson,
  schemesTimeseriesCsv,
  writeSchemesReport,
} from './schemes-files.js';
// The compare report's colour-blind-safe series colours, for the sweep page too.
export { PALETTE } from './chart-palette.js';
