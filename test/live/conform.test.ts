// `bcsim conform` against bcsim's own `peer server` with the reference settings:
// - fixed: every case passes, none is left not exercised;
// - stock: the documented verdicts (its fragment-ACK bug fails the two cases on the server's fragments);
// - a server that drops every datagram a verdict rests on, unread: every case fails, none passes;
// - a server that refuses every join (it checks hashes, and ours differ): nothing is exercised, exit 1,
//   and the first line names round 0 and our hashes; with its manifest, the same server is joined.
// Servers and campaigns are real processes; the judgements use the cases' generous windows,
// so they hold with the other core busy.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MANIFEST } from '../../src/model/traffic/index.js';
import { CASE_IDS, conformTimings, parseHostPort, runConform } from '../../src/live/index.js';
import type { HostPort } from '../../src/live/index.js';
import {
  TEST_PEER_TIMEOUT_MS,
  TEST_TIMEOUT_GRACE_MS,
  campaign,
  referenceServer,
  statuses,
} from '../support/conform-campaign.js';

const HASH_TOOL_MANIFEST = fileURLToPath(new URL('../scenarios/manifest-hash-tool.json', import.meta.url));

/** The stock preset's verdicts (docs/conform.md explains each): its fragment-ACK bug, seen from the wire. */
const STOCK_FAILS = ['server-fragments', 'mixed-fragment-acks'];

const everyCase = (status: string) => Object.fromEntries(CASE_IDS.map((id) => [id, status]));

describe.concurrent('bcsim conform against bcsim peer server, reference settings', () => {
  it('fixed passes every case; stock fails exactly the fragment-ACK bug', async () => {
    const [fixed, stock] = await Promise.all(
      (['fixed', 'stock'] as const).map(async (mode) => {
        const server = await referenceServer(['--mode', mode], 160_000);
        try {
          return await campaign(server);
        } finally {
          await server.stop();
        }
      }),
    );
    const odd = (r: typeof fixed) =>
      JSON.stringify(
        r.report.cases.filter((c) => c.status !== 'pass'),
        null,
        1,
      );
    expect(statuses(fixed.report), odd(fixed)).toEqual(everyCase('pass'));
    expect(fixed.code).toBe(0);
    expect(fixed.report.outcome).toEqual({ ok: true, firstLine: null });
    expect(statuses(stock.report), odd(stock)).toEqual(
      Object.fromEntries(CASE_IDS.map((id) => [id, STOCK_FAILS.includes(id) ? 'fail' : 'pass'])),
    );
    expect(stock.code).toBe(1);
    // The decisive line: a fragment came again after its 5-byte ACK.
    for (const id of STOCK_FAILS)
      expect(stock.report.cases.find((c) => c.id === id)?.evidence[0].detail).toMatch(/fragment \d+ of seq \d+/);
  }, 200_000);

  it('a server that drops each datagram a verdict rests on, unread, fails every case: none passes', async () => {
    const server = await referenceServer(['--mode', 'fixed'], 160_000);
    const dropped = new Map<string, number>();
    try {
      const run = await runConform({
        server: parseHostPort(server.address, '--server') as HostPort,
        bindHost: '127.0.0.1',
        distinctHosts: true,
        caseIds: CASE_IDS,
        seed: 1,
        parallelSessions: 16,
        manifest: DEFAULT_MANIFEST,
        timings: conformTimings(TEST_PEER_TIMEOUT_MS, undefined, TEST_TIMEOUT_GRACE_MS),
        capture: false,
        extraFlags: [],
        // The fault: every datagram with a proof is dropped before it leaves, as a server that discards it would.
        dropProof: (caseId) => {
          dropped.set(caseId, (dropped.get(caseId) ?? 0) + 1);
          return true;
        },
      });
      const report = run.report;
      const odd = report.cases.filter((c) => c.status !== 'fail');
      expect(statuses(report), JSON.stringify(odd, null, 1)).toEqual(everyCase('fail'));
      // The fault fired in every case.
      for (const id of CASE_IDS) expect(dropped.get(id) ?? 0, id).toBeGreaterThan(0);
    } finally {
      await server.stop();
    }
  }, 200_000);

  it('a server that refuses every join: nothing exercised, exit 1, the first line names round 0 and our hashes', async () => {
    // It checks hashes against a manifest whose hashes are not bcsim's.
    const server = await referenceServer(['--mode', 'fixed', '--manifest', HASH_TOOL_MANIFEST], 90_000);
    try {
      const refused = await campaign(server, ['--cases', 'retransmit,keepalive-echo,disconnect']);
      expect(refused.code).toBe(1);
      expect(refused.report.counts).toEqual({ pass: 0, fail: 0, notExercised: 3 });
      const line = refused.report.outcome.firstLine as string;
      expect(line).toMatch(
        /^bcsim conform: nothing was exercised: the server refused our round-0 checksum answer \(ref 0x7E0CE243, dir 0x4DAFCB2F, App\.pyc name 0x373EB677 content 0xF8A0A768; bcsim's default, the captured stock client's answer\): the server sent a transport Boot/,
      );
      expect(line).toMatch(/give it its manifest with --manifest FILE$/);
      expect(refused.stderr).toContain(line);
      // Given the server's own manifest, the same campaign joins and is judged.
      const joined = await campaign(server, ['--cases', 'keepalive-echo', '--manifest', HASH_TOOL_MANIFEST]);
      expect(statuses(joined.report)).toEqual({ 'keepalive-echo': 'pass' });
      expect(joined.code).toBe(0);
      expect(joined.stderr).toMatch(/manifest .*manifest-hash-tool\.json \(hash-tool form\): rounds 0, 1, 2, 3 from/);
    } finally {
      await server.stop();
    }
  }, 120_000);
});
