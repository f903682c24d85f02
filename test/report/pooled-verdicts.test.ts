// A verdict pooled over both ends (the larger peak, or the sum of sends) must not
// hide one end's move: in valentines, reset-count leaves the larger dead-zone peak
// (the client's) where it was while the server's falls; the line says so.
import { describe, expect, it } from 'vitest';
import { runComparison } from '../../src/analysis/report/compare.js';
import { verdicts } from '../../src/analysis/report/verdict.js';
import { loadScenario } from '../../src/model/scenario/load.js';

describe('verdicts pooled over both ends', () => {
  it('name the end whose move the pooled figure hides, with its figures', () => {
    const ab = runComparison(loadScenario('valentines'), {
      durationUs: 600_000_000,
      modes: [
        { label: 'A', preset: 'stock' },
        { label: 'B', preset: 'stock', switches: { ackRefresh: 'reset-count' } },
      ],
    });
    const zone = (run: number, end: 'server' | 'client') => ab.runs[run].summary.peers[end].ackOutboxDeadZone.max;
    // The case: the larger peak (the client's) stays, the server's falls.
    expect(zone(0, 'client')).toBe(zone(1, 'client'));
    expect(zone(0, 'client')).toBeGreaterThan(zone(0, 'server'));
    expect(zone(1, 'server')).toBeLessThan(zone(0, 'server'));
    expect(verdicts(ab).find((l) => l.startsWith('dead zone:'))).toBe(
      `dead zone: B peaks the same (${zone(0, 'client')}), but at the server alone ${zone(0, 'server')} → ${zone(1, 'server')} in B`,
    );
  });

  it('add nothing when every end moves with the pooled figure, or not at all', () => {
    const plain = verdicts(runComparison(loadScenario('fragment-ack-bug'), { durationUs: 60_000_000 }));
    const pooled = plain.filter((l) => /^(outbox|dead zone|dedup|memory|ACK bytes|retransmits):/.test(l));
    expect(pooled).toHaveLength(6);
    for (const l of pooled) expect(l).not.toContain('alone');
  });
});
