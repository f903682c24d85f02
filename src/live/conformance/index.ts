// Conformance checks of a live peer's counterpart: each rule passes, fails or is not exercised.
export {
  DEFAULT_CONFORMANCE_RULES,
  KEY_REUSE_GAP_MS,
  MAX_RULES,
  RULE_CATALOGUE,
  RULE_KINDS,
  RULE_NOTES,
  ruleName,
  ruleTitle,
} from './rules.js';
export type {
  AckSendsMaxRule,
  AckWithinRule,
  ConformanceRule,
  FragmentAcksRule,
  NoRepeatedProcessingRule,
  RetransmitIntervalRule,
  RuleEntry,
  RuleKind,
  StopsAfterAckRule,
} from './rules.js';
export {
  ConformanceRulesError,
  MAX_RULES_FILE_BYTES,
  loadConformanceRules,
  parseConformanceRules,
  validateConformanceRules,
} from './load-rules.js';
export { MAX_CONNECTIONS, evaluateConformance, evaluateConformanceLog } from './evaluate.js';
export type { ConformanceEvaluation, ConformanceOptions, ConformanceResult, RuleResult } from './evaluate.js';
export { MAX_EVIDENCE, MAX_HEX_BYTES, MAX_TRACKED_KEYS } from './judge.js';
export type { Evidence } from './judge.js';
export { REQUEST_PAIRS } from './replies.js';
export type { RequestPair } from './replies.js';
export { TEXT_EVIDENCE_LINES, evidenceLines, renderConformanceText, ruleLine } from './report.js';
export { JUNIT_SUITE_NAME, conformanceJunitCase, conformanceJunitXml, writeConformanceJunit } from './junit.js';
export {
  SILENT_COUNTERPART_REASON,
  countVerdicts,
  countsText,
  notExercisedMessage,
  notExercisedReason,
  requireExercised,
  ruleStatus,
} from './verdict.js';
export type { ConformanceCounts } from './verdict.js';

// Names the peer command uses.
export { DEFAULT_CONFORMANCE_RULES as DEFAULT_RULES } from './rules.js';
export { loadConformanceRules as loadRulesFile } from './load-rules.js';
export { renderConformanceText as renderConformance } from './report.js';
