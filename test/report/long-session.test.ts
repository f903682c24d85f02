// `compare long-session` at its full 4 h.
import { describe, expect, it } from 'vitest';
import { decodeDatagram } from '../../src/core/codec/index.js';
import { runComparison } from '../../src/analysis/report/compare.js';
import { findings } from '../../src/analysis/report/narrative.js';
import { loadScenario } from '../../src/model/scenario/load.js';
import { runScenario } from '../../src/model/session/run.js';
import type { SessionObserver } from '../../src/model/session/observer.js';
import type { Role } from '../../src/model/transport/roles.js';

const scenario = loadScenario('long-session');

describe('compare long-session, 4 h', () => {
  const comparison = runComparison(scenario);
  const [stock, fixed] = comparison.runs.map((r) => r.summary);

  it('stock peaks higher than fixed: ACK-outbox, dead zone, dedup comparisons per message', () => {
    expect(comparison.durationUs).toBe(4 * 3600 * 1e6);
    for (const role of ['server', 'client'] as const) {
      const s = stock.peers[role];
      const f = fixed.peers[role];
      expect(s.ackOutbox.max).toBeGreaterThan(f.ackOutbox.max);
      expect(s.ackOutboxDeadZone.max).toBeGreaterThan(f.ackOutboxDeadZone.max);
      expect(s.dedupComparisons.maxPerMessage).toBeGreaterThan(f.dedupComparisons.maxPerMessage);
      expect(f.dedupComparisons.maxPerMessage).toBeLessThanOrEqual(1);
      expect(f.ackOutboxDeadZone.max).toBe(0);
    }
  });

  it('the report states the differences in numbers', () => {
    const text = findings(comparison).join(' ');
    expect(text).toContain(
      `stock ACK-outbox peaked at ${stock.peers.server.ackOutbox.max} entries on the server and ${stock.peers.client.ackOutbox.max} on the client`,
    );
    expect(text).toContain(
      `fixed peaked at ${fixed.peers.server.ackOutbox.max} and ${fixed.peers.client.ackOutbox.max} with none stranded`,
    );
    expect(text).toContain(
      `up to ${Math.max(stock.peers.server.dedupComparisons.maxPerMessage, stock.peers.client.dedupComparisons.maxPerMessage)} comparisons`,
    );
  });
});

describe('fixed ACK-outbox bound', () => {
  it('never holds more entries than the reliable messages received in one 3-send lifetime', () => {
    // An entry lives from its creation to its 3rd send: 2 resends 8 updates apart
    // (0.667 s rounded up to 95 ms updates), plus up to one update of waiting.
    const lifetimeUs = (2 * 8 + 1) * 95_000;
    const arrivals: Record<Role, number[]> = { server: [], client: [] };
    const observer: SessionObserver = {
      datagramArrived(t, to, bytes) {
        const d = decodeDatagram(bytes);
        if (d.ok) for (const m of d.datagram.messages) if (m.type !== 1 && m.reliable) arrivals[to].push(t);
      },
    };
    const { summary } = runScenario(scenario, { preset: 'fixed', observer, durationUs: 3600e6 });
    for (const role of ['server', 'client'] as const) {
      const times = arrivals[role];
      let most = 0;
      for (let i = 0, j = 0; i < times.length; i++) {
        while (times[i] - times[j] > lifetimeUs) j++;
        most = Math.max(most, i - j + 1);
      }
      expect(most).toBeGreaterThan(5);
      expect(summary.peers[role].ackOutbox.max).toBeLessThanOrEqual(most);
    }
  });
});
