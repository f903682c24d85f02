// Campaigns of `bcsim conform` against bcsim's own `peer server` on loopback, both
// the built CLI in child processes. The server runs with docs/conform.md's
// reference settings (a loop as fast as a stock dedicated server's on loopback,
// and an echo per keepalive) and a 12 s peer timeout, so the removal case's
// timeout probe takes seconds; conform is told that timeout, and waits 5 s past
// it for the Boot (--timeout-grace) instead of 15: a loopback server's timer is on time.
import { expect } from 'vitest';
import type { ConformOutcome, ConformReport } from '../../src/live/index.js';
import { bcsim, freeUdpPort } from './live.js';

/** The reference settings of docs/conform.md, as `peer server` flags. */
export const REFERENCE_SERVER_FLAGS = [
  '--set',
  'transport.updatePeriodMs.server=5',
  '--set',
  'transport.datagramsPerUpdate=8',
  '--switch',
  'keepalive.echoPath=first-send-queue',
];

export const TEST_PEER_TIMEOUT_MS = 12_000;
export const TEST_TIMEOUT_GRACE_MS = 5000;
/** Test-only: a short peer timeout, told to conform too. */
const PEER_TIMEOUT = ['--set', `transport.peerTimeoutMs=${TEST_PEER_TIMEOUT_MS}`];
const CONFORM_PEER_TIMEOUT = ['--peer-timeout', '12s', '--timeout-grace', '5s'];

export interface ReferenceServer {
  readonly address: string;
  /** Stops the server (SIGINT) and waits for it. */
  stop(): Promise<void>;
}

/** A reference peer server with these extra flags (a mode, a planted bug, a manifest), waiting for clients. */
export async function referenceServer(extra: readonly string[], lifetimeMs: number): Promise<ReferenceServer> {
  const port = await freeUdpPort();
  const address = `127.0.0.1:${port}`;
  const server = bcsim(
    [
      'peer',
      'server',
      '--listen',
      address,
      '--clients',
      '16',
      '--duration',
      `${Math.ceil(lifetimeMs / 1000)}s`,
      ...REFERENCE_SERVER_FLAGS,
      ...PEER_TIMEOUT,
      ...extra,
    ],
    lifetimeMs + 20_000,
  );
  await server.stderrSays('waiting for clients');
  return {
    address,
    stop: async () => {
      server.child.kill('SIGINT');
      await server.exited;
    },
  };
}

interface CampaignRun {
  readonly code: number | null;
  readonly report: ConformReport & { outcome: ConformOutcome };
  readonly stderr: string;
}

/** One campaign against `server` (all sessions in parallel); the JSON report, the exit code and stderr. */
export async function campaign(server: ReferenceServer, args: readonly string[] = [], timeoutMs = 200_000) {
  const run = bcsim(
    ['conform', '--server', server.address, '--parallel', '16', ...CONFORM_PEER_TIMEOUT, '--json', ...args],
    timeoutMs,
  );
  const out = await run.exited;
  // A case that stopped on an error of bcsim's prints its stack: never.
  expect(out.stderr, out.stderr).not.toMatch(/Error|at .*\.js:\d+/);
  return { code: out.code, report: JSON.parse(out.stdout), stderr: out.stderr } as CampaignRun;
}

/** Case id -> status. */
export function statuses(report: ConformReport): Record<string, string> {
  return Object.fromEntries(report.cases.map((c) => [c.id, c.status]));
}

/** Runs `jobs` at most `width` at a time (campaigns share two cores). */
export async function inWaves<T, R>(items: readonly T[], width: number, job: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += width) out.push(...(await Promise.all(items.slice(i, i + width).map(job))));
  return out;
}
