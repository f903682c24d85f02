// An emergent hazard of the bug documents' reading, where the
// stuck fragments of seq 2 are re-sent for ever (messageLifetime session): once the server's expected seq has moved half the u16
// space past them they look like a *future* message. They reassemble and wait
// at seq 2; when the real post-wrap seq-2 message arrives it is taken for a
// duplicate, ACKed and dropped, and the stale checksum response is delivered in
// its place. The ledger must call that message lost, not in flight.
import { describe, expect, it } from 'vitest';
import { loadScenario } from '../../src/model/scenario/load.js';
import { runScenario } from '../../src/model/session/run.js';

describe('u16 wrap with endless fragment retransmits', () => {
  const scenario = loadScenario('heavy-combat');
  const durationUs = 3600e6; // ~108k client->server reliable messages: past one wrap

  // Every receive policy for the held slot loses the message: the stale sender keeps coming back.
  for (const wrapReceive of ['first-wins', 'last-wins', 'reject'] as const) {
    it(`stock, messageLifetime session, wrapReceive ${wrapReceive}: one message is swallowed and the stale one delivered twice`, () => {
      const { summary, session } = runScenario(scenario, {
        preset: 'stock',
        durationUs,
        switches: { messageLifetime: 'session', wrapReceive },
      });
      const d = summary.delivery;
      expect(session.peers.server.expectedSeq(false)).toBeLessThan(summary.delivery.reliableSent); // wrapped
      expect(summary.peers.client.fragmentRetransmits).toBeGreaterThan(5000);
      expect(summary.peers.server.wrapConflicts).toBeGreaterThan(0); // the policy was exercised
      expect(d.duplicateDeliveries).toBe(1);
      expect(d.reliableSwallowed).toBe(1);
      expect(d.reliableLost).toBe(1);
      expect(d.reliableDelivered + d.reliableLost + d.reliableInFlight).toBe(d.reliableSent);
    });
  }

  it('the calibrated stock preset (messageLifetime peer-timeout) drops the fragments after 45 s: no hazard', () => {
    const { summary } = runScenario(scenario, { preset: 'stock', durationUs });
    expect(summary.peers.client.fragmentRetransmits).toBe(63);
    expect(summary.peers.server.wrapConflicts).toBe(0);
    expect(summary.delivery.reliableSwallowed).toBe(0);
  });

  it('fixed: nothing lost or duplicated across the same wrap', () => {
    const { summary } = runScenario(scenario, { preset: 'fixed', durationUs });
    expect(summary.delivery.reliableLost).toBe(0);
    expect(summary.delivery.duplicateDeliveries).toBe(0);
    expect(summary.delivery.reliableSwallowed).toBe(0);
  });
});
