// Modelled memory (DECISIONS.md 15) is kept incrementally for speed; here it is
// recomputed from the queues every simulated second and must always agree.
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/scenario/load.js';
import { runScenario } from '../../src/session/run.js';
import { ACK_ENTRY_BYTES, dataMessageBytes } from '../../src/transport/memory.js';
import type { PeerTransport } from '../../src/transport/peer.js';
import type { SessionObserver } from '../../src/session/observer.js';

const scenario = parseScenario(
  JSON.stringify({
    name: 'memory',
    duration: '6m',
    link: { both: { latencyMs: 30, loss: 0.1, jitterMs: 20, jitter: 'exponential' } },
    traffic: { phases: ['join', { kind: 'combat', duration: '3m', reliablePerSecond: 'heavy' }, { kind: 'lobby' }] },
  }),
  'memory-test',
);

describe('modelled memory', () => {
  for (const preset of ['stock', 'fixed'] as const) {
    it(`${preset}: the incremental figure equals a full recount at every second`, () => {
      let checks = 0;
      let busy = 0;
      const observer: SessionObserver = {
        sample(_t, _totals, connections) {
          // Observers get read-only views; this test reaches behind them on purpose.
          for (const peer of connections.flatMap((c) => [c.serverPeer, c.clientPeer]) as PeerTransport[]) {
            expect(peer.memoryBytes()).toBe(peer.auditMemoryBytes());
            checks++;
            if (peer.memoryBytes() > 0) busy++;
          }
        },
      };
      const { summary } = runScenario(scenario, { preset, observer });
      expect(checks).toBe(2 * 361); // each second, plus the final sample
      expect(busy).toBeGreaterThan(100); // the queues were really in use
      expect(summary.links.clientToServer.droppedBy.loss).toBeGreaterThan(0);
    });
  }

  it('uses the stock 32-bit object sizes', () => {
    expect(ACK_ENTRY_BYTES).toBe(76);
    expect(dataMessageBytes(20)).toBe(0x40 + 20 + 8);
  });
});
