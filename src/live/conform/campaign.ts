// `bcsim conform`: a campaign of short live sessions against the user's
// server, one targeted fault per case. Cases run side by side within a budget
// of sessions (each session holds one client slot of the server), longest
// first. The first case starts alone: the others wait until the server first
// answers; if it ends without an answer, the campaign stops there and says so.
import { msToSeconds, msToUsUnrounded, namedStream, usToMs } from '../../core/engine/index.js';
import type { RandomStream } from '../../core/engine/index.js';
import { TYPE_DISCONNECT, countDeviations, newDeviationCounts } from '../../core/codec/index.js';
import type { DeviationCounts } from '../../core/codec/index.js';
import type { ChecksumManifest } from '../../model/traffic/index.js';
import { round3 } from '../../model/session/index.js';
import { disconnectPayload } from '../../model/transport/index.js';
import { bindUdp, formatHostPort } from '../endpoint.js';
import { monotonicMicros } from '../wall-clock.js';
import type { HostPort } from '../endpoint.js';
import type { CaseContext, CaseEvidence, CaseStatus, ConformCase, ConformTimings, Verdict } from './case-types.js';
import { notExercised } from './case-types.js';
import { ConformClient } from './client.js';
import { CONFORM_CASES } from './cases/index.js';
import { keepaliveMessage } from './join.js';
import { conformPcap } from './capture.js';
import type { CapturedSession } from './capture.js';

export const CONFORM_SCHEMA = 'bcsim.conform/1';
/**
 * A session that sent nothing for this long sends a keepalive, as a client does
 * after 5 s (DECISIONS.md 12); sooner, so a case that waits is never timed out.
 */
const IDLE_KEEPALIVE_MS = 2000;
/** Sessions at once by default: fits a server with a handful of player slots (OpenBC's default is 5). */
export const DEFAULT_PARALLEL_SESSIONS = 4;
/** Explicit bound on what one campaign may open. */
export const MAX_SESSIONS = 64;

export interface ConformOptions {
  readonly server: HostPort;
  /** Where our sockets bind (any port). */
  readonly bindHost: string;
  /** Give each session its own 127.0.0.x address (an IPv4 loopback server, no --bind). */
  readonly distinctHosts: boolean;
  readonly caseIds: readonly string[];
  readonly seed: number;
  readonly parallelSessions: number;
  readonly manifest: ChecksumManifest;
  readonly timings: ConformTimings;
  /** Keep every session's datagrams for a pcapng (--pcap). */
  readonly capture: boolean;
  /** The flags a re-run needs besides --server, --cases and --seed (e.g. "--peer-timeout 5s"). */
  readonly extraFlags: readonly string[];
}

export interface CaseResult {
  readonly id: string;
  readonly title: string;
  readonly status: CaseStatus;
  readonly summary: string;
  readonly evidence: readonly CaseEvidence[];
  readonly durationS: number;
  /** The command that re-runs just this case. */
  readonly repro: string;
}

export interface ConformReport {
  readonly schema: typeof CONFORM_SCHEMA;
  readonly server: string;
  readonly seed: number;
  /** False when the server sent nothing at all: every verdict below is then empty. */
  readonly answered: boolean;
  readonly wallSeconds: number;
  readonly sessions: number;
  readonly counts: { readonly pass: number; readonly fail: number; readonly notExercised: number };
  /** The server's datagrams that depart from the stock wire form, over every session (DECISIONS.md 30). */
  readonly serverDeviations: DeviationCounts;
  readonly cases: readonly CaseResult[];
}

export interface ConformHooks {
  /** Called as each case ends (progress on stderr). */
  caseDone?(result: CaseResult, done: number, total: number): void;
  /** A case threw: its result says NOT EXERCISED with the message; the stack is for stderr. */
  caseError?(caseId: string, error: unknown): void;
}

/** A finished campaign: its report, and (asked for) a pcapng of every session. */
export interface ConformRun {
  readonly report: ConformReport;
  /** The pcapng bytes of every session (conformPcap); null unless options.capture. */
  readonly pcap: Uint8Array | null;
}

/** The cases a --cases list names, in report order; unknown names are the caller's to refuse first. */
export function selectCases(ids: readonly string[]): ConformCase[] {
  return CONFORM_CASES.filter((c) => ids.includes(c.id));
}

/** Milliseconds on the live mode's monotonic clock (wall-clock.ts, the one place that reads it). */
function monotonicMs(): () => number {
  const us = monotonicMicros();
  return () => usToMs(us());
}

/** The campaign cannot start: no local address to send from (the CLI's one line, exit 2). */
export class ConformSetupError extends Error {}

/**
 * Where sessions send from, checked before any case runs: the per-session
 * loopback addresses when the system has them (all of 127/8 on Linux; macOS
 * only 127.0.0.1 unless aliased), else the one bind address.
 */
export async function prepareConform(options: ConformOptions): Promise<ConformOptions> {
  const widest = Math.max(0, ...selectCases(options.caseIds).map((c) => c.sessions));
  if (options.parallelSessions < widest)
    throw new ConformSetupError(
      `--parallel ${options.parallelSessions}: a case opens up to ${widest} sessions at once; give at least ${widest}`,
    );
  const tryBind = async (host: string) => {
    try {
      (await bindUdp({ host, port: 0, family: options.server.family }, '--bind')).close();
      return null;
    } catch (error) {
      return (error as Error).message;
    }
  };
  if (options.distinctHosts && (await tryBind(sessionHost(options, 1))) === null) return options;
  const problem = await tryBind(options.bindHost);
  if (problem !== null) throw new ConformSetupError(problem);
  return { ...options, distinctHosts: false };
}

export async function runConform(
  given: ConformOptions,
  hooks: ConformHooks = {},
  nowMs: () => number = monotonicMs(),
): Promise<ConformRun> {
  const options = await prepareConform(given);
  const startMs = nowMs();
  const epochUs = msToUsUnrounded(Date.now()); // wall clock, once: the capture's absolute timestamps, as the proxy's
  const captured: CapturedSession[] = [];
  const serverDeviations = newDeviationCounts();
  const cases = selectCases(options.caseIds);
  const budget = options.parallelSessions;
  let answered = false;
  let opened = 0;
  let onAnswer: () => void = () => {};
  const firstAnswer = new Promise<void>((resolve) => (onAnswer = resolve));
  const results = new Map<string, CaseResult>();
  const runOne = async (c: ConformCase): Promise<void> => {
    const clients: ConformClient[] = [];
    const taken = new Set<string>();
    const ctx: CaseContext = {
      server: options.server,
      seed: options.seed,
      manifest: options.manifest,
      timings: options.timings,
      open: async (label) => {
        if (++opened > MAX_SESSIONS) throw new Error(`conform: more than ${MAX_SESSIONS} sessions`);
        const client = await ConformClient.open(options.server, sessionHost(options, opened), nowMs, label);
        client.onArrival = () => {
          answered = true;
          onAnswer();
        };
        client.keepAlive(() => keepaliveMessage(client), IDLE_KEEPALIVE_MS);
        clients.push(client);
        return client;
      },
      random: (name): RandomStream => {
        if (taken.has(name)) throw new Error(`conform: stream ${name} taken twice`);
        taken.add(name);
        return namedStream(options.seed, `conform.${c.id}.${name}`);
      },
    };
    const began = nowMs();
    let verdict: Verdict;
    try {
      verdict = await c.run(ctx);
    } catch (error) {
      // A fault of ours (or a server reply we did not foresee) ends this case only; the others still run.
      verdict = notExercised(`the case stopped on an error of bcsim's: ${(error as Error).message}`);
      hooks.caseError?.(c.id, error);
    } finally {
      await Promise.all(clients.map((client) => goodbye(client)));
      for (const client of clients) for (const a of client.arrivals) countDeviations(serverDeviations, a.deviations);
      if (options.capture) for (const client of clients) captured.push({ caseId: c.id, client });
    }
    const result: CaseResult = {
      id: c.id,
      title: c.title,
      ...verdict,
      durationS: round3(msToSeconds(nowMs() - began)),
      repro: reproCommand(options, c.id),
    };
    results.set(c.id, result);
    hooks.caseDone?.(result, results.size, cases.length);
  };
  // Longest first: the removal case waits out a peer timeout.
  const queue = [...cases].sort((a, b) => b.sessions - a.sessions);
  await pool(queue, budget, runOne, async (first) => {
    // Nothing more starts until the server answered the first case (or that case gave up).
    await Promise.race([firstAnswer, first]);
    if (answered) return true;
    for (const c of queue) if (!results.has(c.id) && c !== queue[0]) results.set(c.id, unanswered(options, c));
    return false;
  });
  const ordered = cases.map((c) => results.get(c.id) as CaseResult);
  const count = (s: CaseStatus) => ordered.filter((r) => r.status === s).length;
  const report: ConformReport = {
    schema: CONFORM_SCHEMA,
    server: formatHostPort({ address: options.server.host, port: options.server.port }),
    seed: options.seed,
    answered,
    wallSeconds: round3(msToSeconds(nowMs() - startMs)),
    sessions: opened,
    counts: { pass: count('pass'), fail: count('fail'), notExercised: count('not-exercised') },
    serverDeviations,
    cases: ordered,
  };
  const server = { address: options.server.host, port: options.server.port };
  return { report, pcap: options.capture ? conformPcap(captured, startMs, epochUs, server) : null };
}

/**
 * Runs `items` with at most `budget` sessions open at once (each item declares
 * its sessions). After starting the first, `gate` decides whether the rest run.
 */
async function pool(
  items: readonly ConformCase[],
  budget: number,
  run: (c: ConformCase) => Promise<void>,
  gate: (first: Promise<void>) => Promise<boolean>,
): Promise<void> {
  let free = budget;
  const running = new Set<Promise<void>>();
  const pending = [...items];
  let gated = false;
  while (pending.length > 0 || running.size > 0) {
    const next = pending.findIndex((c) => c.sessions <= free);
    if (next >= 0) {
      const [c] = pending.splice(next, 1);
      free -= c.sessions;
      const p: Promise<void> = run(c).finally(() => {
        free += c.sessions;
        running.delete(p);
      });
      running.add(p);
      if (!gated) {
        gated = true;
        if (!(await gate(p))) pending.length = 0;
      }
      continue;
    }
    await Promise.race(running);
  }
}

/**
 * Where session `n` binds. Against an IPv4 loopback server each session gets an
 * address of its own (127.0.0.2, .3, …: all of 127/8 is loopback), so a server
 * that limits reconnects per address (OpenBC waits 2 s) sees distinct players.
 */
function sessionHost(options: Pick<ConformOptions, 'bindHost' | 'distinctHosts'>, n: number): string {
  return options.distinctHosts ? `127.0.0.${2 + ((n - 1) % 250)}` : options.bindHost;
}

/** A session that still holds a slot leaves politely (a real server frees the slot). */
async function goodbye(client: ConformClient): Promise<void> {
  if (client.slot !== null && !client.saidGoodbye) {
    client.withhold = () => false;
    const at = client.now;
    client.send(
      [client.reliable(TYPE_DISCONNECT, disconnectPayload({ address: [127, 0, 0, 1], name: '' }, client.slot), true)],
      'Disconnect (end of session)',
    );
    // A draining server answers with its own Disconnect; ACKing it lets it free the place at once.
    await client.waitFor((m) => m.message.type === TYPE_DISCONNECT, GOODBYE_WAIT_MS, at);
  }
  client.close();
}

/** How long a session waits for the server's own Disconnect after saying goodbye. */
const GOODBYE_WAIT_MS = 1500;

function unanswered(options: ConformOptions, c: ConformCase): CaseResult {
  const verdict = notExercised(
    `the server at ${formatHostPort({ address: options.server.host, port: options.server.port })} never answered`,
  );
  return { id: c.id, title: c.title, ...verdict, durationS: 0, repro: reproCommand(options, c.id) };
}

export function reproCommand(options: ConformOptions, id: string): string {
  const server = formatHostPort({ address: options.server.host, port: options.server.port });
  return [
    'npx bcsim conform --server',
    server,
    '--cases',
    id,
    '--seed',
    String(options.seed),
    ...options.extraFlags,
  ].join(' ');
}
