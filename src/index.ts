// bcsim's library API: everything the CLI does is available from here.
export * as engine from './engine/index.js';
export * as codec from './codec/index.js';
export * as capture from './capture/index.js';
export { VERSION } from './version.js';

export { loadScenario, parseScenario, listBuiltins, builtinNames } from './scenario/load.js';
export { ScenarioError } from './scenario/errors.js';
export type { Scenario, SwitchOverrides, Expectations } from './scenario/scenario.js';

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
  KEEPALIVE_SENDERS,
  IDLE_COUNTS,
  GATE_OPENERS,
  GATE_SCOPES,
  MESSAGE_LIFETIMES,
  DUPLICATE_ACK_TIMERS,
  WRAP_RECEIVE,
  RECEIVE_TIMINGS,
  BOOT_PAYLOADS,
  READINGS_BEFORE_ISSUE_10,
  CALIBRATED_READINGS,
} from './transport/switches.js';
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
} from './transport/switches.js';
export { connectionEnded } from './transport/lifecycle.js';
export type { ConnectionState } from './transport/lifecycle.js';

export { runScenario, switchesFor } from './session/run.js';
export type { RunOptions, RunResult } from './session/run.js';
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
} from './session/summary.js';
export { effectiveSettings } from './session/settings.js';
export type { EffectiveSettings } from './session/settings.js';
export type { SessionObserver, ConnectionView } from './session/observer.js';
export type { PeerReadout } from './transport/totals.js';

export { MetricsRecorder, METRICS, seriesTrends } from './metrics/recorder.js';
export { runComparison, modesWithCauses, STOCK_AND_FIXED } from './report/compare.js';
export type { Comparison, ModeSpec } from './report/compare.js';
export { writeReport, REPORT_FILES } from './report/write.js';

export { traceScenario } from './trace/run.js';
export { TraceCollector } from './trace/collector.js';
export type { TraceEvent } from './trace/events.js';
export { formatEvent, eventToJson } from './trace/format.js';
export { parseFilter, matches as traceFilterMatches } from './trace/filter.js';

export { reproduceFragmentAck } from './reproduce/fragment-ack.js';
export { reproduceAckOutbox, scenarioSource } from './reproduce/ack-outbox.js';
export type { AckOutboxReproduction, ReadingResult } from './reproduce/ack-outbox.js';
export { READINGS, STOCK_READING } from './reproduce/readings.js';
export type { Reading } from './reproduce/readings.js';
export { checkScenario } from './check/check.js';
export { runTwice, compareRuns } from './check/determinism.js';

export { runCli } from './cli/program.js';
export type { CliIO } from './cli/io.js';
export * as live from './live/index.js';
export * as sweep from './sweep/index.js';
export * as swarm from './swarm/index.js';
export * as shrinking from './shrink/index.js';
