// The three presets on their defining properties: documented delivers
// under 20 % loss, implemented never resends, repaired resends O(k) after a burst
// of k deaths where the k² switch combination resends k² per user per tick.
import { describe, expect, it } from 'vitest';
import { PERFECT_LINK } from '../../src/model/link/index.js';
import type { LinkConfig } from '../../src/model/link/index.js';
import { RTYPE_PRESETS } from '../../src/rtype/transport/index.js';
import { RTYPE_DEATHS, runRtype } from '../../src/rtype/session/index.js';
import type { RtypeConfigInput } from '../../src/rtype/session/index.js';

const link = (lossProbability: number, jitterMs = 5): LinkConfig => ({
  ...PERFECT_LINK,
  latency: { baseMs: 30, jitterMs, distribution: 'uniform' },
  loss: lossProbability === 0 ? { model: 'none' } : { model: 'bernoulli', probability: lossProbability },
});

describe('rtype presets', () => {
  it('documented delivers every death under 20 % loss when the TCP confirmation channel is up', () => {
    const config: RtypeConfigInput = {
      preset: 'documented',
      durationMs: 120_000,
      links: { serverToClient: link(0.2), clientToServer: link(0.2) },
      workload: { deathsPerSecond: 2, burstsPerMinute: 4 },
    };
    const s = runRtype(config, 16);
    expect(s.wire.criticalDropped).toBeGreaterThan(100);
    expect(s.deaths.pairs).toBeGreaterThan(800);
    expect(s.deaths.lost).toBe(0);
    expect(s.deaths.delivered + s.deaths.inFlight).toBe(s.deaths.pairs);
    // The same losses break the implemented scheme: the property is not vacuous.
    expect(runRtype({ ...config, preset: 'implemented' }, 16).deaths.lost).toBeGreaterThan(50);
  });

  it('implemented never resends, at rtype-deaths loss and at 20 %', () => {
    for (const loss of [0.05, 0.2]) {
      const s = runRtype(
        {
          preset: 'implemented',
          durationMs: 120_000,
          links: { serverToClient: link(loss), clientToServer: link(loss) },
        },
        3,
      );
      expect(s.wire.criticalDropped, `loss ${loss}`).toBeGreaterThan(0);
      expect([s.resends.datagrams, s.resends.calls, s.wire.serverDatagrams.resend], `loss ${loss}`).toEqual([0, 0, 0]);
      expect(s.deaths.lost, `loss ${loss}`).toBe(s.wire.criticalDropped);
    }
  });

  describe('k deaths in one tick', () => {
    const CLIENTS = 2;
    /** Only a burst of k at 3 s; no other traffic. */
    const burst = (k: number): RtypeConfigInput => ({
      clients: CLIENTS,
      durationMs: 6_000,
      workload: {
        deathsPerSecond: 0,
        burstsPerMinute: 0,
        positionsPerFrame: 0,
        scriptedBursts: [{ atMs: 3_000, size: k }],
      },
    });

    it('repaired re-sends O(k) per tick: one per (client, packet) still waiting, never more', () => {
      for (const k of [2, 4, 8, 16]) {
        // A dead downlink: nothing is confirmed, so every pair is re-sent until it expires.
        const s = runRtype(
          { ...burst(k), preset: 'repaired', links: { serverToClient: link(1, 0), clientToServer: link(0, 0) } },
          1,
        );
        expect(s.resends.maxCallsPerUserPerFrame, `k=${k}`).toBe(k);
        expect(s.resends.maxPerFrame, `k=${k}`).toBe(k * CLIENTS);
        expect(s.resends.excess, `k=${k}`).toBe(0);
      }
    });

    it('the k² storm: lists and loop fixed, ticks in lists, every tick to all, thresholds in ms', () => {
      // docs/sources.md 24: "If the copy bugs were fixed, k deaths in one tick would cause k² resends per user per tick."
      const switches = { pendingListsOnCopies: false, loopHoldsStaleCopies: false, thresholdsInTicks: false };
      for (const k of [2, 4, 8]) {
        const s = runRtype(
          {
            ...burst(k),
            preset: 'implemented',
            switches,
            links: { serverToClient: link(0, 0), clientToServer: link(0, 0) },
          },
          1,
        );
        expect(s.resends.maxCallsPerUserPerFrame, `k=${k}`).toBe(k * k);
        // Each call goes to every client: 2 users × k² calls × 2 clients.
        expect(s.resends.maxPerFrame, `k=${k}`).toBe(CLIENTS * k * k * CLIENTS);
        expect(s.resends.excess, `k=${k}`).toBeGreaterThan(0);
      }
    });

    it('a big enough storm overruns frames, and the tick counter stalls (docs/sources.md 24)', () => {
      const switches = { pendingListsOnCopies: false, loopHoldsStaleCopies: false, thresholdsInTicks: false };
      const s = runRtype(
        {
          ...burst(32),
          preset: 'implemented',
          switches,
          links: { serverToClient: link(0, 0), clientToServer: link(0, 0) },
        },
        1,
      );
      expect(s.clock.overrunFrames).toBeGreaterThan(0);
      expect(s.clock.ticks).toBe(s.clock.frames - s.clock.overrunFrames);
      const calm = runRtype(
        { ...burst(32), preset: 'repaired', links: { serverToClient: link(1, 0), clientToServer: link(0, 0) } },
        1,
      );
      expect(calm.clock.overrunFrames).toBe(0);
    });
  });

  it('presets are plain data: documented and repaired differ only in the resend timer', () => {
    const { resendTimer: a, ...documented } = RTYPE_PRESETS.documented;
    const { resendTimer: b, ...repaired } = RTYPE_PRESETS.repaired;
    expect([a, b]).toEqual(['scan', 'per-packet']);
    expect(documented).toEqual(repaired);
    expect(Object.values(documented).every((v) => v === false)).toBe(true);
    const { resendTimer: c, ...implemented } = RTYPE_PRESETS.implemented;
    expect(c).toBe('scan');
    expect(Object.values(implemented).every((v) => v === true)).toBe(true);
  });

  it('rtype-deaths is 4 clients, 10 minutes, 5 % loss, bursts of deaths', () => {
    expect(RTYPE_DEATHS.clients).toBe(4);
    expect(RTYPE_DEATHS.durationMs).toBe(600_000);
    expect(RTYPE_DEATHS.links.serverToClient.loss).toEqual({ model: 'bernoulli', probability: 0.05 });
    expect(RTYPE_DEATHS.links.clientToServer.loss).toEqual({ model: 'bernoulli', probability: 0.05 });
    expect(RTYPE_DEATHS.workload.burstsPerMinute).toBeGreaterThan(0);
    expect(RTYPE_DEATHS.workload.burstSize).toBeGreaterThan(1);
  });
});
