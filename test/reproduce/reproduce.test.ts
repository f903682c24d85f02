// Issue 6 acceptance for `bcsim reproduce`.
import { describe, expect, it } from 'vitest';
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

  it('sets each measured figure beside the model', () => {
    expect(r.code).toBe(0);
    expect(result.join.map((s: { peer: string; atSeconds: number; observed: number }) => [s.peer, s.atSeconds, s.observed])).toEqual([
      ['server', 0, 2],
      ['server', 3, 4],
      ['server', 6, 10],
      ['server', 9, 11],
      ['client', 2, 12],
      ['client', 5, 13],
    ]);
    for (const s of result.join) expect(Number.isInteger(s.model)).toBe(true);
    expect(result.session34min.observedMin).toBe(20);
    expect(result.session34min.observedMax).toBe(33);
    expect(result.session34min.clientMax).toBeGreaterThan(0);
  });

  it('reproduces "3 sends, then silence until the disconnect" only for a short quiet period without fragment retransmits', () => {
    const matching = result.quiet.filter((q: { matchesObservation: boolean }) => q.matchesObservation).map((q: { label: string }) => q.label);
    expect(matching).toEqual(['same, without fragment retransmits']);
    const q = result.quiet[1];
    expect(q.sendsBeforeQuiet).toBe(3);
    expect(q.inDisconnectDatagram).toBe(true);
    const gaps = q.ackSendTimes.slice(1, 3).map((t: number, i: number) => t - q.ackSendTimes[i]);
    for (const g of gaps) expect(g).toBeCloseTo(0.76, 2);
  });

  it('finds the traffic at which the stock dead zone stops being bounded', () => {
    const measured = result.sweep[0];
    expect(measured.reliablePerSecond).toBe(4.9);
    expect(measured.leak).toBe(false);
    const leaking = result.sweep.filter((p: { leak: boolean }) => p.leak);
    expect(leaking.length).toBeGreaterThan(0);
    expect(leaking[0].outboxFinal).toBeGreaterThan(10 * measured.outboxMax);
    expect(result.explanation.join(' ')).toContain(`From ${leaking[0].reliablePerSecond} reliable/s`);
  });
});
