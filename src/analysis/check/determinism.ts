// `--check-determinism`: run twice and compare the traces datagram by datagram.
import { usToSeconds } from '../../core/engine/index.js';
import type { Scenario } from '../../model/scenario/index.js';
import { runScenario } from '../../model/session/index.js';
import type { RunOptions, RunResult } from '../../model/session/index.js';

export interface DeterminismVerdict {
  readonly identical: boolean;
  readonly datagrams: number;
  /** Empty when identical; else names the first diverging datagram. */
  readonly message: string;
}

/** Runs the scenario twice with per-datagram digests; returns the first run and the verdict. */
export function runTwice(scenario: Scenario, options: RunOptions): { result: RunResult; verdict: DeterminismVerdict } {
  const first = runScenario(scenario, { ...options, keepDigests: true });
  const second = runScenario(scenario, { ...options, keepDigests: true });
  return { result: first, verdict: compareRuns(first, second) };
}

export function compareRuns(a: RunResult, b: RunResult): DeterminismVerdict {
  const da = a.session.hasher;
  const db = b.session.hasher;
  const digestsA = da.digestList();
  const digestsB = db.digestList();
  const n = Math.min(digestsA.length, digestsB.length);
  let first = -1;
  for (let i = 0; i < n; i++) {
    if (digestsA[i] !== digestsB[i]) {
      first = i;
      break;
    }
  }
  if (first < 0 && digestsA.length !== digestsB.length) first = n;
  const sameSummary = JSON.stringify(a.summary) === JSON.stringify(b.summary);
  if (first < 0 && a.summary.traceHash === b.summary.traceHash && sameSummary)
    return { identical: true, datagrams: digestsA.length, message: '' };
  const where =
    first >= 0
      ? describe(da.recordAt(first), db.recordAt(first), first)
      : a.summary.traceHash !== b.summary.traceHash
        ? 'same datagram digests but different trace hashes'
        : 'identical traces but different summaries';
  return { identical: false, datagrams: digestsA.length, message: `runs differ: ${where}` };
}

function describe(
  a: { timeUs: number; direction: number } | null,
  b: { timeUs: number; direction: number } | null,
  index: number,
): string {
  const side = (r: { timeUs: number; direction: number } | null) =>
    r === null
      ? 'missing'
      : `t=${(usToSeconds(r.timeUs)).toFixed(6)} s from ${r.direction === 0 ? 'client' : 'server'}`;
  return `first diverging datagram is #${index} (run 1: ${side(a)}; run 2: ${side(b)})`;
}
