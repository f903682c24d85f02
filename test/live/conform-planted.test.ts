// Each planted server bug (PlantedBug) makes exactly its own conform cases fail:
// every case can fail, and none fails spuriously. One campaign per planted bug,
// against bcsim's peer server with the reference settings.
//
// The two wrap cases flood the server with 131,072 messages each and are most of
// a campaign's CPU: they run in the campaigns of the bugs they are meant to catch
// (and against the fixed and stock servers, conform.test.ts); the other bugs'
// campaigns run every other case.
import { describe, expect, it } from 'vitest';
import { CASE_IDS, CONFORM_CASES, casesFailedBy } from '../../src/live/index.js';
import { PLANTED_BUGS } from '../../src/model/transport/index.js';
import type { PlantedBug } from '../../src/model/transport/index.js';
import {
  TEST_PEER_TIMEOUT_MS,
  TEST_TIMEOUT_GRACE_MS,
  campaign,
  inWaves,
  referenceServer,
  statuses,
} from '../support/conform-campaign.js';

type Bug = Exclude<PlantedBug, 'none'>;
const BUGS = PLANTED_BUGS.filter((b): b is Bug => b !== 'none');

/** The cases each planted bug must fail (the cases' declarations); every other case it runs must pass. */
const INTENDED = new Map<Bug, readonly string[]>(BUGS.map((bug) => [bug, casesFailedBy(bug)]));
const intended = (bug: Bug): readonly string[] => INTENDED.get(bug) ?? [];

const WRAP_CASES = ['seq-wrap', 'server-seq-wrap'];
/** Campaigns at once: most of a campaign is waiting on timers, the wraps are not. */
const WAVE = 18;

function casesFor(bug: Bug): string[] {
  return CASE_IDS.filter((id) => !WRAP_CASES.includes(id) || intended(bug).includes(id));
}

describe('bcsim conform against planted server bugs', () => {
  it("declares failing cases for every planted bug, and each case is some bug's own", () => {
    for (const bug of BUGS) expect(intended(bug), bug).not.toEqual([]);
    for (const c of CONFORM_CASES) expect(c.plantedBugs, c.id).not.toEqual([]);
    const named = CONFORM_CASES.flatMap((c) => [...c.plantedBugs, ...Object.keys(c.alsoFailedBy ?? {})]);
    for (const bug of named) expect(BUGS, bug).toContain(bug);
  });

  it('each planted bug fails exactly its cases, with evidence and a re-run command', async () => {
    const runs = await inWaves(BUGS, WAVE, async (bug) => {
      const server = await referenceServer(['--mode', 'fixed', '--switch', `plantedBug=${bug}`], 160_000);
      try {
        return { bug, run: await campaign(server, ['--cases', casesFor(bug).join(',')]) };
      } finally {
        await server.stop();
      }
    });
    for (const { bug, run } of runs) {
      const expected = Object.fromEntries(
        casesFor(bug).map((id) => [id, intended(bug).includes(id) ? 'fail' : 'pass']),
      );
      const odd = run.report.cases.filter((c) => c.status !== expected[c.id]);
      expect(statuses(run.report), `${bug}: ${JSON.stringify(odd, null, 1)}`).toEqual(expected);
      expect(run.code, bug).toBe(1);
      for (const c of run.report.cases.filter((x) => x.status === 'fail')) {
        expect(c.evidence.length, `${bug} ${c.id}`).toBeGreaterThan(0);
        expect(c.repro).toMatch(
          new RegExp(`^npx bcsim conform --server 127\\.0\\.0\\.1:\\d+ --cases ${c.id} --seed 1`),
        );
      }
    }
    // With no Boot to end it, the timeout probe waited the whole peer timeout plus --timeout-grace, and its re-run repeats both.
    const removal = runs.find((r) => r.bug === 'remove-without-boot')?.run.report.cases.find((c) => c.id === 'removal');
    const windowS = (TEST_PEER_TIMEOUT_MS + TEST_TIMEOUT_GRACE_MS) / 1000;
    expect(removal?.evidence.map((e) => e.detail).join('\n')).toContain(`in ${windowS.toFixed(3)} s`);
    expect(removal?.repro).toContain('--peer-timeout 12s --timeout-grace 5s');
  }, 600_000);
});
