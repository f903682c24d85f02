// bcsim's library API: everything the CLI does is available from here.
export * as engine from './engine/index.js';
export * as codec from './codec/index.js';
export * as pcap from './pcap/index.js';
export * as capture from './capture/index.js';
export { VERSION } from './version.js';

export { loadScenario, parseScenario, listBuiltins, builtinNames } from './scenario/index.js';
export { ScenarioError } from './scenario/index.js';
export type { Scenario, SwitchOverrides, Expectations } from './scenario/index.js';

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
} from './transport/index.js';
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
} from './transport/index.js';
export { connectionEnded } from './transport/index.js';
export type { ConnectionState } from './transport/index.js';

export { runScenario, switchesFor } from './session/index.js';
export type { RunOptions, RunResult } from './session/index.js';
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
} from './session/index.js';
export { effectiveSettings } from './session/index.js';
export type { EffectiveSettings } from './session/index.js';
export type { SessionObserver, ConnectionView, PeerView } from './session/index.js';
export type { PeerReadout } from './transport/index.js';
export { COUNTER_SCHEMA } from './transport/index.js';
export type { CounterRow, PeerCounters, PeerGauges } from './transport/index.js';

export { MetricsRecorder, METRICS, seriesTrends } from './metrics/index.js';
export { runComparison, modesWithCauses, STOCK_AND_FIXED } from './report/index.js';
export type { Comparison, ModeSpec } from './report/index.js';
export { writeReport, REPORT_FILES } from './report/index.js';

export { traceScenario } from './trace/index.js';
export { TraceCollector } from './trace/index.js';
export type { TraceEvent } from './trace/index.js';
export { formatEvent, eventToJson } from './trace/index.js';
export { parseFilter, matches as traceFilterMatches } from './trace/index.js';

export { reproduceFragmentAck } from './reproduce/index.js';
export { reproduceAckOutbox, scenarioSource } from './reproduce/index.js';
export type { AckOutboxReproduction, ReadingResult } from './reproduce/index.js';
export { READINGS, STOCK_READING } from './reproduce/index.js';
export type { Reading } from './reproduce/index.js';
export { checkScenario } from './check/index.js';
export { runTwice, compareRuns } from './check/index.js';

export { runCli } from './cli/index.js';
export type { CliIO } from './cli/index.js';
export * as live from './live/index.js';
export * as sweep from './sweep/index.js';
export * as swarm from './swarm/index.js';
export * as shrinking from './shrink/index.js';

// The R-Type ACK scheme, a peer of the BC transport: the model (wire,
// switches, server, client), its runs (runRtype, RTYPE_DEATHS, rtypeSymptoms), the
// scheme scenarios (rtype-deaths, schemes-side-by-side) and the defect table.
export * as rtype from './rtype/index.js';
export * as rtypeSession from './rtype-session/index.js';
export * as schemes from './schemes/index.js';
export { reproduceRtype } from './reproduce/index.js';
export type { RtypeReproduction, RtypeReproductionRow } from './reproduce/index.js';
export { writeRtypeReport, writeSchemesReport, SCHEME_REPORT_FILES } from './report/index.js';
