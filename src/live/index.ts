// Live mode (issue 14): bcsim on real UDP, next to a real BC program.
export { WallClock, LatenessRing, monotonicMicros } from './wall-clock.js';
export type { LatenessFigures, WallSource } from './wall-clock.js';
export { parseHostPort, formatHostPort, isLoopback, bindUdp } from './endpoint.js';
export type { HostPort } from './endpoint.js';
export { WireLog } from './wire-log.js';
export type { WireRecord, WireSide } from './wire-log.js';
export { LivePeer } from './peer/live-peer.js';
export type { LivePeerOptions, StopReason } from './peer/live-peer.js';
export { summarizeLive, analyzeWire, LIVE_SUMMARY_SCHEMA } from './peer/live-summary.js';
export type { LiveSummary } from './peer/live-summary.js';
export { renderLiveSummary } from './peer/live-report.js';
export { joinResult } from './peer/join-check.js';
export { noAnswerSentence } from './peer/no-answer.js';
export { runProxy } from './proxy/run.js';
export type { ProxyConfig, ProxyHooks } from './proxy/run.js';
export { renderSummary } from './proxy/summary.js';
export type { ProxySummary } from './proxy/summary.js';
export * from './conformance/index.js';
