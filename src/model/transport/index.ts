// The BC transport's public surface: what the session, the tools above it and
// the library use. Everything else in this folder (queues, the ACK-outbox, the
// send cycle, the receiver's buffers) is internal to the transport.
export type { Role } from './roles.js';
export { SERVER_IDENTITY, clientIdentity, disconnectPayload, keepalivePayload } from './identity.js';
export {
  PRESETS,
  PRESET_NAMES,
  PLANTED_BUGS,
  FRAGMENT_ACK_CAUSES,
  CLOSE_POLICIES,
  ON_GIVE_UP,
  MAX_SEND_WINDOW,
  DEFAULT_PARAMS,
  STOCK_RETRANSMIT,
  resolveSwitches,
  KEEPALIVE_MESSAGES,
  KEEPALIVE_PATHS,
  KEEPALIVE_SENDERS,
  IDLE_COUNTS,
  ACK_CARRIAGES,
  CONNECT_ACKS,
  GATE_OPENERS,
  GATE_SCOPES,
  MESSAGE_LIFETIMES,
  DUPLICATE_ACK_TIMERS,
  WRAP_RECEIVE,
  RECEIVE_TIMINGS,
  BOOT_PAYLOADS,
  QUEUED_RELIABLE_READINGS,
  CALIBRATED_READINGS,
} from './switches.js';
export { SWITCHES } from './switch-declarations.js';
export type { SwitchDeclaration, SwitchGroup, SwitchValue } from './switch-declarations.js';
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
  PlantedBug,
} from './switches.js';
export { ineffectiveSettings } from './switch-effects.js';
export type { PeerCounters } from './counters.js';
export type { IntervalPeakName } from './interval-peaks.js';
export { COUNTER_SCHEMA, counterRow, peakCounter, zeroGauges } from './counter-schema.js';
export type { ChartedName, CounterRow, CountName, FigureName, GaugeName, PeakRateName } from './counter-schema.js';
export { PeerTotal } from './totals.js';
export type { PeerReadout } from './totals.js';
export { connectionEnded } from './lifecycle.js';
export type { ConnectionState } from './lifecycle.js';
export { endCauseText, messageRefText } from './end-cause.js';
export type { EndCause, MessageRef } from './end-cause.js';
export type { TransportHooks } from './hooks.js';
export type { OutgoingMessage } from './outgoing.js';
export { SendNote } from './datagram-builder.js';
export { fragmentCount, fragmentSlice } from './send-helper.js';
export { CORRUPT_UID } from './receive-channel.js';
export type { Delivery } from './receive-channel.js';
export { maxMessageAgeUs } from './retransmit-queue.js';
export { retransmitIntervalUs } from './backoff.js';
export type { AckOutcome } from './retransmit-queue.js';
export { PeerTransport } from './peer.js';
/** The peer's levels, named by the counter schema (counter-schema.ts). */
export type { PeerGauges } from './counters.js';
export { ServerHost } from './server-host.js';
export { UpdateLoop } from './update-loop.js';
export { SWITCH_NAMES, SWITCH_PARAMS, switchHelpLines, withSwitchTable } from './switch-text.js';
