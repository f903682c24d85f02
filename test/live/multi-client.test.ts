// `peer client --clients N`: one client side plays a multi-player scenario's
// clients, each on its own socket and connection, and each is judged on its own.
// Live peers on a virtual network (test/support/live-net.ts), in exact times.
import { describe, expect, it } from 'vitest';
import { clientVerdicts, renderClientVerdicts } from '../../src/live/peer/client-verdicts.js';
import { DEFAULT_CONFORMANCE_RULES } from '../../src/live/conformance/rules.js';
import { loadScenario } from '../../src/model/scenario/load.js';
import { switchesFor } from '../../src/model/session/run.js';
import {
  SERVER_ADDRESS,
  VirtualNet,
  clientAddresses,
  netClient,
  netServer,
  netSummary,
  watchSources,
} from '../support/live-net.js';
import type { NetPeerOptions } from '../support/live-net.js';

const scenario = loadScenario('valentines');
const FIXED: NetPeerOptions = { scenario, switches: switchesFor(scenario, 'fixed'), seed: 1, durationS: null };
const FIRST = '127.0.0.1:40001';

function judge(client: ReturnType<typeof netClient>, count: number) {
  return clientVerdicts(client, {
    rules: DEFAULT_CONFORMANCE_RULES,
    requireExercised: false,
    manifest: scenario.traffic.manifest,
    manifestFile: null,
    locals: clientAddresses(FIRST, count),
  });
}

describe('peer client --clients N: several players from one command', () => {
  it("three clients join one server, each from its own address, each playing its own share of valentines' traffic", () => {
    const net = new VirtualNet();
    const server = netServer(net, { ...FIXED, clients: 3 });
    const sources = watchSources(net, server);
    const side = netClient(net, FIRST, { ...FIXED, clients: 3 });
    net.advance(40_000);
    side.stop('signal');
    net.advance(1_500);
    net.close();

    expect(side.clock.failure).toBeNull();
    expect(server.clock.failure).toBeNull();
    // Three connections on the server, each reading one of the side's addresses.
    expect([...sources.entries()].map(([id, s]) => [id, [...s]])).toEqual([
      [1, ['127.0.0.1:40001']],
      [2, ['127.0.0.1:40002']],
      [3, ['127.0.0.1:40003']],
    ]);
    expect(side.connections.map((c) => c.joinedAtUs !== null)).toEqual([true, true, true]);
    // Each client sent its own StateUpdates and reliable events, and each was ACKed on its own connection.
    const perClient = side.connections.map((c) => c.peer.counters);
    for (const counters of perClient) {
      expect(counters.messagesSent).toBeGreaterThan(500);
      expect(counters.acksMatched).toBeGreaterThan(10);
    }
    const summary = netSummary(side, { ...FIXED, clients: 3 }, FIRST);
    expect(Object.keys(summary.peer.connections)).toHaveLength(3);
    // The total is over the three connections.
    expect(summary.peer.packetsSent).toBe(perClient.reduce((n, c) => n + c.packetsSent, 0));

    const verdicts = judge(side, 3);
    // Each said goodbye: a fixed client waits for the server's own Disconnect, past the signal's 1 s.
    expect(verdicts.map((v) => [v.client, v.connection, v.local, v.state])).toEqual([
      [1, 1, '127.0.0.1:40001', 'disconnecting'],
      [2, 2, '127.0.0.1:40002', 'disconnecting'],
      [3, 3, '127.0.0.1:40003', 'disconnecting'],
    ]);
    for (const v of verdicts) {
      expect(v.conformanceCounts.failed, JSON.stringify(v)).toBe(0);
      expect(v.conformanceCounts.rules).toBe(7);
    }
    expect(renderClientVerdicts(verdicts)).toMatch(
      /^ {2}client 2 127\.0\.0\.1:40002: joined at \d+\.\d s, at the end disconnecting; /m,
    );
  });

  it('a client the server has no place for is reported, and the others go on', () => {
    const net = new VirtualNet();
    const server = netServer(net, { ...FIXED, clients: 2 });
    const side = netClient(net, FIRST, { ...FIXED, clients: 3 });
    net.advance(30_000);
    side.stop('signal');
    net.advance(1_500);
    net.close();

    expect(server.wire.refusedAddresses).toBeGreaterThan(0);
    const verdicts = judge(side, 3);
    expect(verdicts.map((v) => v.joinedAtS !== null)).toEqual([true, true, false]);
    expect(verdicts[2].failedRules).toEqual(['join-completes']);
    expect(verdicts.slice(0, 2).map((v) => v.conformanceCounts.failed)).toEqual([0, 0]);
    // The two that got a place played on: their traffic was read by the server.
    for (const c of side.connections.slice(0, 2)) expect(c.peer.counters.messagesSent).toBeGreaterThan(50);
    expect(renderClientVerdicts(verdicts)).toContain('client 3 127.0.0.1:40003: did not join');
    expect(SERVER_ADDRESS).toBe('127.0.0.1:22101');
  });
});
