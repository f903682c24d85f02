// bcsim's library API: everything the CLI does is available from here.
export * as engine from './core/engine/index.js';
export * as codec from './core/codec/index.js';
export * as pcap from './core/pcap/index.js';
export * as capture from './analysis/capture/index.js';
export { VERSION } from './version.js';

export { loadScenario, parseScenario, listBuiltins, builtinNames } from './model/scenario/index.js';
export { ScenarioError } from './model/scenario/index.js';
export type { Scenario, SwitchOverrides, Expectations } from './model/scenario/index.js';

export {
  PRESETS,
  PRESET_NAMES,
  FRAGMENT_ACK_CAUSES,
  CLOSE_POLICIES,
  ON_GIVE_UP,
  MAX_SEND_WINDOW,
  DEFAULT_PARAMS,
  resolveSwitches,
  KEEPALIVE_MESSAGES,
  KEEPALIVE_PATHS,
  ACK_CARRIAGES,
  CONNECT_ACKS,
  KEEPALIVE_SENDERS,
  IDLE_COUNTS,
  GATE_OPENERS,
  GATE_SCOPES,
  MESSAGE_LIFETIMES,
  DUPLICATE_ACK_TIMERS,
  WRAP_RECEIVE,
  RECEIVE_TIMINGS,
  BOOT_PAYLOADS,
  QUEUED_RELIABLE_READINGS,
  CALIBRATED_READINGS,
} from './model/transport/index.js';
export type {
  TransportSwitches,
  TransportParams,
  PresetName,
  FragmentAckCause,
  RetransmitPolicy,
  ClosePolicy,
  OnGiveUp,
  KeepalivePolicy,
  SwitchPatch,
  GateOpener,
  GateScope,
  MessageLifetime,
  DuplicateAckTimer,
  WrapReceive,
  ReceiveTiming,
} from './model/transport/index.js';
export { connectionEnded } from './model/transport/index.js';
export type { ConnectionState } from './model/transport/index.js';

export { runScenario, switchesFor } from './model/session/index.js';
export type { RunOptions, RunResult } from './model/session/index.js';
export type {
  Summary,
  PeerSummary,
  ServerSummary,
  ConnectionSummary,
  ClientLinksSummary,
  SessionSummary,
  LinkSummary,
  DeliveryAnomaly,
  DeliveryAnomalies,
  LatencySummary,
  AnomalyKind,
} from './model/session/index.js';
export { effectiveSettings } from './model/session/index.js';
export type { EffectiveSettings } from './model/session/index.js';
export type { SessionObserver, ConnectionView, PeerView } from './model/session/index.js';
export type { PeerReadout } from './model/transport/index.js';
export { COUNTER_SCHEMA } from './model/transport/index.js';
export type { CounterRow, PeerCounters, PeerGauges } from './model/transport/index.js';

export { MetricsRecorder, METRICS, seriesTrends } from './model/metrics/index.js';
export { runComparison, modesWithCauses, STOCK_AND_FIXED } from './analysis/report/index.js';
export type { Comparison, ModeSpec } from './analysis/report/index.js';
export { writeReport, REPORT_FILES } from './analysis/report/index.js';

export { traceScenario } from './model/trace/index.js';
export { TraceCollector } from './model/trace/index.js';
export type { TraceEvent } from './model/trace/index.js';
export { formatEvent, eventToJson } from './model/trace/index.js';
export { parseFilter, matches as traceFilterMatches } from './model/trace/index.js';

export { reproduceFragmentAck } from './analysis/reproduce/index.js';
export { reproduceAckOutbox, scenarioSource } from './analysis/reproduce/index.js';
export type { AckOutboxReproduction, ReadingResult } from './analysis/reproduce/index.js';
export { READINGS, STOCK_READING } from './analysis/reproduce/index.js';
export type { Reading } from './analysis/reproduce/index.js';
export { checkScenario } from './analysis/check/index.js';
export { runTwice, compareRuns } from './analysis/check/index.js';

export { runCli } from './cli/index.js';
export type { CliIO } from './cli/index.js';
export * as live from './live/index.js';
export * as sweep from './tools/sweep/index.js';
export * as swarm from './tools/swarm/index.js';
export * as shrinking from './tools/shrink/index.js';

// The R-Type ACK scheme, a peer of the BC transport: the model (wire,
// switches, server, client), its runs (runRtype, RTYPE_DEATHS, rtypeSymptoms), the
// scheme scenarios (rtype-deaths, schemes-side-by-side) and the defect table.
export * as rtype from './rtype/transport/index.js';
export * as rtypeSession from './rtype/session/index.js';
export * as schemes from './rtype/schemes/index.js';
export { reproduceRtype } from './analysis/reproduce/index.js';
export type { RtypeReproduction, RtypeReproductionRow } from './analysis/reproduce/index.js';
export { writeRtypeReport, writeSchemesReport, SCHEME_REPORT_FILES } from './analysis/report/index.js';
