// The MinuteMeter on simulated sessions: a stock server's two-pass outbox and
// its dead zone, minute by minute, against the model's own gauges; a fixed
// server shows no dead zone.
import { describe, expect, it } from 'vitest';
import { meterScenario } from '../../src/analysis/capture/minute-meter-model.js';
import { loadScenario } from '../../src/model/scenario/load.js';
import { micros } from '../../src/core/engine/index.js';

const scenario = loadScenario('valentines');
const TEN_MIN_US = micros(10 * 60 * 1_000_000);

describe('MinuteMeter: per-minute figures from the clients side of the wire', () => {
  const stock = meterScenario(scenario, { preset: 'stock', durationUs: TEN_MIN_US });
  const fixed = meterScenario(scenario, { preset: 'fixed', durationUs: TEN_MIN_US });

  it('a row per connection per minute, ten minutes of three clients', () => {
    expect(stock.meter.rows).toHaveLength(30);
    expect(new Set(stock.meter.rows.map((r) => r.connection))).toEqual(new Set([1, 2, 3]));
    expect(stock.meter.rows.every((r) => r.seconds === 60)).toBe(true);
  });

  it('the stock server reads as two-pass, with entries in its dead zone every minute; the fixed one has none', () => {
    for (const r of stock.meter.rows) {
      expect(r.serverAckBehaviour).toBe('two-pass');
      expect(r.serverDeadZonePeak).toBeGreaterThan(0);
      expect(r.serverAckOutboxPeak).toBeGreaterThanOrEqual(r.serverDeadZonePeak as number);
      expect(r.serverAckOutboxPeak).toBeGreaterThanOrEqual(r.serverAckOutbox as number);
    }
    for (const r of fixed.meter.rows.filter((x) => x.startS === 540)) {
      expect(r.serverAckBehaviour).not.toBe('two-pass');
      expect(r.serverDeadZone).toBeNull();
      expect(r.serverDeadZonePeak).toBeNull();
    }
  });

  it('rates, ACK latency and ACK bytes come from the wire', () => {
    const r = stock.meter.rows.find((x) => x.startS === 300 && x.connection === 1);
    expect(r?.datagramsPerS.serverToClient).toBeGreaterThan(5);
    expect(r?.bytesPerS.clientToServer).toBeGreaterThan(100);
    expect(r?.ackLatencyMs?.p50).toBeLessThan(200);
    expect(r?.ackBytesPerDatagram).toBeGreaterThan(0);
  });
});

describe('the ACK latency histogram', () => {
  it('quantiles at bucket edges, over a window taken as a difference', async () => {
    const { LatencyHistogram, latencyQuantileMs } = await import('../../src/analysis/capture/latency-histogram.js');
    const h = new LatencyHistogram();
    for (const ms of [5, 5, 5, 150, 2_500]) h.addUs(ms * 1000);
    expect(latencyQuantileMs(h.counts, null, 0.5)).toBe(5);
    expect(latencyQuantileMs(h.counts, null, 0.8)).toBe(150);
    expect(latencyQuantileMs(h.counts, null, 1)).toBe(2_500);
    const before = h.counts.slice();
    h.addUs(60_000_000);
    expect(latencyQuantileMs(h.counts, before, 0.5)).toBe(10_000);
    expect(latencyQuantileMs(h.counts, h.counts.slice(), 0.5)).toBeNull();
  });
});

describe('a session that ends inside a minute', () => {
  it('closes that minute as a partial one, with rates over its own length', () => {
    const run = meterScenario(scenario, { preset: 'stock', durationUs: micros(90 * 1_000_000) });
    const rows = run.meter.rows.filter((r) => r.connection === 1);
    expect(rows.map((r) => [r.startS, r.seconds])).toEqual([
      [0, 60],
      [60, 30],
    ]);
    expect(rows[1].datagramsPerS.serverToClient).toBeGreaterThan(5);
  });
});
