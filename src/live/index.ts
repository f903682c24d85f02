// Live mode: bcsim on real UDP, next to a real BC program.
export { WallClock, LatenessRing, monotonicMicros } from './wall-clock.js';
export type { LatenessFigures, WallSource } from './wall-clock.js';
export { parseHostPort, formatHostPort, isLoopback, bindUdp } from './endpoint.js';
export type { HostPort } from './endpoint.js';
export { BYTES_PER_MIB, DEFAULT_WIRE_LOG_MIB, MAX_WIRE_LOG_MIB, WireLog } from './wire-log.js';
export type { WireRecord, WireSide } from './wire-log.js';
export { LivePeer } from './peer/live-peer.js';
export { CHECKSUM_CHECKS, ChecksumCheck } from './peer/checksum-check.js';
export type { ChecksumChecks } from './peer/checksum-check.js';
export type { LivePeerOptions, StopReason } from './peer/live-peer.js';
export { summarizeLive, analyzeWire, judgedUntilUs, LIVE_SUMMARY_SCHEMA } from './peer/live-summary.js';
export type { LiveSummary } from './peer/live-summary.js';
export { renderLiveSummary } from './peer/live-report.js';
export { joinResult } from './peer/join-check.js';
export { clientVerdicts, renderClientVerdicts } from './peer/client-verdicts.js';
export type { ClientVerdict } from './peer/client-verdicts.js';
export { noAnswerSentence } from './peer/no-answer.js';
export { checksumRefusal } from './peer/checksum-refusal.js';
export type { ChecksumRefusal } from './peer/checksum-refusal.js';
export { runProxy } from './proxy/run.js';
export type { ProxyConfig, ProxyHooks } from './proxy/run.js';
export { renderSummary } from './proxy/summary.js';
export type { ProxySummary } from './proxy/summary.js';
export { STATUS_WORD, countStatuses, countsLine, verdictJunitCase, verdictJunitXml } from './verdict.js';
// A case's and a rule's status are the one verdict status (the older names stay for the library's users).
export type {
  JudgedItem,
  StatusCounts,
  VerdictStatus,
  VerdictStatus as CaseStatus,
  VerdictStatus as RuleStatus,
} from './verdict.js';
export * from './conformance/index.js';
export * from './conform/index.js';
export * from './soak/index.js';
