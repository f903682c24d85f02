// A `peer server` connection is its client's address plus a live index:
// a reconnecting client never takes over another client's live connection, a
// reused place keeps its earlier client in the summary, and a removal is
// recorded once. Live peers on a virtual network (test/support/live-net.ts).
import { describe, expect, it } from 'vitest';
import { Opcode } from '../../src/model/traffic/index.js';
import { joinResult } from '../../src/live/peer/join-check.js';
import type { LivePeer } from '../../src/live/peer/live-peer.js';
import { loadScenario } from '../../src/model/scenario/load.js';
import { switchesFor } from '../../src/model/session/run.js';
import {
  SERVER_ADDRESS,
  VirtualNet,
  netClient,
  netServer,
  netSummary,
  onWire,
  watchSources,
} from '../support/live-net.js';
import type { NetPeerOptions } from '../support/live-net.js';
import { bc, reliable } from '../support/pcap-build.js';

const scenario = loadScenario('live');
const FIXED: NetPeerOptions = { scenario, switches: switchesFor(scenario, 'fixed'), seed: 1, durationS: null };

/** Stops a client as Ctrl-C does (goodbye first) and lets the goodbye finish. */
function leave(net: VirtualNet, client: LivePeer): void {
  client.stop('signal');
  net.advance(1_500);
  expect(client.stopReason).toBe('signal');
}

describe('a reconnecting client never takes over another client live connection', () => {
  it('A leaves and comes back from the same address and port while B plays on: each keeps its own connection', () => {
    const net = new VirtualNet();
    const server = netServer(net, { ...FIXED, clients: 2 });
    const sources = watchSources(net, server);
    const a1 = netClient(net, '127.0.0.4:40001', FIXED);
    net.advance(3_000);
    const b = netClient(net, '127.0.0.3:40002', { ...FIXED, seed: 2 });
    net.advance(8_000);
    leave(net, a1);
    const a2 = netClient(net, '127.0.0.4:40001', { ...FIXED, seed: 3 });
    net.advance(10_000);
    leave(net, b);
    leave(net, a2);
    net.close();

    expect(server.clock.failure).toBeNull();
    // Every connection read datagrams from one address only.
    expect([...sources.entries()].map(([id, s]) => [id, [...s]])).toEqual([
      [1, ['127.0.0.4:40001']],
      [2, ['127.0.0.3:40002']],
      [3, ['127.0.0.4:40001']],
    ]);
    // B's messages were all read and ACKed by its own connection: none left un-ACKed.
    const own = b.own.stats();
    expect(own.reliableSent).toBeGreaterThan(20);
    expect(own.unacknowledged).toBe(0);
    expect(
      [a1, a2, b].map((c) => c.connections[0].joinedAtUs !== null),
      'each client joined',
    ).toEqual([true, true, true]);

    const summary = netSummary(server, FIXED, SERVER_ADDRESS);
    const entries = Object.entries(summary.peer.connections).map(([key, c]) => [
      key,
      c.connection,
      c.address,
      c.untilS !== null,
    ]);
    expect(entries).toEqual([
      ['2', 1, '127.0.0.4:40001', true],
      ['3', 2, '127.0.0.3:40002', false],
      ['2#3', 3, '127.0.0.4:40001', false],
    ]);
    expect(summary.wire.placesReused).toBe(1);
  });
});

describe('the summary keeps every client it served', () => {
  it('a place reused by a second client keeps the first one, with the span it held it; both joins are judged apart', () => {
    const net = new VirtualNet();
    const server = netServer(net, { ...FIXED, clients: 1 });
    const a = netClient(net, '127.0.0.1:40001', FIXED);
    net.advance(12_000);
    leave(net, a);
    net.advance(1_000);
    const b = netClient(net, '127.0.0.3:40003', { ...FIXED, seed: 2 });
    net.advance(3_000);
    leave(net, b);
    net.close();

    const summary = netSummary(server, FIXED, SERVER_ADDRESS);
    const list = Object.values(summary.peer.connections);
    expect(list.map((c) => [c.connection, c.client, c.address])).toEqual([
      [1, 1, '127.0.0.1:40001'],
      [2, 1, '127.0.0.3:40003'],
    ]);
    const [first, second] = list;
    expect(first.fromS).toBeLessThan(0.2);
    expect(first.untilS, 'the first client held the place until the second one came').toBeGreaterThan(13);
    expect(first.joinedAtS).not.toBeNull();
    expect(second.untilS).toBeNull();
    // Each connection's own traffic: the second one did not inherit the first one's counts.
    expect(second.retransmits + second.acksSent).toBeLessThan(first.acksSent);

    const join = joinResult(server);
    expect(join.checked).toBe(2);
    expect(join.evidence.map((e) => e.connection)).not.toContain(1);
  });
});

describe('a removal is recorded once', () => {
  it('a datagram carrying three refused checksum answers removes its client once, with one Boot', () => {
    const net = new VirtualNet();
    const server = netServer(net, { ...FIXED, clients: 2 });
    const witness = netClient(net, '127.0.0.5:40005', FIXED);
    net.advance(4_000);
    // A Connect, then three checksum answers no request asked for, in one datagram.
    const answer = (seq: number) => reliable(seq, [Opcode.ChecksumResponse, 0, 1, 2, 3]);
    const hostile = bc(0xff, [reliable(0, [0xff, 1], 0x03), answer(0), answer(1), answer(2)]);
    net.inject('127.0.0.6:40006', SERVER_ADDRESS, onWire(hostile));
    net.advance(2_000);
    leave(net, witness);
    net.close();

    expect(server.removals.map((r) => [r.client, r.reason])).toEqual([
      [2, 'a checksum answer that no request asked for'],
    ]);
    const summary = netSummary(server, FIXED, SERVER_ADDRESS);
    expect(summary.removals).toHaveLength(1);
    expect(summary.removals[0].connection).toBe(2);
  });
});
