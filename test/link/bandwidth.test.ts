import { describe, expect, it } from 'vitest';
import { datagram, game, harness, linkConfig, sendEvery } from './helpers.js';

const RATE = 100_000; // bytes per second
const PACKET = datagram([game(0, 200)]);
const B = PACKET.length; // 207 bytes

function limited(burstBytes: number, queueLimitPackets: number) {
  return harness(linkConfig({ bandwidth: { bytesPerSecond: RATE, burstBytes, queueLimitPackets } }));
}

describe('token bucket', () => {
  it('a full bucket lets a burst through at once; the next datagram waits for the missing bytes', () => {
    const h = limited(1_500, 100);
    for (let i = 0; i < 9; i++) h.link.send(PACKET, [i]);
    h.sim.runUntilIdle();
    const times = h.arrivals.map((a) => a.atUs);
    // 7 × 207 = 1449 <= 1500; the 8th needs 8×207 − 1500 = 156 more bytes: 1560 µs; the 9th one packet later.
    expect(times).toEqual([0, 0, 0, 0, 0, 0, 0, 1_560, 1_560 + Math.ceil((B * 1e6) / RATE)]);
  });

  it('a datagram larger than the burst still passes, after refilling up to its size', () => {
    const h = limited(100, 10);
    h.link.send(PACKET, [0]);
    h.sim.runUntilIdle();
    expect(h.arrivals[0].atUs).toBe(Math.ceil(((B - 100) * 1e6) / RATE));
  });

  it('holds its rate under 2× overload and tail-drops past the queue limit', () => {
    const burst = 1_500;
    const limit = 30;
    const h = limited(burst, limit);
    const intervalUs = Math.round((B * 1e6) / (2 * RATE)); // offered load 2× the rate
    const n = 2_000;
    sendEvery(h, n, intervalUs, () => PACKET);
    const k = h.link.counters;
    expect(k.droppedBy.queue).toBeGreaterThan(0);
    expect(k.delivered + k.droppedBy.queue).toBe(n);

    // Cumulative bytes out never exceed burst + rate·t, and whenever a datagram had
    // to wait (the bucket was the bottleneck) they are within one packet of it.
    let cumulative = 0;
    for (const a of h.arrivals) {
      cumulative += a.bytes.length;
      const allowance = burst + (RATE * a.atUs) / 1e6;
      expect(cumulative).toBeLessThanOrEqual(allowance + 1e-6);
      if (a.atUs > a.sentAtUs) expect(cumulative).toBeGreaterThan(allowance - B);
    }
    // Throughput over the busy period (from the first datagram that had to wait): rate within one packet.
    const busy = h.arrivals.filter((a) => a.atUs > a.sentAtUs);
    const first = busy[0];
    const last = busy[busy.length - 1];
    const bytes = busy.slice(1).reduce((s, a) => s + a.bytes.length, 0);
    const seconds = (last.atUs - first.atUs) / 1e6;
    expect(seconds).toBeGreaterThan(2);
    expect(Math.abs(bytes / seconds - RATE)).toBeLessThan(B / seconds);

    // Queue discipline: an admitted datagram found fewer than `limit` waiting; a dropped one found exactly `limit`.
    const waitingAt = (tUs: number, before: number) =>
      h.arrivals.filter((a) => a.uids[0] < before && a.sentAtUs <= tUs && a.atUs > tUs).length;
    for (const a of h.arrivals) expect(waitingAt(a.sentAtUs, a.uids[0])).toBeLessThan(limit);
    for (const d of h.drops.slice(0, 50)) {
      expect(d.cause).toBe('queue');
      expect(waitingAt(d.atUs, d.uids[0])).toBe(limit);
    }
  });

  it('under the rate nothing waits once the burst allowance covers the spacing', () => {
    const h = limited(1_500, 0);
    sendEvery(h, 1_000, Math.ceil((B * 1e6) / RATE) + 1, () => PACKET);
    expect(h.link.counters.dropped).toBe(0);
    for (const a of h.arrivals) expect(a.atUs).toBe(a.sentAtUs);
  });
});
