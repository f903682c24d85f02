// One dedicated server and three clients under loss: relays, per-client links and
// accounting, and a single client's totals.
import { beforeAll, describe, expect, it } from 'vitest';
import { TYPE_GAME } from '../../src/core/codec/index.js';
import { runScenario } from '../../src/model/session/run.js';
import type { ConnectionSummary, LinkSummary, PeerSummary } from '../../src/model/session/summary.js';
import {
  GAUGES,
  type Recorded,
  type SendRecord,
  countBy,
  hex,
  isEvent,
  runRecorded,
  scenario,
  sortedEntries,
} from './multi-client-run.js';

// ---------------------------------------------------------------------------
// Three clients in fixed mode, 20 % loss on every link, heavy combat.

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
