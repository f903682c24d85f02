// valentines plays the 34-minute session's 59 ship deaths (docs/sources.md 32) with the
// self-destruct's measured bursts; the deaths add no idle keepalive, because the ship
// selection after them (the join's 4.5 s) is shorter than the 5 s idle time.
import { describe, expect, it } from 'vitest';
import { TYPE_CONNECT, TYPE_DATA, decodeDatagram } from '../../src/core/codec/index.js';
import { loadScenario } from '../../src/model/scenario/index.js';
import { runScenario } from '../../src/model/session/run.js';

describe('valentines: the session deaths as traffic', () => {
  const scenario = loadScenario('valentines');
  let keepalives = 0;
  let fullest = { count: 0, acks: 0, from: '' };
  const { summary, session } = runScenario(scenario, {
    preset: 'stock',
    observer: {
      datagramSent(_timeUs, from, bytes) {
        const decoded = decodeDatagram(bytes);
        if (!decoded.ok) throw new Error('malformed datagram on the wire');
        const messages = decoded.datagram.messages;
        for (const m of messages) if (m.type === TYPE_DATA || m.type === TYPE_CONNECT) keepalives++;
        if (messages.length > fullest.count)
          fullest = { count: messages.length, acks: messages.filter((m) => m.type === 1).length, from };
      },
    },
  });

  it('plays 59 deaths, each followed by its pick', () => {
    expect(session.traffic.deaths?.count).toBe(59);
    expect(scenario.traffic.deaths).toMatchObject({ explosionMs: 9500, selectionMs: 4500, arrival: 'periodic' });
  });

  it('adds no keepalive: 8 on the wire, as without deaths (the measured 94 stays out of reach)', () => {
    expect(keepalives).toBe(8);
    expect(summary.peers.server.keepalivesSent + summary.peers.client.keepalivesSent).toBe(5);
  });

  it("puts its fullest datagram on a client's wire: dead-zone ACKs a selection screen released together", () => {
    expect(summary.peers.client.messagesPerPacketMax).toBe(fullest.count);
    expect(fullest.from).toBe('client');
    expect(fullest.count).toBeGreaterThanOrEqual(17);
    expect(fullest.count).toBeLessThan(25);
    expect(fullest.acks).toBeGreaterThanOrEqual(fullest.count - 3);
  });
});
