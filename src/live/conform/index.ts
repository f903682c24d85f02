// `bcsim conform`: live sessions against a real server, one targeted wire
// fault each, judged PASS, FAIL (with evidence) or NOT EXERCISED.
export {
  CONFORM_SCHEMA,
  ConformSetupError,
  DEFAULT_PARALLEL_SESSIONS,
  MAX_SESSIONS,
  prepareConform,
  reproCommand,
  runConform,
  selectCases,
} from './campaign.js';
export type { CaseResult, ConformHooks, ConformOptions, ConformReport, ConformRun } from './campaign.js';
export { DEFAULT_TIMINGS, MIN_TIMEOUT_GRACE_MS, conformTimings } from './case-types.js';
export type { CaseEvidence, ConformCase, ConformTimings, Verdict } from './case-types.js';
export { CASE_IDS, CONFORM_CASES } from './cases/index.js';
export * from './catalogue.js';
export { CONFORM_SUITE, conformJunitXml, conformOutcome, renderConformText } from './report.js';
export type { ConformOutcome } from './report.js';
export { conformPcap } from './capture.js';
export type { CapturedSession } from './capture.js';
export { ConformClient } from './client.js';
export type { Departure, FaultKind } from './client.js';
