// `bcsim reproduce rtype`: one row per defect, on alone over
// repaired and off alone from implemented; one column per symptom, each measured
// with the library's own symptom tests. Each defect produces its symptom and only that.
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFECT_CLAIMS, TABLE_SYMPTOMS, reproduceRtype } from '../../src/analysis/reproduce/index.js';
import type { RtypeReproduction, RtypeReproductionRow } from '../../src/analysis/reproduce/index.js';
import { DEFECT_SWITCHES } from '../../src/rtype/transport/index.js';
import { cli } from '../support/cli.js';

// Short runs: 10 s is the shortest the table takes and still shows every symptom.
const OPTIONS = { durationMs: 10_000, seed: 1, loss: 0.2 };
let r: RtypeReproduction;
beforeAll(() => {
  r = reproduceRtype(OPTIONS);
}, 60_000);

const onAlone = (defect: string) =>
  r.rows.find((x) => x.kind === 'on-alone' && x.defect === defect) as RtypeReproductionRow;

describe('reproduce rtype: the table', () => {
  it('has a baseline and a row per defect for each direction, and a cell per symptom', () => {
    expect(r.rows).toHaveLength(2 * (1 + DEFECT_SWITCHES.length));
    expect(r.rows.filter((x) => x.kind === 'on-alone').map((x) => x.defect)).toEqual([...DEFECT_SWITCHES]);
    expect(r.rows.filter((x) => x.kind === 'off-alone').map((x) => x.defect)).toEqual([...DEFECT_SWITCHES]);
    expect(r.columns.map((c) => c.symptom)).toEqual([
      'noResend',
      'resendStorm',
      'deathsLost',
      'growingLists',
      'crossClientClear',
    ]);
    for (const row of r.rows) expect(Object.keys(row.cells)).toEqual([...TABLE_SYMPTOMS]);
  });

  it('repaired shows none of the five; implemented never re-sends and loses deaths', () => {
    const repaired = r.rows.find((x) => x.kind === 'baseline' && x.base === 'repaired')!;
    const implemented = r.rows.find((x) => x.kind === 'baseline' && x.base === 'implemented')!;
    expect(TABLE_SYMPTOMS.filter((s) => repaired.cells[s].shows)).toEqual([]);
    expect(TABLE_SYMPTOMS.filter((s) => implemented.cells[s].shows)).toEqual(['noResend', 'deathsLost']);
    expect(implemented.cells.noResend).toMatchObject({ value: 0 });
    expect(implemented.cells.noResend.detail).toBeGreaterThan(0); // deaths the downlinks dropped
    expect(implemented.cells.deathsLost.value).toBeGreaterThan(0);
    expect(implemented.cells.deathsLost.detail).toBe(0); // none reported: silently
    expect(r.reproduces).toBe(true);
  });

  it.each(DEFECT_SWITCHES)('%s on alone adds its symptoms, and only those', (defect) => {
    const row = onAlone(defect);
    const claim = DEFECT_CLAIMS[defect];
    const allowed = [...claim.adds, ...(claim.incidental ?? [])];
    expect(
      row.added.filter((s) => !allowed.includes(s)),
      'unexpected',
    ).toEqual([]);
    expect(
      claim.adds.filter((s) => !row.added.includes(s)),
      'missing',
    ).toEqual([]);
    expect(row.removed).toEqual([]);
    expect([...row.also].sort()).toEqual([...claim.also].sort());
    expect(row.asClaimed).toBe(true);
  });

  it('each shown cell carries the figure its test read', () => {
    expect(onAlone('resendEveryTickToAll').cells.resendStorm.value).toBeGreaterThan(0);
    expect(onAlone('silentDropAtExpiry').cells.growingLists.value).toBeGreaterThan(0);
    expect(onAlone('clearWithoutBreak').cells.crossClientClear.value).toBeGreaterThan(0);
    expect(onAlone('pendingListsOnCopies').cells.noResend.value).toBe(0);
    for (const row of r.rows)
      for (const s of TABLE_SYMPTOMS)
        if (s !== 'noResend') expect(row.cells[s].shows, `${row.defect} ${s}`).toBe(row.cells[s].value > 0);
  });

  it('off alone, no single fix repairs the public code: every row still loses deaths without a resend', () => {
    for (const row of r.rows.filter((x) => x.kind === 'off-alone')) {
      expect(row.removed, String(row.defect)).toEqual([]);
      expect(row.cells.noResend.shows && row.cells.deathsLost.shows, String(row.defect)).toBe(true);
    }
  });
});

describe('bcsim reproduce rtype', () => {
  it('--json prints the library result; the table has a row per defect each way', { timeout: 60_000 }, async () => {
    const json = await cli(['reproduce', 'rtype', '--duration', '10s', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(JSON.parse(JSON.stringify(r)));
    const table = await cli(['reproduce', 'rtype', '--duration', '10s']);
    expect(table.code).toBe(0);
    for (const defect of DEFECT_SWITCHES) {
      expect(table.stdout).toContain(`${defect} on `);
      expect(table.stdout).toContain(`${defect} off `);
    }
    expect(table.stdout).toContain('Reproduced:');
  });

  it('bad flags: one line, exit 2', async () => {
    const short = await cli(['reproduce', 'rtype', '--duration', '5s']);
    expect(short).toMatchObject({
      code: 2,
      stderr: 'bcsim: --duration: expected at least 10s for reproduce rtype, got "5s"\n',
    });
    const other = await cli(['reproduce', 'ack-outbox', '--duration', '30s']);
    expect(other).toMatchObject({ code: 2, stderr: 'bcsim: --duration: only with reproduce rtype\n' });
    const target = await cli(['reproduce', 'rtypes']);
    expect(target).toMatchObject({
      code: 2,
      stderr: 'bcsim: reproduce: unknown target "rtypes" (expected fragment-ack, ack-outbox or rtype)\n',
    });
  });
});
