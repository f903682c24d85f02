// Modelled memory (docs/sources.md 15) is kept incrementally for speed; here it is
// recomputed from the queues every simulated second and must always agree.
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/model/scenario/load.js';
import { switchesFor } from '../../src/model/session/run.js';
import { Session } from '../../src/model/session/session.js';
import { ACK_ENTRY_BYTES, dataMessageBytes } from '../../src/model/transport/memory.js';
import type { SessionObserver } from '../../src/model/session/observer.js';

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
      // Observers get read-only views, never the transports: the sample
      // hook only times the audit, which reads the session's own peers.
      const observer: SessionObserver = {
        sample() {
          for (const peer of session.connections.flatMap((c) => [c.serverPeer, c.clientPeer])) {
            expect(peer.memoryBytes()).toBe(peer.auditMemoryBytes());
            checks++;
            if (peer.memoryBytes() > 0) busy++;
          }
        },
      };
      const session = new Session(scenario, switchesFor(scenario, preset), scenario.seed, observer);
      session.run(scenario.durationUs);
      expect(checks).toBe(2 * 361); // each second, plus the final sample
      expect(busy).toBeGreaterThan(100); // the queues were really in use
      expect(session.connections[0].links.clientToServer.counters.droppedBy.loss).toBeGreaterThan(0);
    });
  }

  it('uses the stock 32-bit object sizes', () => {
    expect(ACK_ENTRY_BYTES).toBe(76);
    expect(dataMessageBytes(20)).toBe(0x40 + 20 + 8);
  });
});
