// One dedicated server and N clients. Relays, per-client
// links and accounting, Boots on a timeout, slots and the Disconnect exchange,
// late joins, determinism and scenario validation.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ACK_FLAG_LOW_TYPE,
  PEER_ID_SERVER,
  PEER_ID_UNASSIGNED,
  TYPE_ACK,
  TYPE_BOOT,
  TYPE_CONNECT_ACK,
  TYPE_DISCONNECT,
  TYPE_GAME,
  decodeDatagram,
  isAck,
  isLowType,
} from '../../src/core/codec/index.js';
import type { AckMessage, DataMessage, DataType, Located } from '../../src/core/codec/index.js';
import { ScenarioError } from '../../src/model/scenario/errors.js';
import { parseScenario } from '../../src/model/scenario/load.js';
import type { SwitchOverrides } from '../../src/model/scenario/scenario.js';
import type { SessionObserver } from '../../src/model/session/observer.js';
import { runScenario, switchesFor } from '../../src/model/session/run.js';
import { Session } from '../../src/model/session/session.js';
import { summarizeConnections } from '../../src/model/session/summarize-connections.js';
import type { ConnectionSummary, LinkSummary, PeerSummary } from '../../src/model/session/summary.js';
import { MEASURED_MIX } from '../../src/model/traffic/mix.js';
import type { Delivery } from '../../src/model/transport/receive-channel.js';
import type { Role } from '../../src/model/transport/roles.js';
import type { PresetName } from '../../src/model/transport/switches.js';
import { cli } from '../support/cli.js';

// ---------------------------------------------------------------------------
// A run with every application send and every reliable delivery recorded.

/** One application message handed to a transport (Session.sendApp). */
interface SendRecord {
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
interface WireRecord {
  timeUs: number;
  from: Role;
  client: number;
  bytes: Uint8Array;
  messages: readonly Located[];
}

interface Recorded {
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

function scenario(json: object) {
  return parseScenario(JSON.stringify(json), 'test');
}

/**
 * Runs `json` like runScenario does, but on a Session built here so that its
 * sends and its deliveries can be wrapped and recorded. Wrapping only reads:
 * the wrapped functions are called with the same arguments, in the same order.
 */
function runRecorded(
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

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const EVENT_OPCODES = new Set(MEASURED_MIX.map((kind) => kind.opcode));
/** A reliable game event (not a join message, not a StateUpdate). */
const isEvent = (m: { type: number; payload: Uint8Array }) =>
  m.type === TYPE_GAME && m.payload.length > 0 && EVENT_OPCODES.has(m.payload[0]);

function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

function sortedEntries(map: Map<string, number>): Array<[string, number]> {
  return [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function dataMessages(w: WireRecord, type: number): Array<Located<DataMessage>> {
  return w.messages.filter((m): m is Located<DataMessage> => m.type === type);
}

// ---------------------------------------------------------------------------
// 1–3: three clients in fixed mode, 20 % loss on every link, heavy combat.

const LOSSY_THREE = {
  name: 'three-lossy',
  clients: 3,
  duration: '250s',
  link: { both: { loss: 0.2 } },
  traffic: {
    // Three minutes of combat, then quiet long enough for every retransmit to land.
    phases: [
      'join',
      { kind: 'combat', duration: '180s', reliablePerSecond: 'heavy', stateUpdatesPerSecond: 10 },
      { kind: 'quiet' },
    ],
  },
};

describe('three clients, fixed mode, 20 % loss on every link', () => {
  let run: Recorded;
  // Three minutes of three players' combat, every datagram recorded: generous for a busy machine (the default hook timeout is 10 s).
  beforeAll(() => {
    run = runRecorded(LOSSY_THREE, { preset: 'fixed' });
  }, 60_000);

  it('every connection stayed open, and the ledger counts no loss, duplicate or reordering', () => {
    const s = run.summary;
    expect(s.session.clients).toBe(3);
    expect(s.session.connected).toBe(3);
    expect(s.session.bootsSent).toBe(0);
    for (const c of run.session.connections) {
      expect([c.client, c.clientPeer.state, c.serverPeer.state]).toEqual([c.client, 'open', 'open']);
    }
    const d = s.delivery;
    expect(d.reliableSent).toBeGreaterThan(30_000);
    expect([
      d.reliableLost,
      d.reliableSwallowed,
      d.duplicateDeliveries,
      d.outOfOrderDeliveries,
      d.corruptDeliveries,
      d.reliableRefused,
    ]).toEqual([0, 0, 0, 0, 0, 0]);
    // The quiet tail drained every game message; only an idle keepalive (reliable since
    // docs/sources.md 26) sent in its last seconds may still be on its way.
    expect(d.reliableInFlight).toBeLessThanOrEqual(6);
    expect(d.reliableDelivered + d.reliableInFlight).toBe(d.reliableSent);
    const delivered = new Set(run.deliveries.map((x) => x.uid));
    expect(run.sends.filter((m) => m.reliable && !delivered.has(m.uid)).map((m) => m.uid)).toEqual([]);
    // The loss fired and was repaired.
    expect(s.peers.client.retransmits).toBeGreaterThan(0);
    expect(s.peers.server.retransmits).toBeGreaterThan(0);
  });

  it("every client's reliable messages reach the server exactly once and in order", () => {
    const sent = run.sends.filter((m) => m.from === 'client' && m.reliable);
    expect(sent.length).toBeGreaterThan(5_000);
    const atServer = run.deliveries.filter((d) => d.to === 'server');
    const times = countBy(atServer, (d) => String(d.uid));
    for (const k of [1, 2, 3]) {
      const mine = sent.filter((m) => m.client === k);
      expect(mine.length, `client ${k} sent`).toBeGreaterThan(1_000);
      const missing = mine.filter((m) => times.get(String(m.uid)) !== 1);
      expect(
        missing.map((m) => m.uid),
        `client ${k}: not delivered exactly once`,
      ).toEqual([]);
    }
    // In order: on each lane (connection, direction, seq category) uids were
    // registered in send order, so deliveries must see them strictly increasing.
    for (const to of ['server', 'client'] as const) {
      for (const k of [1, 2, 3]) {
        for (const low of [false, true]) {
          const lane = run.deliveries.filter((d) => d.to === to && d.client === k && d.low === low).map((d) => d.uid);
          const backwards = lane.filter((uid, i) => i > 0 && uid <= lane[i - 1]);
          expect(backwards, `${to} lane of client ${k} (${low ? 'low' : 'high'})`).toEqual([]);
        }
      }
    }
    // And the payload each delivery handed up is the one that was sent.
    const payloadOf = new Map(sent.map((m) => [m.uid, hex(m.payload)]));
    const wrong = atServer.filter((d) => payloadOf.has(d.uid) && payloadOf.get(d.uid) !== hex(d.payload));
    expect(wrong).toEqual([]);
  });

  it('relays each player event to every other client exactly once (by uid)', () => {
    const playerEvents = run.sends.filter((m) => m.from === 'client' && m.reliable && isEvent(m));
    expect(playerEvents.length).toBeGreaterThan(3_000);
    const relays = run.sends.filter((m) => m.relayOf !== null);
    const relaysOf = new Map<number, SendRecord[]>();
    for (const r of relays) relaysOf.set(r.relayOf as number, [...(relaysOf.get(r.relayOf as number) ?? []), r]);
    const deliveredTimes = countBy(
      run.deliveries.filter((d) => d.to === 'client'),
      (d) => `${d.client}:${d.uid}`,
    );
    const problems: string[] = [];
    for (const e of playerEvents) {
      const copies = relaysOf.get(e.uid) ?? [];
      const targets = copies.map((r) => r.client).sort();
      const others = [1, 2, 3].filter((k) => k !== e.client);
      if (JSON.stringify(targets) !== JSON.stringify(others))
        problems.push(`uid ${e.uid} from ${e.client} relayed to [${targets}]`);
      for (const r of copies) {
        if (hex(r.payload) !== hex(e.payload)) problems.push(`relay ${r.uid} of ${e.uid} carries other bytes`);
        if (!r.reliable || r.type !== TYPE_GAME) problems.push(`relay ${r.uid} is not a reliable 0x32`);
        const n = deliveredTimes.get(`${r.client}:${r.uid}`) ?? 0;
        if (n !== 1) problems.push(`relay ${r.uid} of ${e.uid} delivered ${n} times to client ${r.client}`);
      }
    }
    expect(problems.slice(0, 10)).toEqual([]);
    // Only player game messages are relayed, and the driver's count agrees.
    expect(relays.every((r) => isEvent(r))).toBe(true);
    expect(relays.length).toBe(2 * playerEvents.length);
    expect(run.session.traffic.relayed).toBe(relays.length);
    expect(run.summary.session.relayedMessages).toBe(relays.length);
  });

  it('each client receives, per (origin, payload), exactly the events of the others and of the server', () => {
    // Independent of the relay bookkeeping above: multisets of delivered payload
    // bytes. Payloads come from a few templates, so bytes repeat; counting per
    // payload catches a missing or duplicated copy unless another copy of the
    // very same bytes went wrong the opposite way.
    const eventsDelivered = run.deliveries.filter((d) => isEvent(d));
    const atServer = eventsDelivered.filter((d) => d.to === 'server');
    const fromServer = run.sends.filter((m) => m.from === 'server' && m.relayOf === null && isEvent(m));
    const clientOf = new Map(run.sends.filter((m) => m.from === 'client').map((m) => [m.uid, m.client]));
    expect(fromServer.length).toBeGreaterThan(1_000);
    for (const k of [1, 2, 3]) {
      const expected = new Map<string, number>();
      const add = (key: string) => expected.set(key, (expected.get(key) ?? 0) + 1);
      for (const d of atServer) if (d.client !== k) add(hex(d.payload));
      for (const m of fromServer) if (m.client === k) add(hex(m.payload));
      const got = countBy(
        eventsDelivered.filter((d) => d.to === 'client' && d.client === k),
        (d) => hex(d.payload),
      );
      expect(sortedEntries(got), `client ${k}`).toEqual(sortedEntries(expected));
      // Per origin too: the copies from each other player, by the origin of the relayed message.
      const relayOrigin = new Map(
        run.sends
          .filter((m) => m.relayOf !== null && m.client === k)
          .map((m) => [m.uid, clientOf.get(m.relayOf as number)]),
      );
      for (const origin of [1, 2, 3].filter((o) => o !== k)) {
        const sentByOrigin = countBy(
          atServer.filter((d) => d.client === origin),
          (d) => hex(d.payload),
        );
        const receivedFromOrigin = countBy(
          eventsDelivered.filter((d) => d.to === 'client' && d.client === k && relayOrigin.get(d.uid) === origin),
          (d) => hex(d.payload),
        );
        expect(sortedEntries(receivedFromOrigin), `client ${k} from player ${origin}`).toEqual(
          sortedEntries(sentByOrigin),
        );
        expect(sentByOrigin.size).toBeGreaterThan(0);
      }
    }
  });

  it('applied the loss on every one of the six links, at about 20 %', () => {
    const links = run.summary.links.clients;
    expect(Object.keys(links).sort()).toEqual(['2', '3', '4']);
    for (const [slot, l] of Object.entries(links)) {
      for (const dir of ['clientToServer', 'serverToClient'] as const) {
        const link = l[dir];
        expect(link.sent, `${slot} ${dir}`).toBeGreaterThan(1_000);
        expect(link.droppedBy.loss, `${slot} ${dir}`).toBe(link.dropped);
        const rate = link.dropped / link.sent;
        expect(rate, `${slot} ${dir} drop rate`).toBeGreaterThan(0.15);
        expect(rate, `${slot} ${dir} drop rate`).toBeLessThan(0.25);
        expect(link.delivered + link.dropped).toBe(link.sent);
      }
    }
  });

  it('per-connection accounting sums to the totals', () => {
    const s = run.summary;
    checkSums(s.peers.server, Object.values(s.peers.server.connections), 'server');
    checkSums(s.peers.client, Object.values(s.peers.clients), 'client');
    expect(Object.keys(s.peers.server.connections).sort()).toEqual(['2', '3', '4']);
    expect(Object.keys(s.peers.clients).sort()).toEqual(['2', '3', '4']);
    for (const dir of ['clientToServer', 'serverToClient'] as const) {
      const parts = Object.values(s.links.clients).map((l) => l[dir]);
      for (const key of LINK_COUNTERS) {
        expect(s.links[dir][key], `links.${dir}.${key}`).toBe(parts.reduce((a, l) => a + l[key], 0));
      }
      expect(s.links[dir].droppedBy.loss).toBe(parts.reduce((a, l) => a + l.droppedBy.loss, 0));
    }
    // The sums are not vacuous.
    expect(s.peers.server.packetsSent).toBeGreaterThan(3_000);
    expect(s.peers.server.keepalivesSent + s.peers.client.keepalivesSent).toBeGreaterThan(0);
  });
});

/** Summary counters that add up over connections. */
const SUMMED: ReadonlyArray<keyof PeerSummary> = [
  'retransmits',
  'fragmentRetransmits',
  'retransmitReentries',
  'packetsSent',
  'bytesSent',
  'ackBytesSent',
  'gameBytesSent',
  'acksSent',
  'ackEntriesRefused',
  'deferredMessages',
  'keepalivesSent',
  'acksReceived',
  'acksMatched',
  'acksUnmatched',
  'acksOnEmptyQueue',
  'reliableReceived',
  'duplicatesReceived',
  'gaveUp',
  'sendRejected',
  'windowStalls',
  'outOfWindow',
  'forcedReliable',
  'keepalivesEchoed',
  'wrapConflicts',
  'inboxOverflows',
  'updates',
  'gateShutDatagrams',
];
/** Per-peer maxima: the total's is the largest connection's. */
const MAXED: ReadonlyArray<keyof PeerSummary> = ['ackBytesPerPacketMax', 'messagesPerPacketMax'];
const GAUGES = ['ackOutbox', 'ackOutboxDeadZone', 'retransmitQueue', 'firstSendQueue', 'memoryBytes'] as const;
const LINK_COUNTERS: ReadonlyArray<Exclude<keyof LinkSummary, 'droppedBy'>> = [
  'sent',
  'delivered',
  'dropped',
  'duplicated',
  'messagesDropped',
  'reordered',
  'bucketDelayed',
  'slotDelayed',
  'bytesSent',
  'bytesDelivered',
];

function checkSums(total: PeerSummary, parts: readonly ConnectionSummary[], label: string): void {
  expect(parts.length).toBeGreaterThan(1);
  const sum = (f: (p: PeerSummary) => number) => parts.reduce((a, p) => a + f(p), 0);
  for (const key of SUMMED) expect(total[key], `${label}.${key}`).toBe(sum((p) => p[key] as number));
  expect(total.dedupComparisons.total, `${label}.dedupComparisons.total`).toBe(sum((p) => p.dedupComparisons.total));
  for (const key of MAXED) expect(total[key], `${label}.${key}`).toBe(Math.max(...parts.map((p) => p[key] as number)));
  expect(total.dedupComparisons.maxPerMessage).toBe(Math.max(...parts.map((p) => p.dedupComparisons.maxPerMessage)));
  for (const p of parts)
    expect(total.dedupComparisons.maxPerSecond, `${label}.dedupComparisons.maxPerSecond`).toBeGreaterThanOrEqual(
      p.dedupComparisons.maxPerSecond,
    );
  for (const g of GAUGES) {
    expect(total[g].final, `${label}.${g}.final`).toBe(sum((p) => p[g].final));
    for (const p of parts) expect(total[g].max, `${label}.${g}.max >= slot ${p.slot}`).toBeGreaterThanOrEqual(p[g].max);
    expect(total[g].max).toBeLessThanOrEqual(sum((p) => p[g].max));
  }
}

describe('one client', () => {
  it("the totals are exactly the single connection's peers", () => {
    const { summary } = runScenario(
      scenario({
        name: 'one',
        duration: '60s',
        link: { both: { loss: 0.1 } },
        traffic: {
          phases: [
            'join',
            { kind: 'combat', duration: '40s', reliablePerSecond: 'heavy', stateUpdatesPerSecond: 10 },
            { kind: 'quiet' },
          ],
        },
      }),
      { preset: 'stock' },
    );
    const { connections, ...server } = summary.peers.server;
    expect(Object.keys(connections)).toEqual(['2']);
    const { client: c1, slot: s1, ...serverConnection } = connections['2'];
    expect([c1, s1]).toEqual([1, 2]);
    expect(server).toEqual(serverConnection);
    const { client: c2, slot: s2, ...clientConnection } = summary.peers.clients['2'];
    expect([c2, s2]).toEqual([1, 2]);
    expect(summary.peers.client).toEqual(clientConnection);
    const { client: c3, ...links } = summary.links.clients['2'];
    expect(c3).toBe(1);
    expect({ clientToServer: summary.links.clientToServer, serverToClient: summary.links.serverToClient }).toEqual(
      links,
    );
    // Not vacuous: the run did something on every counter family compared.
    expect(server.retransmits).toBeGreaterThan(0);
    expect(server.ackOutbox.max).toBeGreaterThan(0);
    expect(summary.links.clientToServer.dropped).toBeGreaterThan(0);
  });
});

// ---------------------------------------------------------------------------
// 4: a timed-out client, and the Boots the others get.

const TIMEOUT_FOUR = {
  name: 'four-timeout',
  clients: 4,
  duration: '100s',
  traffic: {
    phases: [
      'join',
      { kind: 'lobby', duration: '10s', chatPerMinute: 6 },
      { kind: 'timeout', client: 2 },
      { kind: 'lobby', chatPerMinute: 6 },
    ],
  },
};

function checkTimeout(run: Recorded, expectedPayload: number[]): void {
  const { session, summary, wire, deliveries } = run;
  const slot = session.server.slotOf(1) as number;
  expect(slot).toBe(3); // client 2 connected second
  expect(expectedPayload[0]).toBe(slot);
  const phase = session.traffic.phaseLog.find((p) => p.kind === 'timeout');
  expect(phase).toBeDefined();
  const haltUs = phase!.startUs;
  // The fault fired: client 2 fell silent at the phase, and its own end is 'halted'.
  expect(wire.filter((w) => w.from === 'client' && w.client === 2 && w.timeUs > haltUs)).toEqual([]);
  expect(wire.some((w) => w.from === 'client' && w.client === 2 && w.timeUs < haltUs)).toBe(true);
  expect(session.connection(2).clientPeer.state).toBe('halted');
  // The server timed it out after the 45 s peer timeout (the last datagram it got was at most a keepalive interval before the halt).
  const timedOut = run.states.filter((s) => s.role === 'server' && s.state === 'timed-out');
  expect(timedOut.map((s) => s.client)).toEqual([2]);
  const afterHaltS = (timedOut[0].timeUs - haltUs) / 1e6;
  expect(afterHaltS).toBeGreaterThan(39);
  expect(afterHaltS).toBeLessThan(46);
  // Exactly one Boot per remaining client.
  expect(summary.session.bootsSent).toBe(3);
  expect(session.server.bootsSent).toBe(3);
  for (const k of [1, 3, 4]) {
    const boots = deliveries.filter((d) => d.to === 'client' && d.client === k && d.type === TYPE_BOOT);
    expect(
      boots.map((b) => [...b.payload]),
      `client ${k} Boots delivered`,
    ).toEqual([expectedPayload]);
    expect(boots[0].atUs).toBeGreaterThanOrEqual(timedOut[0].timeUs);
    // On the wire: one Boot message (lossless, so never re-sent), reliable + ordered, low category.
    const onWire = wire.filter((w) => w.from === 'server' && w.client === k).flatMap((w) => dataMessages(w, TYPE_BOOT));
    expect(onWire, `client ${k} Boots on the wire`).toHaveLength(1);
    expect([onWire[0].reliable, onWire[0].ordered, [...onWire[0].payload]]).toEqual([true, true, expectedPayload]);
    expect(isLowType(onWire[0].type)).toBe(true);
  }
  // The timed-out client got none: nothing was even addressed to it.
  expect(deliveries.filter((d) => d.client === 2 && d.type === TYPE_BOOT)).toEqual([]);
  expect(wire.filter((w) => w.client === 2).flatMap((w) => dataMessages(w, TYPE_BOOT))).toEqual([]);
  // The server's connection for it ended timed-out with empty queues; the others are open.
  const conn = summary.peers.server.connections[String(slot)];
  expect(conn.state).toBe('timed-out');
  expect(summary.peers.clients[String(slot)].state).toBe('halted');
  for (const g of GAUGES) expect(conn[g].final, `server connection ${slot} ${g}`).toBe(0);
  expect(conn.ackOutbox.max + conn.retransmitQueue.max).toBeGreaterThan(0); // they did hold something once
  for (const other of ['2', '4', '5']) {
    expect(summary.peers.server.connections[other].state).toBe('open');
    expect(summary.peers.clients[other].state).toBe('open');
  }
  // Nothing was sent to the removed connection after its timeout.
  expect(wire.filter((w) => w.from === 'server' && w.client === 2 && w.timeUs > timedOut[0].timeUs)).toEqual([]);
}

describe('a client that times out', () => {
  it('makes the server Boot each remaining client once with its slot (stock)', () => {
    const run = runRecorded(TIMEOUT_FOUR, { preset: 'stock', wire: true });
    checkTimeout(run, [3]);
  });

  it('bootPayload slot-reason: the Boot carries [slot, 1]', () => {
    const run = runRecorded(TIMEOUT_FOUR, { preset: 'stock', wire: true, switches: { bootPayload: 'slot-reason' } });
    checkTimeout(run, [3, 1]);
  });

  it('during combat under loss too (fixed)', () => {
    const run = runRecorded(
      {
        ...TIMEOUT_FOUR,
        link: { both: { loss: 0.05 } },
        traffic: {
          phases: [
            'join',
            { kind: 'combat', duration: '10s', reliablePerSecond: 20, stateUpdatesPerSecond: 10 },
            { kind: 'timeout', client: 2 },
            { kind: 'combat', reliablePerSecond: 20, stateUpdatesPerSecond: 10 },
          ],
        },
      },
      { preset: 'fixed' },
    );
    expect(run.summary.session.bootsSent).toBe(3);
    for (const k of [1, 3, 4]) {
      const boots = run.deliveries.filter((d) => d.to === 'client' && d.client === k && d.type === TYPE_BOOT);
      expect(boots.map((b) => [...b.payload])).toEqual([[3]]);
    }
    expect(run.deliveries.filter((d) => d.client === 2 && d.type === TYPE_BOOT)).toEqual([]);
    // Fixed ends a connection either on the 45 s silence or when a message to the
    // silent client outlives the peer timeout and is given up (onGiveUp: disconnect),
    // whichever comes first; both Boot it (server-host.ts).
    const ended = run.states.filter((s) => s.role === 'server' && (s.state === 'timed-out' || s.state === 'gave-up'));
    expect(ended.map((s) => s.client)).toEqual([2]);
    const haltUs = run.session.traffic.phaseLog.find((p) => p.kind === 'timeout')!.startUs;
    expect((ended[0].timeUs - haltUs) / 1e6).toBeGreaterThan(30);
    expect((ended[0].timeUs - haltUs) / 1e6).toBeLessThan(46);
    expect(run.summary.peers.server.connections['3'].state).toBe(ended[0].state);
    for (const g of GAUGES) expect(run.summary.peers.server.connections['3'][g].final).toBe(0);
    for (const other of ['2', '4', '5']) expect(run.summary.peers.server.connections[other].state).toBe('open');
    const d = run.summary.delivery;
    expect([d.duplicateDeliveries, d.outOfOrderDeliveries]).toEqual([0, 0]);
  });
});

// ---------------------------------------------------------------------------
// 5: slots, the ConnectAck, the header byte, and a graceful Disconnect.

describe('slots and the Disconnect exchange (docs/sources.md 5, 19, 21, join sequence)', () => {
  let run: Recorded;
  beforeAll(() => {
    run = runRecorded(
      {
        name: 'slots',
        clients: 3,
        duration: '40s',
        traffic: {
          phases: ['join', { kind: 'lobby', duration: '5s' }, { kind: 'disconnect', client: 3 }, { kind: 'lobby' }],
        },
      },
      { preset: 'stock', wire: true },
    );
  });

  it('gives slots 2, 3, 4 in connect order, each in its ConnectAck', () => {
    const { session, wire } = run;
    const connectAt = [1, 2, 3].map((k) => wire.find((w) => w.from === 'client' && w.client === k)!.timeUs);
    // Staggered joins: 0, 2 s, 4 s.
    expect(connectAt).toEqual([...connectAt].sort((a, b) => a - b));
    expect(connectAt[1] - connectAt[0]).toBeGreaterThanOrEqual(2_000_000);
    expect([1, 2, 3].map((k) => session.server.slotOf(k - 1))).toEqual([2, 3, 4]);
    expect(session.server.acceptedConnections()).toEqual([0, 1, 2]);
    for (const k of [1, 2, 3]) {
      const slot = k + 1;
      // The first datagram is the Connect (type 0x03 as captured), header 0xFF.
      const first = wire.find((w) => w.from === 'client' && w.client === k)!;
      expect(first.bytes[0]).toBe(PEER_ID_UNASSIGNED);
      expect(dataMessages(first, TYPE_CONNECT_ACK)).toHaveLength(1);
      // The server's reply on this connection: header 0x01, a reliable type-0x03 with payload [slot].
      const acks = wire
        .filter((w) => w.from === 'server' && w.client === k)
        .flatMap((w) => dataMessages(w, TYPE_CONNECT_ACK));
      expect(acks.map((m) => [m.reliable, [...m.payload]])).toEqual([[true, [slot]]]);
      expect(
        wire.filter((w) => w.from === 'server' && w.client === k).every((w) => w.bytes[0] === PEER_ID_SERVER),
      ).toBe(true);
      const delivered = run.deliveries.filter(
        (d) => d.to === 'client' && d.client === k && d.type === TYPE_CONNECT_ACK,
      );
      expect(delivered.map((d) => [...d.payload])).toEqual([[slot]]);
      expect(session.connection(k).clientPeer.peerId).toBe(slot);
    }
    expect(run.summary.session.connected).toBe(3);
    expect(run.summary.session.strayDatagrams).toBe(0);
  });

  it("puts 0xFF in a client's header until its ConnectAck, then its slot", () => {
    for (const k of [1, 2, 3]) {
      const ackAt = run.deliveries.find(
        (d) => d.to === 'client' && d.client === k && d.type === TYPE_CONNECT_ACK,
      )!.atUs;
      const mine = run.wire.filter((w) => w.from === 'client' && w.client === k);
      const before = mine.filter((w) => w.timeUs <= ackAt);
      const after = mine.filter((w) => w.timeUs > ackAt);
      expect(before.length).toBeGreaterThan(0);
      expect(after.length).toBeGreaterThan(5);
      expect(new Set(before.map((w) => w.bytes[0]))).toEqual(new Set([PEER_ID_UNASSIGNED]));
      expect(new Set(after.map((w) => w.bytes[0]))).toEqual(new Set([k + 1]));
    }
  });

  it('a graceful leaver sends a Disconnect [slot][IPv4] on the low seqs; the server ACKs it with the low-type flag', () => {
    const { wire, session } = run;
    const leaveAt = session.traffic.phaseLog.find((p) => p.kind === 'disconnect')!.startUs;
    const fromThree = wire.filter((w) => w.from === 'client' && w.client === 3);
    const disconnects = fromThree.flatMap((w) => dataMessages(w, TYPE_DISCONNECT).map((m) => ({ w, m })));
    expect(disconnects.length).toBeGreaterThan(0);
    const seqs = new Set(disconnects.map(({ m }) => m.seq));
    expect(seqs.size).toBe(1); // re-sends (if any) repeat the one message
    const { w: first, m } = disconnects[0];
    expect(first.timeUs).toBeGreaterThanOrEqual(leaveAt);
    expect(first.bytes[0]).toBe(4); // its slot in the header
    expect([m.reliable, m.ordered, m.fragment]).toEqual([true, true, false]);
    expect(isLowType(m.type)).toBe(true);
    // Its own address: client k is 10.10.10.(238 + k), so client 3 is 10.10.10.241.
    expect([...m.payload]).toEqual([4, 0x0a, 0x0a, 0x0a, 241]);
    // Low category: the seq follows the client's earlier low-category reliable messages (Connect, ...).
    const earlierLow = fromThree
      .filter((w) => w.timeUs < first.timeUs)
      .flatMap((w) => w.messages.filter((x): x is Located<DataMessage> => !isAck(x) && x.reliable && isLowType(x.type)))
      .map((x) => x.seq as number);
    expect(earlierLow.length).toBeGreaterThan(0); // the Connect at least
    expect(m.seq).toBe(Math.max(...earlierLow) + 1);
    // The server ACKs that seq, low-type flag set, not a fragment ACK: 01 <seq LE> 02.
    const serverAcks = wire
      .filter((w) => w.from === 'server' && w.client === 3 && w.timeUs > first.timeUs)
      .flatMap((w) =>
        w.messages
          .filter((x): x is Located<AckMessage> => isAck(x) && x.seq === m.seq && (x.flags & ACK_FLAG_LOW_TYPE) !== 0)
          .map((x) => ({ w, x })),
      );
    expect(serverAcks.length).toBeGreaterThan(0);
    const { w: ackDatagram, x: ack } = serverAcks[0];
    expect(ack.fragIndex).toBeNull();
    expect([...ackDatagram.bytes.subarray(ack.offset, ack.offset + ack.size)]).toEqual([
      TYPE_ACK,
      m.seq! & 0xff,
      m.seq! >> 8,
      ACK_FLAG_LOW_TYPE,
    ]);
    expect(ackDatagram.bytes[0]).toBe(PEER_ID_SERVER);
    // Both ends of client 3 closed; the other clients stay open, and nobody was Booted.
    const s = run.summary;
    expect(s.peers.clients['4'].state).toBe('closed');
    expect(s.peers.server.connections['4'].state).toBe('closed');
    for (const other of ['2', '3']) {
      expect(s.peers.clients[other].state).toBe('open');
      expect(s.peers.server.connections[other].state).toBe('open');
    }
    expect(s.session.bootsSent).toBe(0);
    // The others keep talking after the leave (keepalives, at least).
    for (const k of [1, 2])
      expect(wire.some((w) => w.from === 'client' && w.client === k && w.timeUs > leaveAt + 10_000_000)).toBe(true);
    expect(wire.some((w) => w.from === 'client' && w.client === 1 && dataMessages(w, TYPE_DISCONNECT).length > 0)).toBe(
      false,
    );
  });
});

// ---------------------------------------------------------------------------
// 6: a late join.

describe('a late join', () => {
  it('joins after the phase starts, gets the next slot, and then receives relayed events', () => {
    const run = runRecorded(
      {
        name: 'late',
        clients: 3,
        duration: '90s',
        traffic: {
          phases: [
            'join',
            { kind: 'combat', duration: '20s', reliablePerSecond: 30, stateUpdatesPerSecond: 10 },
            { kind: 'join', client: 3 },
            { kind: 'combat', duration: '40s', reliablePerSecond: 30, stateUpdatesPerSecond: 10 },
            { kind: 'quiet' },
          ],
        },
      },
      { preset: 'fixed', wire: true },
    );
    const { session, wire, sends, deliveries } = run;
    const lateJoin = session.traffic.phaseLog.find((p) => p.kind === 'join' && p.index === 2)!;
    expect(lateJoin.startUs).toBeGreaterThan(20_000_000);
    const firstOfThree = wire.find((w) => w.from === 'client' && w.client === 3)!;
    expect(firstOfThree.timeUs).toBeGreaterThanOrEqual(lateJoin.startUs);
    expect(firstOfThree.bytes[0]).toBe(PEER_ID_UNASSIGNED);
    expect(dataMessages(firstOfThree, TYPE_CONNECT_ACK)).toHaveLength(1);
    // Clients 1 and 2 were already playing: the others had relayed to each other before.
    const relaysBefore = sends.filter((m) => m.relayOf !== null && m.atUs < lateJoin.startUs);
    expect(relaysBefore.length).toBeGreaterThan(50);
    expect(relaysBefore.some((m) => m.client === 3)).toBe(false);
    expect([1, 2, 3].map((k) => session.server.slotOf(k - 1))).toEqual([2, 3, 4]);
    expect(deliveries.find((d) => d.client === 3 && d.to === 'client' && d.type === TYPE_CONNECT_ACK)!.payload[0]).toBe(
      4,
    );
    // Once in game, client 3 receives the others' events, each exactly once.
    const toThree = sends.filter((m) => m.relayOf !== null && m.client === 3);
    expect(toThree.length).toBeGreaterThan(100);
    const clientOf = new Map(sends.filter((m) => m.from === 'client').map((m) => [m.uid, m.client]));
    expect(new Set(toThree.map((m) => clientOf.get(m.relayOf as number)))).toEqual(new Set([1, 2]));
    const got = countBy(
      deliveries.filter((d) => d.to === 'client' && d.client === 3),
      (d) => String(d.uid),
    );
    expect(toThree.filter((m) => got.get(String(m.uid)) !== 1).map((m) => m.uid)).toEqual([]);
    // And its own events reach the two others.
    const fromThree = sends.filter((m) => m.from === 'client' && m.client === 3 && isEvent(m));
    expect(fromThree.length).toBeGreaterThan(50);
    const relayedFromThree = sends.filter((m) => m.relayOf !== null && clientOf.get(m.relayOf) === 3);
    expect(relayedFromThree.length).toBe(2 * fromThree.length);
    expect(session.connection(3).clientPeer.state).toBe('open');
    const d = run.summary.delivery;
    expect([d.reliableLost, d.duplicateDeliveries, d.outOfOrderDeliveries, d.reliableInFlight]).toEqual([0, 0, 0, 0]);
  });
});

// ---------------------------------------------------------------------------
// 7: determinism.

describe('determinism with three clients', () => {
  it('the same scenario and seed give the same traceHash; another seed another', () => {
    const sc = scenario({
      name: 'det',
      clients: 3,
      duration: '40s',
      link: { both: { loss: 0.1 }, clients: { '2': { both: { latencyMs: 30, jitterMs: 10 } } } },
      traffic: { phases: ['join', { kind: 'combat', reliablePerSecond: 20, stateUpdatesPerSecond: 10 }] },
    });
    const a = runScenario(sc, { preset: 'fixed', seed: 7 }).summary;
    const b = runScenario(sc, { preset: 'fixed', seed: 7 }).summary;
    const c = runScenario(sc, { preset: 'fixed', seed: 8 }).summary;
    expect(a.traceHash).toMatch(/^[0-9a-f]{64}$/);
    expect(b.traceHash).toBe(a.traceHash);
    expect(b.datagrams).toBe(a.datagrams);
    expect(b.session).toEqual(a.session);
    expect(c.traceHash).not.toBe(a.traceHash);
    expect(a.session.connected).toBe(3);
    expect(a.session.relayedMessages).toBeGreaterThan(0);
  });
});

// ---------------------------------------------------------------------------
// 8: scenario validation.

const INVALID: Array<[string, object, string, string]> = [
  ['17 clients', { name: 'x', clients: 17 }, 'clients', 'expected a number of clients 1..16'],
  [
    'a link block for client 4 of 3',
    { name: 'x', clients: 3, link: { clients: { '4': { both: { loss: 0.1 } } } } },
    'link.clients["4"]',
    'no such client',
  ],
  [
    'a timeout of client 5 of 3',
    { name: 'x', clients: 3, traffic: { phases: ['join', { kind: 'timeout', client: 5 }, 'lobby'] } },
    'traffic.phases[1].client',
    'no such client',
  ],
];

describe('scenario validation', () => {
  it.each(INVALID)('%s is rejected with a ScenarioError naming the path', (_label, json, path, reason) => {
    let error: unknown;
    try {
      scenario(json);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ScenarioError);
    const e = error as ScenarioError;
    expect(e.path).toBe(path);
    expect(e.reason).toContain(reason);
    expect(e.message).toBe(`test: ${path}: ${e.reason}`);
  });

  it.each(INVALID)(
    '%s: the CLI exits 2 with one line naming the file and the path',
    async (_label, json, path, reason) => {
      const dir = mkdtempSync(join(tmpdir(), 'bcsim-mc-'));
      const file = join(dir, 'bad.json');
      writeFileSync(file, JSON.stringify(json, null, 2));
      const r = await cli(['run', file]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      const prefix = `bcsim: ${file}: `;
      expect(r.stderr.startsWith(prefix)).toBe(true);
      const [where, ...rest] = r.stderr.slice(prefix.length).split(': ');
      expect(where).toBe(path);
      expect(rest.join(': ')).toContain(reason);
      expect(r.stderr.endsWith('\n')).toBe(true);
      expect(r.stderr.split('\n')).toHaveLength(2);
    },
  );

  it('the limits themselves are accepted: 16 clients, link.clients["3"] and a timeout of client 3 with 3 clients', () => {
    expect(scenario({ name: 'x', clients: 16 }).clients).toBe(16);
    const sc = scenario({
      name: 'x',
      clients: 3,
      link: { both: { loss: 0.1 }, clients: { '3': { serverToClient: { loss: 0.3 } } } },
      traffic: { phases: ['join', { kind: 'timeout', client: 3 }, 'lobby'] },
    });
    expect(sc.clientLinks).toHaveLength(3);
    expect(sc.clientLinks[2].serverToClient.loss).toEqual({ model: 'bernoulli', probability: 0.3 });
    expect(sc.clientLinks[2].clientToServer.loss).toEqual({ model: 'bernoulli', probability: 0.1 });
    expect(sc.clientLinks[1].serverToClient.loss).toEqual({ model: 'bernoulli', probability: 0.1 });
  });
});

describe('a deleted peer', () => {
  it('datagrams from a connection the server has timed out are counted as stray, not read', () => {
    // Client 2's uplink is cut for 50 s: the server times it out after 45 s and deletes the
    // peer; what the client sends once the outage ends reaches a server that no longer holds it.
    const json = {
      name: 'stray',
      duration: '100s',
      clients: 2,
      link: { clients: { '2': { clientToServer: { outages: [{ start: '20s', end: '70s' }] } } } },
      traffic: { phases: ['join', { kind: 'lobby' }] },
    };
    const { summary } = runScenario(scenario(json), { preset: 'stock' });
    expect(summary.links.clients['3'].clientToServer.droppedBy.outage).toBeGreaterThan(0); // the fault fired
    expect(summary.peers.server.connections['3'].state).toBe('timed-out');
    expect(summary.session.bootsSent).toBe(1);
    expect(summary.session.strayDatagrams).toBeGreaterThan(0);
    expect(summary.peers.server.connections['3'].packetsSent).toBeGreaterThan(0);
  });
});
