// Behaviour switches and numeric parameters of the BC transport model.
// A mode is plain data: `stock` and `fixed` are presets over the same switches,
// and every switch can be set on its own. Each switch is declared once, in
// switch-declarations.ts; its type and its default in each preset come from there.
import type { MillisIn } from '../../core/engine/index.js';
import { MAX_SEND_WINDOW, SWITCHES } from './switch-declarations.js';
import type { PresetName, SwitchDeclaration, SwitchGroup, SwitchValue } from './switch-declarations.js';

export { MAX_SEND_WINDOW };
export type { PresetName };

type Declared = typeof SWITCHES;

/** A complete switch set, as the transport reads it. */
export type TransportSwitches = { readonly [K in keyof Declared]: SwitchValue<Declared[K]> };

export type FragmentAckCause = TransportSwitches['fragmentAckCause'];
export type ClosePolicy = TransportSwitches['closePolicy'];
export type OnGiveUp = TransportSwitches['onGiveUp'];
export type RetransmitPolicy = TransportSwitches['retransmit'];
export type KeepalivePolicy = TransportSwitches['keepalive'];
export type KeepalivePath = KeepalivePolicy['path'];
export type IdleCounts = KeepalivePolicy['idleCounts'];
export type GateOpener = TransportSwitches['gateOpeners'][number];
export type GateScope = TransportSwitches['gateScope'];
export type MessageLifetime = TransportSwitches['messageLifetime'];
export type DuplicateAckTimer = TransportSwitches['duplicateAckTimer'];
export type WrapReceive = TransportSwitches['wrapReceive'];
export type ReceiveTiming = TransportSwitches['receiveTiming'];
export type PlantedBug = TransportSwitches['plantedBug'];

export const FRAGMENT_ACK_CAUSES: readonly FragmentAckCause[] = SWITCHES.fragmentAckCause.values;
export const CLOSE_POLICIES: readonly ClosePolicy[] = SWITCHES.closePolicy.values;
export const ON_GIVE_UP: readonly OnGiveUp[] = SWITCHES.onGiveUp.values;
export const KEEPALIVE_MESSAGES: readonly KeepalivePolicy['message'][] = SWITCHES.keepalive.fields.message.values;
export const KEEPALIVE_PATHS: readonly KeepalivePath[] = SWITCHES.keepalive.fields.path.values;
export const KEEPALIVE_SENDERS: readonly KeepalivePolicy['senders'][] = SWITCHES.keepalive.fields.senders.values;
export const IDLE_COUNTS: readonly IdleCounts[] = SWITCHES.keepalive.fields.idleCounts.values;
export const GATE_OPENERS: readonly GateOpener[] = SWITCHES.gateOpeners.values;
export const GATE_SCOPES: readonly GateScope[] = SWITCHES.gateScope.values;
export const MESSAGE_LIFETIMES: readonly MessageLifetime[] = SWITCHES.messageLifetime.values;
export const DUPLICATE_ACK_TIMERS: readonly DuplicateAckTimer[] = SWITCHES.duplicateAckTimer.values;
export const WRAP_RECEIVE: readonly WrapReceive[] = SWITCHES.wrapReceive.values;
export const RECEIVE_TIMINGS: readonly ReceiveTiming[] = SWITCHES.receiveTiming.values;
export const BOOT_PAYLOADS: readonly TransportSwitches['bootPayload'][] = SWITCHES.bootPayload.values;
export const ACK_CARRIAGES: readonly TransportSwitches['ackCarriage'][] = SWITCHES.ackCarriage.values;
export const CONNECT_ACKS: readonly TransportSwitches['connectAck'][] = SWITCHES.connectAck.values;

/**
 * The planted bugs, for testing the test harnesses: the swarm and `bcsim conform`
 * must catch each. Never part of a preset. What each does, and the transport hooks
 * it sets, is one table in planted-bugs.ts.
 */
export const PLANTED_BUGS: readonly PlantedBug[] = SWITCHES.plantedBug.values;

/** Each declared switch's default in one preset. */
function defaultsOf<F extends Record<string, SwitchDeclaration | SwitchGroup>>(
  declared: F,
  preset: PresetName,
): { readonly [K in keyof F]: SwitchValue<F[K]> } {
  const out: Record<string, unknown> = {};
  for (const [name, d] of Object.entries(declared))
    out[name] = d.kind === 'group' ? defaultsOf(d.fields, preset) : d[preset];
  // Built key by key from the declaration, so its type is the declaration's (TypeScript cannot follow the loop).
  return out as { readonly [K in keyof F]: SwitchValue<F[K]> };
}

export const PRESETS: Readonly<Record<PresetName, TransportSwitches>> = {
  stock: defaultsOf(SWITCHES, 'stock'),
  fixed: defaultsOf(SWITCHES, 'fixed'),
};
export const PRESET_NAMES: [PresetName, ...PresetName[]] = ['stock', 'fixed'];

export const STOCK_RETRANSMIT: RetransmitPolicy = PRESETS.stock.retransmit;

/** The switches that are open readings of the sources; both presets share them (docs/switches.md). */
type OpenReadings = Pick<
  TransportSwitches,
  | 'keepalive'
  | 'gateOpeners'
  | 'gateScope'
  | 'messageLifetime'
  | 'duplicateAckTimer'
  | 'wrapReceive'
  | 'receiveTiming'
  | 'bootPayload'
  | 'ackCarriage'
  | 'connectAck'
>;

/**
 * The reading `reproduce ack-outbox` ranks first ("calibrated"; docs/calibration.md),
 * which both presets declare: unACKed messages dropped once older
 * than the peer timeout; the idle keepalive in its captured form, reliable, through
 * the ordinary send path, its echo written after pass 2; the Connect ACKed one
 * update after the connect reply.
 */
export const CALIBRATED_READINGS: OpenReadings = {
  keepalive: PRESETS.stock.keepalive,
  gateOpeners: PRESETS.stock.gateOpeners,
  gateScope: PRESETS.stock.gateScope,
  messageLifetime: PRESETS.stock.messageLifetime,
  duplicateAckTimer: PRESETS.stock.duplicateAckTimer,
  wrapReceive: PRESETS.stock.wrapReceive,
  receiveTiming: PRESETS.stock.receiveTiming,
  bootPayload: PRESETS.stock.bootPayload,
  ackCarriage: PRESETS.stock.ackCarriage,
  connectAck: PRESETS.stock.connectAck,
};

/**
 * The open readings of `reproduce ack-outbox` row "queued-reliable": the keepalive
 * reliable, queued and echoed through the queues, messages kept all session, the
 * Connect never ACKed. The calibrated readings differ only where the captures say so.
 */
export const QUEUED_RELIABLE_READINGS: OpenReadings = {
  ...CALIBRATED_READINGS,
  keepalive: { ...CALIBRATED_READINGS.keepalive, echoPath: 'first-send-queue' },
  messageLifetime: 'session',
  connectAck: 'none',
};

/** Numeric parameters shared by both presets (docs/sources.md 6–13, 15). */
export interface TransportParams {
  /** This peer's network update period (docs/sources.md 13, 17); scenarios set it per role and phase. */
  readonly tickMs: MillisIn;
  /** Datagrams built per update per remote peer (docs/sources.md 8). */
  readonly datagramsPerUpdate: number;
  /** Per-entry ACK resend timer; 0 = every update (docs/sources.md 9). */
  readonly ackResendIntervalMs: MillisIn;
  /** Two-pass design: pass 1 sends entries below this count (ack-outbox-deadlock.md §1). */
  readonly ackPassOneLimit: number;
  /** Two-pass design: pass 2 frees entries when their count reaches this. */
  readonly ackFreeAtCount: number;
  /** Payload bytes per fragment; larger 0x32 payloads are fragmented (docs/sources.md 6). */
  readonly fragmentChunkBytes: number;
  /** Send a keepalive after this long without sending (docs/sources.md 12). */
  readonly keepaliveIdleMs: MillisIn;
  /** Drop the peer after this long without receiving (docs/sources.md 12). */
  readonly peerTimeoutMs: MillisIn;
  /** Drop a retransmit entry this long after its first send; null = never. messageLifetime peer-timeout adds peerTimeoutMs. */
  readonly maxMessageAgeMs: MillisIn | null;
  /**
   * Stock close (closePolicy immediate): how long a peer keeps a remote whose
   * Disconnect it received, re-sending due ACKs with the gate open. docs/sources.md 28:
   * the ACK of the Disconnect went out 7 times over ~4.0 s and the peer was gone
   * ~4.16 s after (21's "re-sent 7 times" would be 8 sends, 5 s); 0 = close after the next update.
   */
  readonly disconnectedPeerLingerMs: MillisIn;
  /** Explicit bounds; exceeding one is counted, never silent (TIGER_STYLE limits). */
  readonly firstSendQueueLimit: number;
  readonly retransmitQueueLimit: number;
  readonly ackOutboxLimit: number;
}

export const DEFAULT_PARAMS: TransportParams = {
  tickMs: 95,
  datagramsPerUpdate: 1,
  ackResendIntervalMs: 667,
  ackPassOneLimit: 3,
  ackFreeAtCount: 9,
  fragmentChunkBytes: 405,
  keepaliveIdleMs: 5000,
  peerTimeoutMs: 45000,
  maxMessageAgeMs: null,
  disconnectedPeerLingerMs: 4160,
  firstSendQueueLimit: 65536,
  retransmitQueueLimit: 65536,
  ackOutboxLimit: 1 << 17,
};

/** Switches set over a preset: any of them, and a group (keepalive, retransmit) field by field. */
export type SwitchPatch = {
  -readonly [K in keyof TransportSwitches]?: TransportSwitches[K] extends readonly unknown[]
    ? TransportSwitches[K]
    : TransportSwitches[K] extends object
      ? Partial<TransportSwitches[K]>
      : TransportSwitches[K];
};

/** Resolves a preset plus overrides into a complete switch set. */
export function resolveSwitches(preset: PresetName, overrides: SwitchPatch = {}): TransportSwitches {
  const base: TransportSwitches = PRESETS[preset];
  return {
    ...base,
    ...overrides,
    retransmit: { ...base.retransmit, ...(overrides.retransmit ?? {}) },
    keepalive: { ...base.keepalive, ...(overrides.keepalive ?? {}) },
  };
}
