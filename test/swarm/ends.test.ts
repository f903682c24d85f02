// The fixed-mode promise lets a connection end only gracefully or at a deadline the link forced
// (README, the fixed-mode promise). The swarm judges every other end by the wire (end-judge.ts):
// these runs show it accepting what the link did and refusing what the transport did.
import { describe, expect, it } from 'vitest';
import { micros, ZERO_US } from '../../src/core/engine/index.js';
import { loadScenario } from '../../src/model/scenario/load.js';
import { executeScenario } from '../../src/tools/swarm/execute.js';
import type { RunOutcome } from '../../src/tools/swarm/execute.js';
import { formatFailure } from '../../src/tools/swarm/report.js';
import { parseReproCommand } from '../../src/tools/swarm/repro.js';
import { specFor } from '../../src/tools/swarm/swarm.js';

const COMBAT = (seconds: number, rate: number) =>
  `traffic.phases=${JSON.stringify(['join', { kind: 'combat', duration: `${seconds}s`, reliablePerSecond: rate }, { kind: 'lull', stateUpdatesPerSecond: 10 }])}`;

/** Runs the swarm's base scenario with `sets` and the swarm's checks (no harness timing, no configured faults to fire). */
function judged(mode: Record<string, unknown>, sets: string[], seed = 5): RunOutcome {
  const all = [`mode=${JSON.stringify({ preset: 'fixed', ...mode })}`, ...sets];
  const spec = {
    ...specFor(1, 0, 'fixed'),
    sets: all,
    seed,
    checks: [],
    joinAllowanceUs: micros(Number.MAX_SAFE_INTEGER),
    durationUs: micros(Number.MAX_SAFE_INTEGER),
    tailUs: ZERO_US,
    disconnectTail: false,
  };
  return executeScenario(spec, () => loadScenario('fragment-ack-bug', { sets: all }), seed);
}

/** A printed `bcsim run …` line, with the swarm's checks as `judged` applies them. */
function judgedLine(line: string): RunOutcome {
  const c = parseReproCommand(line);
  const spec = {
    ...specFor(1, 0, 'fixed'),
    sets: c.sets,
    seed: c.seed,
    checks: [],
    joinAllowanceUs: micros(Number.MAX_SAFE_INTEGER),
    durationUs: micros(Number.MAX_SAFE_INTEGER),
    tailUs: ZERO_US,
    disconnectTail: false,
  };
  return executeScenario(spec, () => loadScenario(c.base, { sets: c.sets }), c.seed);
}

const invariants = (o: RunOutcome) => o.violations.map((v) => v.invariant);

/**
 * Two runs whose link does not let a graceful disconnect drain (README, the fixed-mode promise):
 * 174 reliable messages/s through bandwidth caps after two 9 s outages, and Gilbert-Elliott bursts
 * at the sparse traffic of a drain. Seeds found by the swarm; BURSTS's again by trying seeds of the same line
 * since the join takes its captured timeline: 64 is the first from 1 where both ends give up and nothing is refused
 * (each given-up message had a copy delivered, so the ledger loses none).
 */
const OVERLOAD = `bcsim run fragment-ack-bug --mode fixed --seed 891677 --set 'mode={"preset":"fixed"}' --set 'duration=121s' --set 'transport.datagramsPerUpdate=4' --set 'link.both.latencyMs=76' --set 'link.both.outages=[{"start":"23s","end":"32s"}]' --set 'link.clientToServer.bandwidthBytesPerSecond=5710' --set 'link.clientToServer.burstBytes=31' --set 'link.clientToServer.queueLimitPackets=9' --set 'link.clientToServer.outages=[{"start":"23s","end":"32s"},{"start":"36s","end":"45s"}]' --set 'link.serverToClient.bandwidthBytesPerSecond=3711' --set 'link.serverToClient.burstBytes=31' --set 'link.serverToClient.queueLimitPackets=6' --set 'link.serverToClient.drop=[{"scope":"message","match":{"type":"ack","fragment":true},"first":3}]' --set 'traffic.phases=["join",{"kind":"combat","duration":"56s","reliablePerSecond":174,"clientShare":0.71,"arrival":"poisson"},{"kind":"lull","duration":"6s"},"disconnect"]' --json`;
const BURSTS = `bcsim run fragment-ack-bug --mode fixed --seed 64 --set 'mode={"preset":"fixed","retransmit":{"backoff":"exponential","baseMs":1150,"capMs":6429}}' --set 'duration=362s' --set 'transport.datagramsPerUpdate=5' --set 'link.both.gilbertElliott={"pGoodToBad":0.067,"pBadToGood":0.2,"lossGood":0,"lossBad":0.894}' --set 'link.both.latencyMs=11' --set 'link.clientToServer.slotMs=65' --set 'traffic.phases=["join",{"kind":"combat","duration":"73s","reliablePerSecond":289,"clientShare":0.28,"arrival":"poisson"},{"kind":"lull","duration":"5s"},{"kind":"combat","duration":"72s","reliablePerSecond":289,"clientShare":0.28,"arrival":"poisson"},"disconnect"]' --json`;

describe('ends the link forced', () => {
  it('an outage longer than the peer timeout: each end is forced, with what the wire shows', () => {
    const o = judged({}, [
      'duration=70s',
      'transport.peerTimeoutMs=10000',
      'link.both.outages=[{"start":"20s","end":"40s"}]',
      COMBAT(60, 20),
    ]);
    expect(o.violations, formatFailure(o)).toEqual([]);
    expect(o.ends).toHaveLength(2);
    // Both hear nothing for the 10 s peer timeout; the first to time out is forced by the link, the other by its end.
    const sides = [...o.ends].sort();
    expect(sides).toHaveLength(2);
    const timing = /^(client|server) timed-out at ([\d.]+) s: peer timeout \(last heard at (19\.\d{3}) s\) \(forced: /;
    expect(sides.map((e) => timing.exec(e)?.[1])).toEqual(['client', 'server']);
    for (const e of sides) {
      // Each times out the 10 s peer timeout after it last heard from the other, at its next update.
      const [, , at, heard] = timing.exec(e) as RegExpExecArray;
      expect(Number(at) - Number(heard), e).toBeGreaterThanOrEqual(10);
      expect(Number(at) - Number(heard), e).toBeLessThan(10.1);
    }
    const byLink = sides.filter((e) =>
      /\(forced: the link delivered nothing (server|client) sent after 19\.\d{3} s \(its last datagram left at [\d.]+ s\)\)$/.test(
        e,
      ),
    );
    const byEnd = sides.filter((e) => /\(forced: (server|client) had ended at [\d.]+ s\)$/.test(e));
    expect([byLink.length, byEnd.length]).toEqual([1, 1]);
  });

  it('a drain whose every Disconnect the link drops ends at its deadline, forced', () => {
    const drop = 'link.clientToServer.drop=[{"scope":"datagram","match":{"type":"disconnect"},"first":1000}]';
    const phases = `traffic.phases=${JSON.stringify(['join', { kind: 'combat', duration: '10s', reliablePerSecond: 10 }, 'disconnect'])}`;
    // An outage over the disconnect keeps the client's last messages unACKed a while: its Disconnect leaves after the drain began.
    const o = judged({}, [
      'duration=60s',
      'transport.peerTimeoutMs=15000',
      'link.clientToServer.outages=[{"start":"14s","end":"18s"}]',
      drop,
      phases,
    ]);
    expect(o.violations, formatFailure(o)).toEqual([]);
    expect(o.ends.join('\n')).toMatch(
      /client gave-up at [\d.]+ s: drain deadline \(drain began at [\d.]+ s; waiting for low seq \d+ \(type 0x05\) unACKed\) \(forced: the link lost every copy of client's low seq \d+ \(type 0x05\) or every ACK of it .* \(\d+ copies sent, 0 arrived; 0 ACKs sent back, 0 arrived\)\)/,
    );
  });
});

describe('a graceful disconnect the link does not let drain', () => {
  it('overload: both sides give up at a message lifetime before the disconnect, every loss counted, forced', () => {
    const o = judgedLine(OVERLOAD);
    expect(o.violations, formatFailure(o)).toEqual([]);
    expect(o.ledger).toBe('sent 9938, delivered 3011, in flight 0, lost 6927 (swallowed 3762), refused 0');
    expect(o.ends).toEqual([
      expect.stringMatching(
        /^server gave-up at 65\.345 s: gave up high seq \d+ at its message-age after 23 sends \(forced: the link lost every copy of .* \(23 copies sent, 2 arrived; 6 ACKs sent back, 0 arrived\)\)$/,
      ),
      expect.stringMatching(
        /^client gave-up at 67\.957 s: gave up high seq \d+ at its message-age after 23 sends \(forced: /,
      ),
    ]);
  });

  it('bursts at sparse traffic: both ends give up at a message lifetime, the ledger balanced, forced', () => {
    const o = judgedLine(BURSTS);
    expect(o.violations, formatFailure(o)).toEqual([]);
    expect(o.ledger).toBe('sent 42077, delivered 42077, in flight 0, lost 0 (swallowed 0), refused 0');
    expect(o.ends).toEqual([
      "server gave-up at 202.575 s: gave up high seq 29826 at its message-age after 9 sends (forced: the link lost every copy of server's high seq 29826 or every ACK of it from 157.570 s to 202.575 s (9 copies sent, 1 arrived; 3 ACKs sent back, 0 arrived))",
      "client gave-up at 204.737 s: gave up high seq 11811 at its message-age after 9 sends (forced: the link lost every copy of client's high seq 11811 or every ACK of it from 159.727 s to 204.737 s (9 copies sent, 1 arrived; 3 ACKs sent back, 0 arrived))",
    ]);
  });
});

describe('ends the transport caused', () => {
  it('a receiver that does not ACK a duplicate (planted no-duplicate-ack): "sent no ACK of it"', () => {
    const o = judged({ plantedBug: 'no-duplicate-ack' }, ['duration=90s', 'link.both.loss=0.3', COMBAT(30, 20)]);
    expect(invariants(o)).toContain('2 end the link did not force');
    const v = o.violations.find((x) => x.invariant === '2 end the link did not force');
    expect(v?.detail).toMatch(
      /: a copy reached the (server|client) at [\d.]+ s and it sent no ACK of it \(\d+ copies sent, \d+ arrived; 3 ACKs sent back, 0 arrived\)\)$/,
    );
    expect(v?.message).toMatchObject({ kind: 'given-up' });
    // Without the bug the same run keeps the promise.
    expect(judged({}, ['duration=90s', 'link.both.loss=0.3', COMBAT(30, 20)]).violations).toEqual([]);
  });

  it('a sender that ignores the ACKs of fragments (cause e in fixed mode): "although an ACK of it arrived"', () => {
    const o = judged({ fragmentAckCause: 'matcher-rejects-fragments' }, [
      'duration=90s',
      'transport.fragmentChunkBytes=24',
      COMBAT(20, 5),
    ]);
    const v = o.violations.find((x) => x.invariant === '2 end the link did not force');
    expect(v?.detail, formatFailure(o)).toMatch(
      /\(fragment \d+\) was given up although an ACK of it arrived at [\d.]+ s/,
    );
  });
});
