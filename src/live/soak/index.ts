// `bcsim soak`: a long multi-client session against a real server, measured
// minute by minute from the wire, beside the stock and fixed models.
export { SILENCE_US, Soak } from './soak-session.js';
export type { Silence, SoakClient, SoakMeasured, SoakOptions, SoakStatus } from './soak-session.js';
export { modelColumns } from './soak-models.js';
export { soakPlan } from './soak-plan.js';
export type { SoakPlan } from './soak-plan.js';
export { SOAK_FIGURES, figureSeries, figureSummary } from './soak-figures.js';
export type { MinutePoint, SoakFigure } from './soak-figures.js';
export {
  AGREEMENT_SHARE,
  MEASURED_REACH_S,
  SOAK_FILES,
  SOAK_SCHEMA,
  renderSoak,
  soakFindings,
  soakSummaryJson,
  soakTimeseriesCsv,
  writeSoakReport,
} from './soak-report.js';
export type { SoakColumn, SoakReport } from './soak-report.js';
