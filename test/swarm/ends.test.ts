// The fixed-mode promise lets a connection end only gracefully or at a deadline the link forced
// (README, the fixed-mode promise). The swarm judges every other end by the wire (end-judge.ts):
// these runs show it accepting what the link did and refusing what the transport did.
import { describe, expect, it } from 'vitest';
import { micros, ZERO_US } from '../../src/engine/index.js';
import { loadScenario } from '../../src/scenario/load.js';
import { executeScenario } from '../../src/swarm/execute.js';
import type { RunOutcome } from '../../src/swarm/execute.js';
import { formatFailure } from '../../src/swarm/report.js';
import { specFor } from '../../src/swarm/swarm.js';

const COMBAT = (seconds: number, rate: number) => `traffic.phases=${JSON.stringify(['join', { kind: 'combat', duration: `${seconds}s`, reliablePerSecond: rate }, { kind: 'lull', stateUpdatesPerSecond: 10 }])}`;

/** Runs the swarm's base scenario with `sets` and the swarm's checks (no harness timing, no configured faults to fire). */
function judged(mode: Record<string, unknown>, sets: string[], seed = 5): RunOutcome {
  const all = [`mode=${JSON.stringify({ preset: 'fixed', ...mode })}`, ...sets];
  const spec = { ...specFor(1, 0, 'fixed'), sets: all, seed, checks: [], joinAllowanceUs: micros(Number.MAX_SAFE_INTEGER), tailUs: ZERO_US, disconnectTail: false };
  return executeScenario(spec, () => loadScenario('fragment-ack-bug', { sets: all }), seed);
}

const invariants = (o: RunOutcome) => o.violations.map((v) => v.invariant);

describe('ends the link forced', () => {
  it('an outage longer than the peer timeout: each end is forced, with what the wire shows', () => {
    const o = judged({}, ['duration=70s', 'transport.peerTimeoutMs=10000', 'link.both.outages=[{"start":"20s","end":"40s"}]', COMBAT(60, 20)]);
    expect(o.violations, formatFailure(o)).toEqual([]);
    expect(o.ends).toHaveLength(2);
    // Both hear nothing for the 10 s peer timeout; the first to time out is forced by the link, the other by its end.
    expect(o.ends.sort()).toEqual([
      expect.stringMatching(/^client timed-out at 29\.\d{3} s: peer timeout \(last heard at 19\.\d{3} s\) \(forced: the link delivered nothing server sent after 19\.\d{3} s \(its last datagram left at 29\.\d{3} s\)\)$/),
      expect.stringMatching(/^server timed-out at 29\.\d{3} s: peer timeout \(last heard at 19\.\d{3} s\) \(forced: client had ended at 29\.\d{3} s\)$/),
    ]);
  });

  it('a drain whose every Disconnect the link drops ends at its deadline, forced', () => {
    const drop = 'link.clientToServer.drop=[{"scope":"datagram","match":{"type":"disconnect"},"first":1000}]';
    const phases = `traffic.phases=${JSON.stringify(['join', { kind: 'combat', duration: '10s', reliablePerSecond: 10 }, 'disconnect'])}`;
    // An outage over the disconnect keeps the client's last messages unACKed a while: its Disconnect leaves after the drain began.
    const o = judged({}, ['duration=60s', 'transport.peerTimeoutMs=15000', 'link.clientToServer.outages=[{"start":"14s","end":"18s"}]', drop, phases]);
    expect(o.violations, formatFailure(o)).toEqual([]);
    expect(o.ends.join('\n')).toMatch(/client gave-up at [\d.]+ s: drain deadline \(drain began at [\d.]+ s; waiting for low seq \d+ \(type 0x05\) unACKed\) \(forced: the link lost every copy of client's low seq \d+ \(type 0x05\) or every ACK of it .* \(\d+ copies sent, 0 arrived; 0 ACKs sent back, 0 arrived\)\)/);
  });
});

describe('ends the transport caused', () => {
  it('a receiver that does not ACK a duplicate (planted no-duplicate-ack): "sent no ACK of it"', () => {
    const o = judged({ plantedBug: 'no-duplicate-ack' }, ['duration=90s', 'link.both.loss=0.3', COMBAT(30, 20)]);
    expect(invariants(o)).toContain('2 end the link did not force');
    const v = o.violations.find((x) => x.invariant === '2 end the link did not force');
    expect(v?.detail).toMatch(/: a copy reached the (server|client) at [\d.]+ s and it sent no ACK of it \(\d+ copies sent, \d+ arrived; 3 ACKs sent back, 0 arrived\)\)$/);
    expect(v?.message).toMatchObject({ kind: 'given-up' });
    // Without the bug the same run keeps the promise.
    expect(judged({}, ['duration=90s', 'link.both.loss=0.3', COMBAT(30, 20)]).violations).toEqual([]);
  });

  it('a sender that ignores the ACKs of fragments (cause e in fixed mode): "although an ACK of it arrived"', () => {
    const o = judged({ fragmentAckCause: 'matcher-rejects-fragments' }, ['duration=90s', 'transport.fragmentChunkBytes=24', COMBAT(20, 5)]);
    const v = o.violations.find((x) => x.invariant === '2 end the link did not force');
    expect(v?.detail, formatFailure(o)).toMatch(/\(fragment \d+\) was given up although an ACK of it arrived at [\d.]+ s/);
  });
});
