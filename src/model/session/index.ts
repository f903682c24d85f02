// The session's public surface: running a scenario, what observers see, the
// summary and its parts, and the effective settings of a run.
export type { SessionObserver, ConnectionView, PeerView } from './observer.js';
export { fanOut } from './fan-out.js';
export { TraceHasher, sha256Hex } from './trace-hash.js';
export type { AnomalyKind, DeliveryAnomalies, DeliveryAnomaly, LatencySummary } from './ledger.js';
export { connectionKey, figureOf, round3, sumLinks, summarizeLink, summarizePeer } from './summary.js';
export type { FigureRef } from './summary.js';
export type {
  Summary,
  PeerSummary,
  ServerSummary,
  ConnectionSummary,
  ClientLinksSummary,
  SessionSummary,
  LinkSummary,
} from './summary.js';
export { changedSwitchList, effectiveSettings, scenarioRef, shellQuote } from './settings.js';
export type { EffectiveSettings } from './settings.js';
export type { Connection } from './session.js';
export { RunAborted, modeLabel, runScenario, runScenarioYielding, switchesFor } from './run.js';
export type { RunOptions, RunResult } from './run.js';
