// A multi-client run with every application send, reliable delivery and datagram recorded,
// shared by the multi-client-*.test.ts files.
import { TYPE_GAME, decodeDatagram } from '../../src/core/codec/index.js';
import type { DataMessage, DataType, Located } from '../../src/core/codec/index.js';
import { parseScenario } from '../../src/model/scenario/load.js';
import type { SwitchOverrides } from '../../src/model/scenario/scenario.js';
import type { SessionObserver } from '../../src/model/session/observer.js';
import { switchesFor } from '../../src/model/session/run.js';
import { Session } from '../../src/model/session/session.js';
import { summarizeConnections } from '../../src/model/session/summarize-connections.js';
import { MEASURED_MIX } from '../../src/model/traffic/mix.js';
import type { Delivery } from '../../src/model/transport/receive-channel.js';
import type { Role } from '../../src/model/transport/roles.js';
import type { PresetName } from '../../src/model/transport/switches.js';

/** One application message handed to a transport (Session.sendApp). */
export interface SendRecord {
  uid: number;
  from: Role;
  client: number;
  type: number;
  payload: Uint8Array;
  reliable: boolean;
  atUs: number;
  /** The uid of the player message whose delivery at the server this send relays; null if not a relay. */
  relayOf: number | null;
}

/** One reliable delivery to the game layer (the hook Session calls traffic.onDelivered from). */
interface DeliveryRecord {
  to: Role;
  client: number;
  uid: number;
  type: number;
  low: boolean;
  payload: Uint8Array;
  atUs: number;
}

/** One datagram on the wire, its bytes copied (the transport reuses its send buffers). */
export interface WireRecord {
  timeUs: number;
  from: Role;
  client: number;
  bytes: Uint8Array;
  messages: readonly Located[];
}

export interface Recorded {
  session: Session;
  summary: ReturnType<typeof summarizeConnections> & {
    delivery: ReturnType<Session['deliveryStats']>;
    traceHash: string;
  };
  sends: SendRecord[];
  deliveries: DeliveryRecord[];
  wire: WireRecord[];
  states: Array<{ timeUs: number; role: Role; state: string; client: number }>;
}

export function scenario(json: object) {
  return parseScenario(JSON.stringify(json), 'test');
}

/**
 * Runs `json` like runScenario does, but on a Session built here so that its
 * sends and its deliveries can be wrapped and recorded. Wrapping only reads:
 * the wrapped functions are called with the same arguments, in the same order.
 */
export function runRecorded(
  json: object,
  options: { preset: PresetName; switches?: SwitchOverrides; wire?: boolean; seed?: number },
): Recorded {
  const sc = scenario(json);
  const sends: SendRecord[] = [];
  const deliveries: DeliveryRecord[] = [];
  const wire: WireRecord[] = [];
  const states: Recorded['states'] = [];
  const record = (timeUs: number, from: Role, client: number, original: Uint8Array) => {
    const bytes = original.slice();
    const decoded = decodeDatagram(bytes);
    if (!decoded.ok) throw new Error(`malformed datagram on the wire: ${decoded.error.reason}`);
    wire.push({ timeUs, from, client, bytes, messages: decoded.datagram.messages });
  };
  const observer: SessionObserver = {
    datagramSent: options.wire
      ? (timeUs, from, bytes, _uids, _notes, client) => record(timeUs, from, client, bytes)
      : undefined,
    stateChanged: (timeUs, role, state, client) => states.push({ timeUs, role, state, client }),
  };
  const session = new Session(sc, switchesFor(sc, options.preset, options.switches), options.seed ?? sc.seed, observer);
  let relayContext: number | null = null;
  const sendApp = session.sendApp.bind(session);
  session.sendApp = (
    from: Role,
    client: number,
    type: DataType,
    payload: Uint8Array,
    reliable: boolean,
    ordered: boolean,
  ): number => {
    const uid = sendApp(from, client, type, payload, reliable, ordered);
    sends.push({
      uid,
      from,
      client,
      type,
      payload: payload.slice(),
      reliable,
      atUs: session.sim.now,
      relayOf: from === 'server' ? relayContext : null,
    });
    return uid;
  };
  const onDelivered = session.traffic.onDelivered.bind(session.traffic);
  session.traffic.onDelivered = (to: Role, client: number, uid: number, delivery: Delivery): void => {
    deliveries.push({
      to,
      client,
      uid,
      type: delivery.type,
      low: delivery.low,
      payload: delivery.payload.slice(),
      atUs: session.sim.now,
    });
    const outer = relayContext;
    relayContext = to === 'server' ? uid : null;
    try {
      onDelivered(to, client, uid, delivery);
    } finally {
      relayContext = outer;
    }
  };
  session.run(sc.durationUs);
  const summary = {
    ...summarizeConnections(session),
    delivery: session.deliveryStats(),
    traceHash: session.hasher.digest(),
  };
  return { session, summary, sends, deliveries, wire, states };
}

export const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const EVENT_OPCODES = new Set(MEASURED_MIX.map((kind) => kind.opcode));
/** A reliable game event (not a join message, not a StateUpdate). */
export const isEvent = (m: { type: number; payload: Uint8Array }) =>
  m.type === TYPE_GAME && m.payload.length > 0 && EVENT_OPCODES.has(m.payload[0]);

export function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

export function sortedEntries(map: Map<string, number>): Array<[string, number]> {
  return [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

export function dataMessages(w: WireRecord, type: number): Array<Located<DataMessage>> {
  return w.messages.filter((m): m is Located<DataMessage> => m.type === type);
}

/** Peer gauges: a connection's final value is zero once it has ended. */
export const GAUGES = ['ackOutbox', 'ackOutboxDeadZone', 'retransmitQueue', 'firstSendQueue', 'memoryBytes'] as const;
