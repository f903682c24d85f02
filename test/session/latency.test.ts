// Send-to-delivery latency per category and the anomaly list.
// Latency percentiles are computed correctly on a hand-built ledger.
import { describe, expect, it } from 'vitest';
import { decodeDatagram } from '../../src/core/codec/index.js';
import { formatSeconds } from '../../src/core/engine/time.js';
import { findings } from '../../src/analysis/report/narrative.js';
import { reportMarkdown } from '../../src/analysis/report/documents.js';
import { reportHtml } from '../../src/analysis/report/html.js';
import { runComparison } from '../../src/analysis/report/compare.js';
import { loadScenario } from '../../src/model/scenario/load.js';
import { ANOMALIES_LISTED_PER_KIND, DeliveryLedger, LatencyHistogram } from '../../src/model/session/ledger.js';
import type { SessionObserver } from '../../src/model/session/observer.js';
import { runScenario } from '../../src/model/session/run.js';

/** A ledger on a hand-set clock (µs). */
function handBuilt() {
  const clock = { now: 0 };
  const ledger = new DeliveryLedger(() => clock.now);
  return { clock, ledger };
}

/** Nearest rank: the smallest value with at least q of all values at or below it. */
function nearestRank(sorted: number[], q: number): number {
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1];
}

/** A small deterministic generator (no Math.random in tests). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('latency percentiles on a hand-built ledger', () => {
  it('1..100 ms, one message each, sent 10 ms apart and delivered in turn: p50 50 ms, p99 99 ms, max 100 ms', () => {
    const { clock, ledger } = handBuilt();
    const sends: Array<{ uid: number; deliverAt: number }> = [];
    for (let i = 1; i <= 100; i++) {
      clock.now = i * 10_000;
      sends.push({ uid: ledger.register('server', true, false, i), deliverAt: clock.now + i * 1000 });
    }
    for (const s of [...sends].sort((a, b) => a.deliverAt - b.deliverAt)) {
      clock.now = s.deliverAt;
      ledger.delivered(s.uid);
    }
    const { latencyMs } = ledger.stats();
    expect(latencyMs.high).toEqual({ count: 100, p50: 50, p99: 99, max: 100 });
    expect(latencyMs.low).toEqual({ count: 0, p50: 0, p99: 0, max: 0 }); // an empty category is all zero
  });

  it('below 512 µs every value is exact; categories are kept apart; a duplicate delivery is not a latency', () => {
    const { clock, ledger } = handBuilt();
    const uids = [100, 200, 300].map((lat) => ({ uid: ledger.register('client', true, true, 0), lat }));
    const high = ledger.register('client', true, false, 0);
    for (const { uid, lat } of uids) {
      clock.now = lat;
      ledger.delivered(uid);
    }
    clock.now = 7_000_000;
    ledger.delivered(high);
    ledger.delivered(uids[0].uid); // duplicate, 7 s later
    const { latencyMs, duplicateDeliveries } = ledger.stats();
    expect(latencyMs.low).toEqual({ count: 3, p50: 0.2, p99: 0.3, max: 0.3 });
    expect(latencyMs.high).toEqual({ count: 1, p50: 7000, p99: 7000, max: 7000 });
    expect(duplicateDeliveries).toBe(1);
  });

  it('20,000 latencies from 1 µs to 10 min: every percentile within 1/256 of the exact nearest rank, max exact', () => {
    const { clock, ledger } = handBuilt();
    const random = lcg(11);
    const pending: Array<{ uid: number; at: number }> = [];
    const latencies: number[] = [];
    for (let i = 0; i < 20_000; i++) {
      clock.now = i * 500; // sends in time order, as in a run
      const latency = Math.floor(Math.exp(random() * Math.log(600e6))); // log-uniform, 1 µs .. 10 min
      latencies.push(latency);
      pending.push({ uid: ledger.register('server', true, false, i & 0xffff), at: clock.now + latency });
    }
    pending.sort((a, b) => a.at - b.at || a.uid - b.uid);
    for (const p of pending) {
      clock.now = p.at;
      ledger.delivered(p.uid);
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    const s = ledger.stats().latencyMs.high;
    expect(s.count).toBe(20_000);
    expect(s.max).toBe(sorted[sorted.length - 1] / 1000);
    expect(Math.abs(s.p50 * 1000 - nearestRank(sorted, 0.5))).toBeLessThanOrEqual(nearestRank(sorted, 0.5) / 256);
    expect(Math.abs(s.p99 * 1000 - nearestRank(sorted, 0.99))).toBeLessThanOrEqual(nearestRank(sorted, 0.99) / 256);
    // The histogram itself, at more ranks.
    const h = new LatencyHistogram();
    for (const v of latencies) h.record(v);
    for (const q of [0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1]) {
      const exact = nearestRank(sorted, q);
      expect(Math.abs(h.percentile(q) - exact), `q ${q}`).toBeLessThanOrEqual(exact / 256);
    }
  });

  it('buckets tile the integers: each value lies in its own bucket, at most 1/256 of its value wide', () => {
    const values = [
      0,
      1,
      511,
      512,
      513,
      1023,
      1024,
      65_535,
      65_536,
      94_975,
      2 ** 31 - 1,
      2 ** 31,
      2 ** 32 - 1,
      2 ** 32,
      2 ** 32 + 12_345,
      2 ** 42 + 7,
    ];
    for (const v of values) {
      const [low, width] = LatencyHistogram.bounds(LatencyHistogram.index(v));
      expect(v, `value ${v}`).toBeGreaterThanOrEqual(low);
      expect(v, `value ${v}`).toBeLessThan(low + width);
      expect(width === 1 || width <= low / 256, `value ${v}`).toBe(true);
    }
    for (let i = 1; i < LatencyHistogram.BUCKETS; i++) {
      const [low, width] = LatencyHistogram.bounds(i - 1);
      expect(LatencyHistogram.bounds(i)[0]).toBe(low + width);
    }
  });

  it('send times past 2^32 µs (71.6 min) keep their full value: latencies stay exact hours into a run', () => {
    const { clock, ledger } = handBuilt();
    const times = [5_000_000, 4_400_000_000, 20_000_000_000, 20_000_000_001];
    const uids = times.map((t) => {
      clock.now = t;
      return ledger.register('server', true, false, 0);
    });
    times.forEach((t, i) => expect(ledger.sentAtUs(uids[i])).toBe(t));
    clock.now = 20_000_250_000;
    for (const uid of uids) ledger.delivered(uid);
    const s = ledger.stats().latencyMs.high;
    expect(s.max).toBe((20_000_250_000 - 5_000_000) / 1000);
    expect(s.count).toBe(4);
  });
});

describe('anomalies on a hand-built ledger', () => {
  it('lists lost, swallowed, duplicate and out-of-order messages with seq, category and times; counts add up', () => {
    const { clock, ledger } = handBuilt();
    const at = (t: number) => (clock.now = t);
    at(1_000);
    const lost = ledger.register('client', true, false, 40); // given up, never delivered
    const late = ledger.register('server', true, false, 41); // given up, then delivered after all: not lost
    at(2_000);
    const swallowed = ledger.register('server', true, true, 7); // ACKed, never delivered, held nowhere
    const held = ledger.register('server', true, true, 8); // ACKed, still in a receive buffer: in flight
    const early = ledger.register('client', true, false, 42);
    const later = ledger.register('client', true, false, 43);
    at(3_000);
    ledger.delivered(later);
    at(3_500);
    ledger.delivered(early); // after a later message of its lane: out of order
    at(4_000);
    ledger.delivered(later); // again: a duplicate
    at(9_000);
    ledger.gaveUp(lost);
    ledger.gaveUp(lost); // a second fragment given up: the first time stands
    ledger.gaveUp(late);
    at(9_500);
    ledger.acknowledged(swallowed);
    ledger.acknowledged(held);
    at(12_000);
    ledger.delivered(late);
    const d = ledger.stats(new Set([held]));
    expect([d.reliableSent, d.reliableDelivered, d.reliableLost, d.reliableSwallowed, d.reliableInFlight]).toEqual([
      6, 3, 2, 1, 1,
    ]);
    expect(d.anomalies.counts).toEqual({ lost: 1, swallowed: 1, duplicate: 1, outOfOrder: 1 });
    expect(d.anomalies.truncated).toBe(false);
    expect(d.anomalies.list).toEqual([
      {
        kind: 'out-of-order',
        uid: early,
        from: 'client',
        client: 1,
        category: 'high',
        seq: 42,
        sentAtMs: 2,
        atMs: 3.5,
      },
      { kind: 'duplicate', uid: later, from: 'client', client: 1, category: 'high', seq: 43, sentAtMs: 2, atMs: 4 },
      { kind: 'lost', uid: lost, from: 'client', client: 1, category: 'high', seq: 40, sentAtMs: 1, atMs: 9 },
      { kind: 'swallowed', uid: swallowed, from: 'server', client: 1, category: 'low', seq: 7, sentAtMs: 2, atMs: 9.5 },
    ]);
  });

  it(`lists the earliest ${ANOMALIES_LISTED_PER_KIND} of each kind and says it is truncated`, () => {
    const { clock, ledger } = handBuilt();
    const uids: number[] = [];
    for (let i = 0; i < 40; i++) {
      clock.now = i * 1000;
      uids.push(ledger.register('server', true, false, i));
    }
    // Given up latest-first: the list still holds the earliest give-ups.
    for (let i = 39; i >= 0; i--) {
      clock.now = 100_000 + (39 - i) * 1000;
      ledger.gaveUp(uids[i]);
    }
    const { anomalies } = ledger.stats();
    expect(anomalies.counts.lost).toBe(40);
    expect(anomalies.truncated).toBe(true);
    expect(anomalies.list).toHaveLength(ANOMALIES_LISTED_PER_KIND);
    expect(anomalies.list.map((a) => a.seq)).toEqual(
      Array.from({ length: ANOMALIES_LISTED_PER_KIND }, (_, k) => 39 - k),
    );
    expect(anomalies.list.map((a) => a.atMs)).toEqual(
      Array.from({ length: ANOMALIES_LISTED_PER_KIND }, (_, k) => 100 + k),
    );
  });
});

// The DISCONNECT reproduction of test/session/fixed-promise.test.ts: stock (immediate close) swallows ACKed data.
const DISCONNECT_SETS = [
  'traffic.phases=["join",{"kind":"combat","duration":"60s","reliablePerSecond":"measured"},"disconnect"]',
  'transport.updatePeriodMs={"server":95,"client":95}',
];

describe('a real run', () => {
  const scenario = loadScenario('fragment-ack-bug', { loss: 0.05, sets: DISCONNECT_SETS });

  it('each listed message carries the seq it had on the wire and its send time; latencies are counted per first delivery', () => {
    const wire = new Map<number, { seq: number | null; firstUs: number }>();
    const observer: SessionObserver = {
      datagramSent(t, _from, bytes, uids) {
        const decoded = decodeDatagram(bytes);
        if (!decoded.ok) return;
        decoded.datagram.messages.forEach((m, i) => {
          if (uids[i] >= 0 && !wire.has(uids[i]) && 'seq' in m) wire.set(uids[i], { seq: m.seq, firstUs: t });
        });
      },
    };
    const { summary } = runScenario(scenario, { preset: 'stock', seed: 1, durationUs: 120e6, observer });
    const d = summary.delivery;
    expect(d.reliableLost).toBeGreaterThan(0);
    expect(d.anomalies.counts.lost + d.anomalies.counts.swallowed).toBe(d.reliableLost);
    expect(d.anomalies.counts.swallowed).toBe(d.reliableSwallowed);
    expect(d.anomalies.list.length).toBeGreaterThan(0);
    for (const a of d.anomalies.list) {
      const sent = wire.get(a.uid);
      expect(sent, `uid ${a.uid} was never on the wire`).toBeDefined();
      expect(a.seq).toBe(sent?.seq);
      expect(Math.round(a.sentAtMs * 1000)).toBeLessThanOrEqual(sent?.firstUs ?? -1);
      if (a.atMs !== null) expect(a.atMs).toBeGreaterThanOrEqual(a.sentAtMs);
    }
    expect(d.latencyMs.high.count + d.latencyMs.low.count).toBe(d.reliableDelivered);
    expect(d.latencyMs.high.p50).toBeGreaterThan(0);
    expect(d.latencyMs.high.p50).toBeLessThanOrEqual(d.latencyMs.high.p99);
    expect(d.latencyMs.high.p99).toBeLessThanOrEqual(d.latencyMs.high.max);
  });

  it("findings and both documents mention the lost messages, with the first one's seq and times", () => {
    const comparison = runComparison(scenario, { durationUs: 120e6, seed: 1 });
    const [stock, fixed] = comparison.runs.map((r) => r.summary.delivery);
    expect(stock.reliableLost).toBeGreaterThan(0);
    expect(fixed.reliableLost).toBe(0);
    const first = stock.anomalies.list.find((a) => a.kind === 'lost' || a.kind === 'swallowed');
    expect(first).toBeDefined();
    const sentence = findings(comparison).find((s) => s.startsWith('Reliable messages were lost'));
    expect(sentence).toContain(`stock ${stock.reliableLost} (${stock.reliableSwallowed} of them swallowed`);
    expect(sentence).toContain('fixed none');
    expect(sentence).toContain(`seq ${first?.seq}, sent at ${formatSeconds((first?.sentAtMs ?? 0) * 1000)} s`);
    const md = reportMarkdown(comparison);
    expect(md).toContain('## Anomalies');
    expect(md).toContain(`| stock | ${stock.anomalies.counts.lost} | ${stock.anomalies.counts.swallowed} | 0 | 0 |`);
    expect(md).toContain(`| stock | ${first?.kind} | ${first?.from} | ${first?.category} | ${first?.seq} |`);
    expect(md).toMatch(/\| send-to-delivery latency p99, high types \(ms\) \| [\d.,]+ \| [\d.,]+ \|/);
    const html = reportHtml(comparison);
    expect(html).toContain('<h2>Anomalies</h2>');
    expect(html).toContain(`<td>${first?.seq}</td>`);
  });

  it('no loss, no sentence', () => {
    const comparison = runComparison(loadScenario('fragment-ack-bug'), { durationUs: 20e6 });
    expect(comparison.runs.every((r) => r.summary.delivery.reliableLost === 0)).toBe(true);
    expect(findings(comparison).some((s) => s.includes('were lost'))).toBe(false);
    expect(reportMarkdown(comparison)).toContain('## Anomalies\n\nNone:');
  });
});
