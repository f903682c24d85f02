// What a conformance case is and what it returns. A case opens its own
// sessions (scripted clients), applies one targeted fault and judges what the
// server did: PASS, FAIL with evidence, or NOT EXERCISED with the reason (the
// server never gave the case its chance: a rule that checked nothing is not a pass).
import { msToSeconds } from '../../core/engine/index.js';
import type { RandomStream } from '../../core/engine/index.js';
import type { ChecksumManifest } from '../../model/traffic/index.js';
import type { PlantedBug } from '../../model/transport/index.js';
import type { HostPort } from '../endpoint.js';
import type { Arrival, ConformClient, FaultKind, ServerMessage } from './client.js';
import { hexOf } from './describe.js';
import type { JoinTimings } from './join.js';
import type { VerdictStatus } from '../verdict.js';

export interface CaseEvidence {
  /** Which session of the case (its label), and seconds since that session opened. */
  readonly session: string;
  readonly timeS: number | null;
  readonly detail: string;
  /** The datagram it rests on, decrypted, as hex ('' when none). */
  readonly hex: string;
  /** Whose datagram `hex` is: the server's, ours, or none. */
  readonly from: 'server' | 'us' | null;
}

export interface Verdict {
  readonly status: VerdictStatus;
  /** One line: what was checked and what the server did. */
  readonly summary: string;
  readonly evidence: readonly CaseEvidence[];
}

/** Timing windows of the judgements, in ms; the documented figures they rest on are in the comments. */
export interface ConformTimings extends JoinTimings {
  /** An unACKed reliable message must be re-sent within this: 2.0 s stock interval (docs/sources.md 11) plus an update's slack. */
  readonly resendMaxMs: number;
  /** And not sooner than this (1.0 s is the shortest documented base, docs/sources.md 11 and 20). */
  readonly resendMinMs: number;
  /** How long a case that needs any re-send waits for one (covers slow but working servers). */
  readonly resendWaitMs: number;
  /** A copy may already be on its way when our ACK arrives: re-sends later than this after it are faults. */
  readonly ackGraceMs: number;
  /** Our reliable messages must be ACKed within this. */
  readonly ackWithinMs: number;
  /** A Disconnected peer must be gone within this: ~4.16 s measured (docs/sources.md 28), plus slack. */
  readonly removalMaxMs: number;
  /** The server's peer timeout (45 s stock, docs/sources.md 19); the timeout probe waits this plus timeoutGraceMs. */
  readonly peerTimeoutMs: number;
  /**
   * How long past the peer timeout the timeout probe still waits for the server's Boot. A
   * conformant server's Boot ends the wait when it comes; only a server that never sends
   * one holds the probe this long (--timeout-grace).
   */
  readonly timeoutGraceMs: number;
  /** How long the wrap case may take before it says NOT EXERCISED. */
  readonly wrapBudgetMs: number;
}

export const DEFAULT_TIMINGS: ConformTimings = {
  stepMs: 5000,
  resendMaxMs: 3500,
  resendMinMs: 500,
  resendWaitMs: 10_000,
  ackGraceMs: 1000,
  ackWithinMs: 1000,
  removalMaxMs: 6000,
  peerTimeoutMs: 45_000,
  timeoutGraceMs: 15_000,
  wrapBudgetMs: 60_000,
};

/** The shortest --timeout-grace: the probe needs 2 s of silence after the server's last datagram to judge a removal. */
export const MIN_TIMEOUT_GRACE_MS = 3000;

/**
 * The timings for a server with this peer timeout: a case never waits for a
 * re-send longer than the server keeps an unACKed message (its lifetime is the
 * peer timeout, docs/sources.md 20), less a second.
 */
export function conformTimings(
  peerTimeoutMs = DEFAULT_TIMINGS.peerTimeoutMs,
  wrapBudgetMs = DEFAULT_TIMINGS.wrapBudgetMs,
  timeoutGraceMs = DEFAULT_TIMINGS.timeoutGraceMs,
): ConformTimings {
  return {
    ...DEFAULT_TIMINGS,
    peerTimeoutMs,
    wrapBudgetMs,
    timeoutGraceMs,
    resendWaitMs: Math.min(DEFAULT_TIMINGS.resendWaitMs, Math.max(DEFAULT_TIMINGS.resendMaxMs, peerTimeoutMs - 1000)),
  };
}

export interface CaseContext {
  readonly server: HostPort;
  readonly seed: number;
  readonly manifest: ChecksumManifest;
  readonly timings: ConformTimings;
  /** A new scripted client (a session of this case), labelled for the evidence. */
  open(label: string): Promise<ConformClient>;
  /** The case's named seeded stream (one per name). */
  random(name: string): RandomStream;
}

export interface ConformCase {
  readonly id: string;
  /** The claim, one sentence. */
  readonly title: string;
  /** How it is probed: what we send and what the server must do (docs/conform.md's case table). */
  readonly probe: string;
  /** The timing windows its judgement rests on (their figures: DEFAULT_TIMINGS). */
  readonly windows: readonly (keyof ConformTimings)[];
  /** The planted bugs of `bcsim peer server` (switches.ts PlantedBug) that exist to fail it. */
  readonly plantedBugs: readonly PlantedBug[];
  /** Another case's planted bugs that fail this one too, each with why. */
  readonly alsoFailedBy?: Readonly<Partial<Record<PlantedBug, string>>>;
  /** Sessions (server slots) it opens, at most, and how many at once. */
  readonly sessions: number;
  /** The wire faults it is about: a removal after one of them, in another case, is explained by this one. */
  readonly probes: Readonly<Record<FaultKind, string>>;
  /** It ends its own sessions on purpose (a removal or a Disconnect is what it judges, not a knock-on). */
  readonly endsSessions?: boolean;
  /** It makes the server send to every player: it runs with no other case's session open. */
  readonly exclusive?: boolean;
  run(ctx: CaseContext): Promise<Verdict>;
}

/**
 * One line of evidence, with the datagram it rests on: a message of the server
 * (ServerMessage), a datagram of the server (Arrival), or one of ours ({timeMs, bytes}).
 */
export function evidence(
  client: ConformClient,
  detail: string,
  at?: ServerMessage | Arrival | { timeMs: number; bytes: Uint8Array } | null,
): CaseEvidence {
  if (at === undefined || at === null)
    return { session: client.label, timeS: msToSeconds(client.now), detail, hex: '', from: null };
  if ('arrival' in at)
    return {
      session: client.label,
      timeS: msToSeconds(at.timeMs),
      detail,
      hex: hexOf(at.arrival.bytes),
      from: 'server',
    };
  const server = 'messages' in at;
  return {
    session: client.label,
    timeS: msToSeconds(at.timeMs),
    detail,
    hex: hexOf(at.bytes),
    from: server ? 'server' : 'us',
  };
}

export const pass = (summary: string, notes: readonly CaseEvidence[] = []): Verdict => ({
  status: 'pass',
  summary,
  evidence: notes,
});
export const fail = (summary: string, found: readonly CaseEvidence[]): Verdict => ({
  status: 'fail',
  summary,
  evidence: found,
});
export const notExercised = (summary: string, notes: readonly CaseEvidence[] = []): Verdict => ({
  status: 'not-exercised',
  summary,
  evidence: notes,
});

/**
 * Several probes of one case. Any FAIL fails it. It passes only when every
 * required probe passed; a required probe that checked nothing makes the case
 * NOT EXERCISED, naming it. An optional probe (one the server may give no
 * chance to, as the echo of a server that echoes nothing) never decides alone.
 */
export function combine(required: readonly Verdict[], optional: readonly Verdict[] = []): Verdict {
  const all = [...required, ...optional];
  const summary = all.map((p) => p.summary).join('; ');
  const evidenceOf = (list: readonly Verdict[]) => list.flatMap((p) => p.evidence);
  const failed = all.filter((p) => p.status === 'fail');
  if (failed.length > 0)
    return fail(failed.map((p) => p.summary).join('; '), [
      ...evidenceOf(failed),
      ...evidenceOf(all.filter((p) => p.status !== 'fail')),
    ]);
  if (required.every((p) => p.status === 'pass')) return pass(summary, evidenceOf(all));
  return notExercised(summary, evidenceOf(all));
}

/** "seq 3 (high)" or "seq 3 fragment 1 (high)". */
export function seqLabel(seq: number, low: boolean, fragIndex: number | null = null): string {
  return `seq ${seq}${fragIndex === null ? '' : ` fragment ${fragIndex}`} (${low ? 'low' : 'high'})`;
}

export function seconds(ms: number): string {
  return `${msToSeconds(ms).toFixed(3)} s`;
}
