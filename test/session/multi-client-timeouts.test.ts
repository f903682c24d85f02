// A client that falls silent: the server times it out and Boots each remaining client;
// what it sends after its peer is deleted is stray.
import { describe, expect, it } from 'vitest';
import { TYPE_BOOT, isLowType } from '../../src/core/codec/index.js';
import { runScenario } from '../../src/model/session/run.js';
import { GAUGES, type Recorded, dataMessages, runRecorded, scenario } from './multi-client-run.js';

// ---------------------------------------------------------------------------
// A timed-out client, and the Boots the others get.

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
