// Issue 6 acceptance for `bcsim reproduce`.
import { describe, expect, it } from 'vitest';
import { STOCK_READING } from '../../src/reproduce/readings.js';
import { READINGS_BEFORE_ISSUE_10, resolveSwitches } from '../../src/transport/switches.js';
import { Chalk } from 'chalk';
import { renderAckOutboxReproduction } from '../../src/report/reproduce-table.js';
import { cli } from '../support/cli.js';

describe('bcsim reproduce fragment-ack', async () => {
  const r = await cli(['reproduce', 'fragment-ack', '--json']);
  const result = JSON.parse(r.stdout);
  const byCause = Object.fromEntries(result.hypotheses.map((h: { cause: string }) => [h.cause, h]));

  it('prints one JSON object with a hypothesis per cause, plus none', () => {
    expect(r.code).toBe(0);
    expect(result.hypotheses.map((h: { cause: string }) => h.cause)).toEqual([
      'none',
      'ack-format-mismatch',
      'partial-ack',
      'retransmit-reentry',
      'retransmit-all',
      'matcher-rejects-fragments',
    ]);
    for (const h of result.hypotheses) {
      expect(Object.keys(h)).toEqual(['cause', 'criteria', 'matches']);
      expect(Object.keys(h.criteria)).toHaveLength(5);
    }
  });

  it('matcher-rejects-fragments matches the observed signature on every criterion', () => {
    const h = byCause['matcher-rejects-fragments'];
    expect(h.matches).toBe(true);
    expect(Object.values(h.criteria).every((c) => (c as { pass: boolean }).pass)).toBe(true);
  });

  it('ack-format-mismatch fails criterion 5 (the capture shows 5-byte fragment ACKs)', () => {
    const h = byCause['ack-format-mismatch'];
    expect(h.matches).toBe(false);
    expect(h.criteria.fragmentAcksWellFormed.pass).toBe(false);
    expect(h.criteria.fragmentAcksWellFormed.measured).toMatch(/^0\/3 indices, \d+ bad$/);
  });

  it('none (= fixed) does not match, and every other cause fails at least one criterion', () => {
    expect(byCause.none.matches).toBe(false);
    for (const cause of ['partial-ack', 'retransmit-reentry', 'retransmit-all']) {
      expect(byCause[cause].matches).toBe(false);
      expect(Object.values(byCause[cause].criteria).some((c) => !(c as { pass: boolean }).pass)).toBe(true);
    }
  });

  it('reruns every cause under loss and says which stay distinguishable', () => {
    expect(result.lossy.loss).toBe(0.2);
    expect(result.lossy.hypotheses).toHaveLength(6);
    expect([...result.lossy.distinguishable, ...result.lossy.indistinguishable].sort()).toEqual(
      ['ack-format-mismatch', 'none', 'partial-ack', 'retransmit-all', 'retransmit-reentry'].sort(),
    );
    expect(result.lossy.hypotheses.find((h: { cause: string }) => h.cause === 'matcher-rejects-fragments').matches).toBe(true);
  });

  it('the table names the failing criterion of each cause', async () => {
    const table = await cli(['reproduce', 'fragment-ack']);
    const row = table.stdout.split('\n').find((l) => l.includes('ack-format-mismatch')) as string;
    const cells = row.split('│').map((c) => c.trim());
    expect(cells[6]).toMatch(/^✗ 0\/3 indices/); // criterion 5
    expect(cells[7]).toBe('no');
    expect(table.stdout.split('\n').find((l) => l.includes('matcher-rejects-fragments'))).toContain('MATCH');
  });
});

describe('bcsim reproduce ack-outbox', async () => {
  const r = await cli(['reproduce', 'ack-outbox', '--json']);
  const result = JSON.parse(r.stdout);
  type Row = { name: string; switches: Record<string, unknown>; criteria: Record<string, { value: string; expected: string; matches: boolean }>; matched: number };
  const rows: Row[] = result.hypotheses;
  const row = (name: string) => rows.find((h) => h.name === name) as Row;

  it('has a hypotheses array (reading, switch values, one cell per criterion) and a best field', () => {
    expect(r.code).toBe(0);
    expect(rows.length).toBeGreaterThanOrEqual(9);
    for (const name of ['queued-reliable', 'outside-queues', 'unreliable', 'lifetime', 'lifetime+unreliable-outside']) expect(row(name)).toBeDefined();
    for (const h of rows) {
      expect(Object.keys(h.criteria)).toEqual(result.criteria.map((c: { key: string }) => c.key));
      for (const c of Object.values(h.criteria)) expect(Object.keys(c)).toEqual(['value', 'expected', 'matches']);
      expect(h.matched).toBe(Object.values(h.criteria).filter((c) => c.matches).length);
      expect(h.switches).toHaveProperty('keepalive');
      expect(h.switches).toHaveProperty('messageLifetime');
    }
    expect(result.best.matched).toBe(Math.max(...rows.map((h) => h.matched)));
    expect(result.best.readings).toEqual(rows.filter((h) => h.matched === result.best.matched).map((h) => h.name));
  });

  it('the stock preset uses a best-matching reading', () => {
    expect(result.best.readings).toContain(STOCK_READING);
    const stock = resolveSwitches('stock');
    const chosen = row(STOCK_READING).switches;
    for (const key of Object.keys(READINGS_BEFORE_ISSUE_10)) expect([key, stock[key as keyof typeof stock]]).toEqual([key, chosen[key]]);
  });

  it('messages kept all session fill the quiet before a Disconnect with fragment re-sends; the peer-timeout lifetime does not', () => {
    expect(row('queued-reliable').criteria.threeThenSilence.matches).toBe(false);
    expect(row('lifetime').criteria.threeThenSilence).toMatchObject({ value: '3 sends, then 0 datagrams before the Disconnect', matches: true });
    expect(row('queued-reliable').criteria.fragmentsWholeSession.matches).toBe(true);
    expect(row('lifetime').criteria.fragmentsWholeSession.matches).toBe(false);
  });

  it('only a keepalive that never opens the gate leaves the dead zone where the combat left it', () => {
    expect(row('lifetime+unreliable-outside').criteria.quietLobbyPersists.matches).toBe(true);
    for (const name of ['queued-reliable', 'unreliable', 'lifetime', 'lifetime+unreliable']) expect(row(name).criteria.quietLobbyPersists.matches).toBe(false);
  });

  it('95 ms updates space the ACK resends 0.760 s apart; the loopback update periods give ~0.667 s', () => {
    expect(row('before-issue-10').criteria.ackSpacing).toMatchObject({ value: '0.760 s', matches: false });
    expect(row('lifetime').criteria.ackSpacing).toMatchObject({ value: '0.670 s', matches: true });
  });

  it('names the criteria no reading matches instead of choosing silently', () => {
    const keys = result.unmatched.map((u: { key: string }) => u.key);
    for (const key of keys) expect(rows.every((h) => !h.criteria[key].matches)).toBe(true);
    expect(keys).toContain('keepalives34');
    expect(keys).not.toContain('outboxPeak34');
  });

  it('measures the 34-minute figures on the 3-player valentines, per connection, with no multiplying', () => {
    // Issue 12: one connection of the aggregate peaked at 17; three connections put every client at 20-33.
    for (const h of rows) expect(h.criteria.outboxPeak34.matches).toBe(true);
    expect(row('lifetime+unreliable-outside').criteria.outboxPeak34.value).toMatch(/^S \d+ · C 2\d \(worst of 3\)$/);
  });

  it('counts re-send rounds even when they leave no pause (1 s re-sends of fragments 10 ms apart)', () => {
    expect(row('timing-notes').criteria.fragmentRounds.value).toBe('9 rounds, 1.01 s');
    expect(row('timing-notes').criteria.checksumResends34).toMatchObject({ value: '27 re-sent messages', matches: true });
  });

  it('sweeps both peers at two update periods and finds the runaway where the load passes capacity', () => {
    const points = result.sweep.points as Array<{ updatePeriodMs: number; reliablePerSecond: number; capacityBytesPerSecond: number; peers: Record<string, { leak: boolean; load: number }> }>;
    expect(new Set(points.map((p) => p.updatePeriodMs))).toEqual(new Set([95, 33]));
    for (const p of points) {
      for (const role of ['server', 'client']) {
        // The relation the sweep reports: an outbox runs away exactly when its load is above capacity.
        expect([p.updatePeriodMs, p.reliablePerSecond, role, p.peers[role].leak]).toEqual([p.updatePeriodMs, p.reliablePerSecond, role, p.peers[role].load > 1]);
      }
    }
    const at = (ms: number) => result.sweep.capacity.find((c: { updatePeriodMs: number }) => c.updatePeriodMs === ms);
    expect(at(95).capacityBytesPerSecond).toBe(5368);
    expect(at(33).capacityBytesPerSecond).toBe(15455);
    // The threshold moves with the update period.
    expect(at(33).runawayFrom.server).toBeGreaterThan(at(95).runawayFrom.server);
    expect(result.explanation.join(' ')).toContain('510 B × 1 datagram per update = 5,368 B/s');
  });

  it('runs every rate with every seed (issue 15: built on the sweep grid) and sums each rate up over the seeds, per peer', () => {
    const seeds: number[] = result.sweep.seeds;
    expect(seeds).toEqual([1, 2, 3]);
    const points = result.sweep.points as Array<{ index: number; updatePeriodMs: number; reliablePerSecond: number; seed: number; peers: Record<string, { outboxMax: number; leak: boolean }> }>;
    const ranges = result.sweep.ranges as Array<{ updatePeriodMs: number; reliablePerSecond: number; peers: Record<string, { outboxMax: { min: number; median: number; max: number }; leakingSeeds: number; seeds: number }> }>;
    expect(ranges).toHaveLength(11);
    expect(points).toHaveLength(11 * seeds.length);
    for (const range of ranges) {
      const mine = points.filter((p) => p.updatePeriodMs === range.updatePeriodMs && p.reliablePerSecond === range.reliablePerSecond);
      // The sweep grid's order: seeds innermost.
      expect(mine.map((p) => p.seed)).toEqual(seeds);
      for (const role of ['server', 'client']) {
        const peaks = mine.map((p) => p.peers[role].outboxMax).sort((a, b) => a - b);
        expect([range.reliablePerSecond, role, range.peers[role].outboxMax]).toEqual([range.reliablePerSecond, role, { min: peaks[0], median: peaks[1], max: peaks[2], n: 3 }]);
        expect(range.peers[role].leakingSeeds).toBe(mine.filter((p) => p.peers[role].leak).length);
      }
    }
    // Seeds differ: the sweep is not one run shown three times.
    expect(new Set(points.filter((p) => p.reliablePerSecond === 30).map((p) => p.peers.server.outboxMax)).size).toBeGreaterThan(1);
  });

  it('prints the table with the best reading marked', () => {
    const table = renderAckOutboxReproduction(result, new Chalk({ level: 0 }));
    expect(table).toContain('BEST');
    expect(table).toContain(STOCK_READING);
    expect(table).toContain('No reading matches');
    // Both peers and every seed of each rate: "outbox max, seed 1 · 2 · 3" holds the three peaks.
    expect(table).toContain('outbox max, seed 1 · 2 · 3');
    const row = table.split('\n').find((l) => /│ 95\s+│ 30\s+│ client/.test(l)) as string;
    const peaks = result.sweep.points.filter((p: { updatePeriodMs: number; reliablePerSecond: number }) => p.updatePeriodMs === 95 && p.reliablePerSecond === 30).map((p: { peers: { client: { outboxMax: number } } }) => p.peers.client.outboxMax);
    expect(row).toContain(peaks.join(' · '));
  });

  it('fits 120 columns: every reading against every observation as marks, the stock reading\'s values, --json for the rest', () => {
    const table = renderAckOutboxReproduction(result, new Chalk({ level: 0 }));
    const widest = Math.max(...table.split('\n').map((l) => [...l].length));
    expect(widest).toBeLessThanOrEqual(120);
    // One row of marks per reading, one mark per observation.
    for (const [i, h] of rows.entries()) {
      const line = table.split('\n').find((l) => l.startsWith(`  ${String(i + 1).padStart(2)}. ${h.name} `) && /[✓✗]/.test(l)) as string;
      expect(line.match(/[✓✗]/g)).toHaveLength(result.criteria.length);
    }
    expect(table).toContain(`measured: ${STOCK_READING}`);
    expect(table).toContain(row(STOCK_READING).criteria.ackSpacing.value);
  });

  it('is not silent when stderr is not a terminal: a progress line per reading and per swept rate', () => {
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines.length).toBe(rows.length + result.sweep.ranges.length);
    expect(lines[0]).toMatch(/^reproduce ack-outbox: 1\/\d+ runs, reading before-issue-10$/);
    expect(lines.at(-1)).toMatch(/^reproduce ack-outbox: \d+\/\d+ runs, sweep 33 ms, 480\/s$/);
  });
});
