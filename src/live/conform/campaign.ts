// `bcsim conform`: a campaign of short live sessions against the user's
// server, one targeted fault per case, run in the order of schedule.ts. If the
// first case ends without an answer from the server, the campaign stops there
// and says so. Each verdict is settled (settle.ts) before it is reported.
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
import type { CaseContext, CaseEvidence, ConformCase, ConformTimings } from './case-types.js';
import { countStatuses } from '../verdict.js';
import type { VerdictStatus } from '../verdict.js';
import { notExercised } from './case-types.js';
import { ConformClient } from './client.js';
import type { Departure, FaultKind } from './client.js';
import { runScheduled, startOrder } from './schedule.js';
import type { Refusal } from './session-end.js';
import { settle } from './settle.js';
import type { RemovedAfter, Settled } from './settle.js';
import { CONFORM_CASES } from './cases/index.js';
import { faultLabel, faultOwner } from './catalogue.js';
import { keepaliveMessage } from './join.js';
import { conformPcap } from './capture.js';
import type { CapturedSession } from './capture.js';
import { CampaignWire } from './campaign-wire.js';
import type { ConformWireFigures } from './campaign-wire.js';

export const CONFORM_SCHEMA = 'bcsim.conform/1';
/**
 * A session that sent nothing for this long sends a keepalive, as a client does
 * after 5 s (docs/sources.md 12); sooner, so a case that waits is never timed out.
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
  /**
   * Fault injection for bcsim's own tests: drop this datagram of ours (one a verdict
   * rests on) before it leaves, as a server that discards it unread would.
   */
  readonly dropProof?: (caseId: string, departure: Departure) => boolean;
}

export interface CaseResult {
  readonly id: string;
  readonly title: string;
  readonly status: VerdictStatus;
  readonly summary: string;
  readonly evidence: readonly CaseEvidence[];
  readonly durationS: number;
  /** The command that re-runs just this case. */
  readonly repro: string;
  /** The server ended a session of this case before its FAIL (a Boot, its Disconnect, silence). */
  readonly removedAfter: RemovedAfter | null;
  /** The case whose FAIL explains this one: the removal followed the fault that case probes. */
  readonly explainedBy: string | null;
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
  /** The server refused a checksum answer of ours during a join (the first time it did). */
  readonly refusal: Refusal | null;
  /** The server's datagrams that depart from the stock wire form, over every session (docs/sources.md 30). */
  readonly serverDeviations: DeviationCounts;
  /** What our sockets received over every session (readable, unreadable by source, from elsewhere), and what the logs could not keep. */
  readonly wire: ConformWireFigures;
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

/** The cases a --cases list names, in declared order; unknown names are the caller's to refuse first. */
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
  const wire = new CampaignWire();
  const cases = selectCases(options.caseIds);
  const budget = options.parallelSessions;
  let answered = false;
  let opened = 0;
  let onAnswer: () => void = () => {};
  const firstAnswer = new Promise<void>((resolve) => (onAnswer = resolve));
  const results = new Map<string, CaseResult>();
  const refusals: Refusal[] = [];
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
        const client = await ConformClient.open(options.server, sessionHost(options, opened), nowMs, label, wire);
        client.onArrival = () => {
          answered = true;
          onAnswer();
        };
        const drop = options.dropProof;
        if (drop !== undefined) client.dropProof = (d) => drop(c.id, d);
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
    let settled: Settled;
    try {
      settled = await settle(c, await c.run(ctx), clients, options.timings.ackWithinMs);
    } catch (error) {
      // A fault of ours (or a server reply we did not foresee) ends this case only; the others still run.
      settled = {
        ...notExercised(`the case stopped on an error of bcsim's: ${(error as Error).message}`),
        removedAfter: null,
        removalFault: null,
      };
      hooks.caseError?.(c.id, error);
    } finally {
      await Promise.all(clients.map((client) => goodbye(client)));
      for (const client of clients) {
        for (const d of client.departures) if (d.fault !== null) faultLabel(d.fault); // every fault sent is declared
        for (const a of client.arrivals) countDeviations(serverDeviations, a.deviations);
        if (client.refusal !== null) refusals.push(client.refusal);
      }
      // A case's logs are held on for the capture only; otherwise their bytes go back to the budget.
      for (const client of clients) {
        if (options.capture) captured.push({ caseId: c.id, client });
        else wire.logs.give(client.logBytes);
      }
    }
    const result: CaseResult = {
      id: c.id,
      title: c.title,
      status: settled.status,
      summary: settled.summary,
      evidence: settled.evidence,
      durationS: round3(msToSeconds(nowMs() - began)),
      repro: reproCommand(options, c.id),
      removedAfter: settled.removedAfter,
      explainedBy: explainer(settled.removalFault, c),
    };
    results.set(c.id, result);
    hooks.caseDone?.(result, results.size, cases.length);
  };
  const queue = startOrder(cases);
  // A server that refused our checksum answer before any case was judged refuses every join: stop there.
  const refusedEveryJoin = () =>
    refusals.length > 0 && ![...results.values()].some((r) => r.status !== 'not-exercised');
  await runScheduled(
    queue,
    budget,
    runOne,
    async (first) => {
      // Nothing more starts until the server answered the first case (or that case gave up).
      await Promise.race([firstAnswer, first]);
      if (answered) return true;
      for (const c of queue)
        if (!results.has(c.id) && c !== queue[0])
          results.set(
            c.id,
            notRun(
              options,
              c,
              `the server at ${formatHostPort({ address: options.server.host, port: options.server.port })} never answered`,
            ),
          );
      return false;
    },
    refusedEveryJoin,
  );
  for (const c of queue)
    if (!results.has(c.id))
      results.set(
        c.id,
        notRun(
          options,
          c,
          `not run: the server refused our round-${refusals[0]?.round ?? '?'} checksum answer in every join so far (see the first line)`,
        ),
      );
  const ordered = reportOrder(cases.map((c) => results.get(c.id) as CaseResult));
  const counts = countStatuses(ordered);
  const report: ConformReport = {
    schema: CONFORM_SCHEMA,
    server: formatHostPort({ address: options.server.host, port: options.server.port }),
    seed: options.seed,
    answered,
    wallSeconds: round3(msToSeconds(nowMs() - startMs)),
    sessions: opened,
    counts: { pass: counts.passed, fail: counts.failed, notExercised: counts.notExercised },
    refusal: refusals[0] ?? null,
    serverDeviations,
    wire: wire.figures(),
    cases: ordered,
  };
  const server = { address: options.server.host, port: options.server.port };
  return { report, pcap: options.capture ? conformPcap(captured, startMs, epochUs, server) : null };
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
    client.ackHeld();
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

/**
 * How long a session waits for the server's own Disconnect after saying goodbye: a
 * draining server sends it once every message of its own is ACKed (a re-send interval).
 */
const GOODBYE_WAIT_MS = 3000;

/** A case the campaign did not run, NOT EXERCISED for `reason`. */
function notRun(options: ConformOptions, c: ConformCase, reason: string): CaseResult {
  return {
    id: c.id,
    title: c.title,
    ...notExercised(reason),
    durationS: 0,
    repro: reproCommand(options, c.id),
    removedAfter: null,
    explainedBy: null,
  };
}

/** The case that probes the fault a removal followed, when that is another case. */
function explainer(fault: FaultKind | null, c: ConformCase): string | null {
  if (fault === null || Object.hasOwn(c.probes, fault)) return null;
  return faultOwner(fault);
}

/**
 * The report's order: FAILs first, each root cause before the FAILs it explains
 * (a FAIL explained by a case that did not fail stays a root cause), then NOT
 * EXERCISED, then PASS; declared order within each.
 */
function reportOrder(results: readonly CaseResult[]): CaseResult[] {
  const failed = new Set(results.filter((r) => r.status === 'fail').map((r) => r.id));
  const rootOf = (r: CaseResult) => (r.explainedBy !== null && failed.has(r.explainedBy) ? r.explainedBy : null);
  const out: CaseResult[] = [];
  for (const r of results) {
    if (r.status !== 'fail' || rootOf(r) !== null) continue;
    out.push(r, ...results.filter((k) => k.status === 'fail' && rootOf(k) === r.id));
  }
  for (const r of results) if (r.status === 'fail' && !out.includes(r)) out.push(r);
  for (const status of ['not-exercised', 'pass'] as const) out.push(...results.filter((r) => r.status === status));
  return out;
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
