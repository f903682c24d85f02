// R-Type sessions: determinism of the trace hash, the summary's shape, config
// validation, and the ledger's bookkeeping.
import { describe, expect, it } from 'vitest';
import { PERFECT_LINK } from '../../src/model/link/index.js';
import {
  RTYPE_DEATHS,
  RTYPE_SUMMARY_SCHEMA,
  RtypeConfigError,
  resolveRtypeConfig,
  runRtype,
  validateRtypeConfig,
} from '../../src/rtype/session/index.js';
import type { RtypeConfigInput } from '../../src/rtype/session/index.js';

const SHORT: RtypeConfigInput = { durationMs: 30_000 };

describe('rtype session: determinism', () => {
  it.each(['documented', 'implemented', 'repaired'] as const)(
    '%s: the same seed gives the same trace hash and summary',
    (preset) => {
      const a = runRtype({ ...SHORT, preset }, 42);
      const b = runRtype({ ...SHORT, preset }, 42);
      expect(a.traceHash).toMatch(/^[0-9a-f]{64}$/);
      expect(b.traceHash).toBe(a.traceHash);
      expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    },
  );

  it('a different seed gives a different trace hash', () => {
    expect(runRtype(SHORT, 1).traceHash).not.toBe(runRtype(SHORT, 2).traceHash);
  });

  it('a different preset on the same seed gives a different trace hash', () => {
    expect(runRtype({ ...SHORT, preset: 'documented' }, 1).traceHash).not.toBe(
      runRtype({ ...SHORT, preset: 'implemented' }, 1).traceHash,
    );
  });
});

describe('rtype session: summary', () => {
  const s = runRtype({ ...SHORT, durationMs: 20_000 }, 5);

  it('is plain JSON with schema bcsim.rtype/1', () => {
    expect(s.schema).toBe(RTYPE_SUMMARY_SCHEMA);
    expect(RTYPE_SUMMARY_SCHEMA).toBe('bcsim.rtype/1');
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
  });

  it('samples the store and pending lists once per simulated second', () => {
    expect(s.series.tMs).toEqual(Array.from({ length: 20 }, (_, i) => (i + 1) * 1000));
    for (const key of [
      'storeSize',
      'pendingTotal',
      'pendingMaxPerUser',
      'danglingEntries',
      'resendDatagrams',
      'maxResendsPerFrame',
    ] as const)
      expect(s.series[key]).toHaveLength(20);
    expect(s.store.peak).toBe(Math.max(...s.series.storeSize, s.store.final));
    expect(s.series.resendDatagrams.reduce((n, v) => n + v, 0)).toBeLessThanOrEqual(s.resends.datagrams);
  });

  it('accounts every pair and every byte', () => {
    const d = s.deaths;
    expect(d.delivered + d.lost + d.inFlight).toBe(d.pairs);
    expect(d.perClient.map((c) => c.due).reduce((n, v) => n + v, 0)).toBe(d.pairs);
    const server = s.wire.serverDatagrams;
    expect(server.critical + server.resend + server.position).toBe(s.wire.udpServerToClient.datagrams);
    expect(s.wire.perClient.reduce((n, c) => n + c.udpServerToClient.bytes, 0)).toBe(s.wire.udpServerToClient.bytes);
    expect(
      s.wire.udpServerToClient.datagrams + s.wire.udpClientToServer.datagrams + s.wire.tcpClientToServer.datagrams,
    ).toBe(s.wireRecords);
    // One TCP confirmation per death copy received with a non-zero ack (documented: TCP, 5 bytes each).
    expect(s.wire.tcpClientToServer.bytes).toBe(5 * s.confirmations.received.tcp);
    expect(s.resends.histogram.reduce((n, b) => n + b.frames, 0)).toBe(s.clock.frames);
  });

  it('the 30 Hz clock advances one tick per early frame', () => {
    expect(s.clock.periodUs).toBe(33_333);
    expect(s.clock.overrunFrames).toBe(0);
    expect(s.clock.ticks).toBe(s.clock.frames);
    expect(s.clock.frames).toBe(Math.ceil(20_000_000 / 33_333));
  });
});

describe('rtype session: config', () => {
  it('rtype-deaths validates, and fields merge over it', () => {
    expect(validateRtypeConfig(RTYPE_DEATHS)).toBe(RTYPE_DEATHS);
    const c = resolveRtypeConfig({
      clients: 2,
      workload: { burstSize: 3 },
      links: { serverToClient: { loss: { model: 'none' } } },
    });
    expect([c.clients, c.workload.burstSize, c.workload.burstsPerMinute]).toEqual([
      2,
      3,
      RTYPE_DEATHS.workload.burstsPerMinute,
    ]);
    expect(c.links.serverToClient.loss).toEqual({ model: 'none' });
    expect(c.links.serverToClient.latency).toEqual(RTYPE_DEATHS.links.serverToClient.latency);
  });

  it.each<[RtypeConfigInput, RegExp]>([
    [{ clients: 0 }, /clients is 0/],
    [{ durationMs: -1 }, /durationMs/],
    [{ preset: 'stock' as never }, /preset/],
    [{ switches: { noSuchSwitch: true } as never }, /unknown switch "noSuchSwitch"/],
    [{ switches: { ackZeroedOnSend: 'yes' } as never }, /ackZeroedOnSend/],
    [{ timing: { tickHz: 0 } }, /timing\.tickHz/],
    [{ workload: { burstSize: 0 } }, /workload\.burstSize/],
    [
      { links: { serverToClient: { loss: { model: 'bernoulli', probability: 2 } } } },
      /serverToClient.*loss\.probability/,
    ],
    [
      {
        links: {
          clientToServer: {
            dropRules: [{ scope: 'datagram', match: {}, firstN: null, probability: 1, fromMs: null, untilMs: null }],
          },
        },
      },
      /dropRules/,
    ],
    [{ tcp: { outages: [{ startMs: 5, endMs: 5 }] } }, /tcp\.outages\[0\]\.endMs/],
    [{ clients: 2, clientLinks: [null, null, null] }, /clientLinks/],
  ])('rejects %j', (input, message) => {
    expect(() => runRtype(input, 1)).toThrow(RtypeConfigError);
    expect(() => runRtype(input, 1)).toThrow(message);
  });

  it('counts, not crashes, when a limit is hit', () => {
    const s = runRtype(
      {
        durationMs: 5_000,
        clients: 2,
        preset: 'implemented',
        limits: { maxStoreEntries: 3 },
        workload: { scriptedBursts: [{ atMs: 2_000, size: 10 }] },
        links: { serverToClient: PERFECT_LINK, clientToServer: PERFECT_LINK },
      },
      1,
    );
    expect(s.limits.storeLimitHits).toBeGreaterThan(0);
    expect(s.store.peak).toBeLessThanOrEqual(3);
  });
});
