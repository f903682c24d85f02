// `bcsim conform` against bcsim's own `peer server` on loopback: the fixed
// server passes every case with none left not exercised, and each planted
// server bug (PlantedBug) makes exactly its cases fail. This shows every case
// can fail and none fails spuriously. Servers and campaigns are real processes;
// the judgements are in wall time with the generous windows of the cases, so
// they hold with the other core busy.
import { describe, expect, it } from 'vitest';
import type { ConformReport } from '../../src/live/index.js';
import { CASE_IDS } from '../../src/live/index.js';
import { PLANTED_BUGS } from '../../src/model/transport/index.js';
import type { PlantedBug } from '../../src/model/transport/index.js';
import { bcsim, freeUdpPort } from '../support/live.js';

/** The cases each planted bug must fail; every other case must pass. */
const INTENDED: Record<Exclude<PlantedBug, 'none'>, readonly string[]> = {
  'no-duplicate-ack': ['duplicate-processing'],
  'no-duplicate-detection': ['duplicate-processing'],
  'reassembly-by-arrival-order': ['fragment-reassembly'],
  'ack-ignores-category': ['ack-category'],
  'slow-retransmit': ['retransmit'],
  'fragment-ack-index-zero': ['fragment-acks'],
  // An unmatched ACK clearing the oldest entry clears the round-0 request in ack-category's probe too:
  // on the wire that is a low-type ACK clearing a high-type entry, which that case exists to catch.
  'stale-ack-clears-oldest': ['stale-acks', 'ack-category'],
  'ack-seq-low-byte': ['seq-wrap'],
  'reads-32-messages': ['full-datagram'],
  'remove-without-boot': ['removal'],
  'disconnect-ignored': ['disconnect'],
  'stall-on-oversize': ['garbage'],
  'no-keepalive-echo': ['keepalive-echo'],
  'own-seq-low-byte': ['server-seq-wrap'],
  'fragment-sent-once': ['server-fragments'],
  'fragment-ack-ends-datagram': ['mixed-fragment-acks'],
  'retransmit-queue-16': ['retransmit-window'],
  'peer-by-id': ['peer-isolation'],
};

/**
 * The server as DECISIONS.md 17 has the stock dedicated server on loopback
 * (its loop as fast as it can), with a short peer timeout so the removal
 * case's timeout probe takes seconds.
 */
const SERVER_SETS = [
  'transport.updatePeriodMs.server=5',
  'transport.datagramsPerUpdate=8',
  'transport.peerTimeoutMs=12000',
];

async function campaign(planted: PlantedBug): Promise<ConformReport> {
  const port = await freeUdpPort();
  const sets = SERVER_SETS.flatMap((s) => ['--set', s]);
  const server = bcsim(
    [
      'peer',
      'server',
      '--listen',
      `127.0.0.1:${port}`,
      '--mode',
      'fixed',
      '--clients',
      '16',
      '--duration',
      '150s',
      '--switch',
      `plantedBug=${planted}`,
      ...sets,
    ],
    170_000,
  );
  await server.stderrSays('waiting for clients');
  const run = bcsim(
    ['conform', '--server', `127.0.0.1:${port}`, '--parallel', '16', '--peer-timeout', '12s', '--json'],
    160_000,
  );
  const out = await run.exited;
  server.child.kill('SIGINT');
  await server.exited;
  expect(out.stderr, out.stderr).not.toMatch(/Error|at .*\.js:\d+/);
  return JSON.parse(out.stdout) as ConformReport;
}

function statuses(report: ConformReport): Record<string, string> {
  return Object.fromEntries(report.cases.map((c) => [c.id, c.status]));
}

describe('bcsim conform against bcsim peer server', () => {
  const bugs = PLANTED_BUGS.filter((b): b is Exclude<PlantedBug, 'none'> => b !== 'none');

  it("has an intended set of failing cases for every planted bug, and each case is some bug's", () => {
    expect(Object.keys(INTENDED).sort()).toEqual([...bugs].sort());
    const covered = new Set(Object.values(INTENDED).flat());
    expect([...covered].sort()).toEqual([...CASE_IDS].sort());
  });

  it('passes every case on the fixed server, and each planted bug fails exactly its cases', async () => {
    // Two waves keep the two cores from being swamped by every campaign at once.
    const all: PlantedBug[] = ['none', ...bugs];
    const reports = new Map<PlantedBug, ConformReport>();
    for (const wave of [all.slice(0, 7), all.slice(7)]) {
      const done = await Promise.all(wave.map(async (b) => [b, await campaign(b)] as const));
      for (const [b, r] of done) reports.set(b, r);
    }
    const fixed = reports.get('none') as ConformReport;
    expect(fixed.answered).toBe(true);
    expect(
      statuses(fixed),
      JSON.stringify(
        fixed.cases.filter((c) => c.status !== 'pass'),
        null,
        1,
      ),
    ).toEqual(Object.fromEntries(CASE_IDS.map((id) => [id, 'pass'])));
    for (const bug of bugs) {
      const report = reports.get(bug) as ConformReport;
      const expected = Object.fromEntries(CASE_IDS.map((id) => [id, INTENDED[bug].includes(id) ? 'fail' : 'pass']));
      const odd = report.cases.filter((c) => c.status !== expected[c.id]);
      expect(statuses(report), `${bug}: ${JSON.stringify(odd, null, 1)}`).toEqual(expected);
      // A FAIL carries evidence a maintainer can act on, and the command that re-runs it.
      for (const c of report.cases.filter((x) => x.status === 'fail')) {
        expect(c.evidence.length, `${bug} ${c.id}`).toBeGreaterThan(0);
        expect(c.repro).toMatch(
          new RegExp(`^npx bcsim conform --server 127\\.0\\.0\\.1:\\d+ --cases ${c.id} --seed 1`),
        );
      }
    }
  }, 170_000);
});
