// Every built-in scenario runs in both modes (durations shortened where long);
// the delivery guarantees of fixed mode hold on the faulty links at full length.
import { describe, expect, it } from 'vitest';
import { builtinNames, listBuiltins, loadScenario } from '../../src/model/scenario/load.js';
import { runScenario } from '../../src/model/session/run.js';

const SHORT_US = 90_000_000;

describe('built-in scenarios', () => {
  it('are the documented set, each with a description of what it is for', () => {
    expect(builtinNames()).toEqual([
      'fragment-ack-bug',
      'heavy-combat',
      'live',
      'lobby-idle',
      'long-session',
      'lossy-link',
      'partition',
      'server-8',
      'valentines',
    ]);
    for (const b of listBuiltins()) expect(b.description.length).toBeGreaterThan(80);
  });

  for (const name of builtinNames()) {
    for (const preset of ['stock', 'fixed'] as const) {
      it(`${name} runs in ${preset} mode`, () => {
        const scenario = loadScenario(name);
        const { summary } = runScenario(scenario, { preset, durationUs: Math.min(scenario.durationUs, SHORT_US) });
        expect(summary.mode).toBe(preset);
        expect(summary.delivery.reliableSent).toBeGreaterThan(0);
        expect(summary.delivery.duplicateDeliveries).toBe(0);
        expect(summary.peers.server.packetsSent).toBeGreaterThan(0);
        expect(summary.peers.client.packetsSent).toBeGreaterThan(0);
      });
    }
  }
});

describe('fixed mode on faulty links, full length', () => {
  it('lossy-link: nothing lost, duplicated or reordered, and the faults were applied', () => {
    const { summary } = runScenario(loadScenario('lossy-link'), { preset: 'fixed' });
    expect(summary.delivery.reliableLost).toBe(0);
    expect(summary.delivery.duplicateDeliveries).toBe(0);
    expect(summary.delivery.outOfOrderDeliveries).toBe(0);
    for (const dir of ['clientToServer', 'serverToClient'] as const) {
      const link = summary.links[dir];
      expect(link.droppedBy.loss).toBeGreaterThan(0);
      expect(link.duplicated).toBeGreaterThan(0);
      expect(link.reordered).toBeGreaterThan(0);
    }
    // Duplicated datagrams really reached the transports and were dropped there.
    expect(summary.peers.server.duplicatesReceived + summary.peers.client.duplicatesReceived).toBeGreaterThan(0);
  });

  it('partition: the 30 s outage is bridged; after it heals nothing was lost', () => {
    const { summary } = runScenario(loadScenario('partition'), { preset: 'fixed' });
    expect(summary.links.clientToServer.droppedBy.outage).toBeGreaterThan(0);
    expect(summary.links.serverToClient.droppedBy.outage).toBeGreaterThan(0);
    expect(summary.peers.server.state).toBe('open');
    expect(summary.peers.client.state).toBe('open');
    expect(summary.delivery.reliableLost).toBe(0);
    expect(summary.delivery.duplicateDeliveries).toBe(0);
    expect(summary.delivery.outOfOrderDeliveries).toBe(0);
    expect(summary.peers.client.retransmits).toBeGreaterThan(0);
  });
});

describe('an outage longer than the 45 s peer timeout', () => {
  const scenario = loadScenario('partition', { sets: ['link.both.outages[0].end=6m30s'] });
  for (const preset of ['stock', 'fixed'] as const) {
    it(`${preset}: both peers time out cleanly and the lost messages are counted`, () => {
      const { summary } = runScenario(scenario, { preset });
      for (const role of ['server', 'client'] as const) {
        const peer = summary.peers[role];
        // The fixed client ends the connection when its oldest unACKed message passes the 45 s
        // lifetime, a little before its 45 s receive timeout (messageLifetime peer-timeout, onGiveUp disconnect).
        expect(peer.state).toBe(preset === 'fixed' && role === 'client' ? 'gave-up' : 'timed-out');
        expect(peer.ackOutbox.final).toBe(0);
        expect(peer.retransmitQueue.final).toBe(0);
        expect(peer.memoryBytes.final).toBe(0);
        expect(peer.gaveUp).toBeGreaterThan(0);
      }
      const d = summary.delivery;
      expect(d.reliableLost).toBeGreaterThan(0);
      expect(d.reliableInFlight).toBe(0);
      expect(d.reliableDelivered + d.reliableLost).toBe(d.reliableSent);
      expect(summary.links.clientToServer.droppedBy.outage).toBeGreaterThan(0);
    });
  }
});
