// Evaluates a scenario's `expect` block against run summaries:
// "<summary path>": { "<op>": number }, where `*` in a path means every peer.
import type { ExpectOp, Assertion } from '../../model/scenario/index.js';
import type { Summary } from '../../model/session/index.js';

export interface AssertionResult {
  /** The concrete path, `*` expanded. */
  readonly path: string;
  readonly op: ExpectOp;
  readonly expected: number;
  readonly actual: number;
  readonly pass: boolean;
  /**
   * Only on a run that cut its phase plan (settings.phasePlanCut), when the cut could be why it
   * does not hold: why it is not judged. Never a pass (pass is false) and never a failure.
   */
  readonly notApplicable?: string;
}

/** An assertion counts as failed: it does not hold and the run could judge it. */
export function failedAssertion(r: AssertionResult): boolean {
  return !r.pass && r.notApplicable === undefined;
}

/** A path that names no numeric summary field: a usage error, never a silent pass. */
export class PathError extends Error {
  override readonly name = 'PathError';
  constructor(
    readonly path: string,
    reason: string,
    /** True when the path met a null, which another run may fill: a shape check cannot decide it. */
    readonly metNull = false,
  ) {
    super(`${path}: ${reason}`);
  }
}

const OPS: Record<ExpectOp, (actual: number, expected: number) => boolean> = {
  eq: (a, e) => a === e,
  lt: (a, e) => a < e,
  lte: (a, e) => a <= e,
  gt: (a, e) => a > e,
  gte: (a, e) => a >= e,
};

export const OP_SYMBOL: Record<ExpectOp, string> = { eq: '==', lt: '<', lte: '<=', gt: '>', gte: '>=' };

/** Maps keyed by slot, where `*` means every connection or client. */
const STAR_MAPS = ['peers.server.connections', 'peers.clients', 'links.clients'];

/** Expands `*` (only where peers are keyed) and resolves every path to a number. */
export function resolvePath(summary: Summary, path: string): Array<{ path: string; value: number }> {
  const parts = path.split('.');
  let frontier: Array<{ path: string[]; node: unknown }> = [{ path: [], node: summary }];
  for (const part of parts) {
    const next: typeof frontier = [];
    for (const { path: at, node } of frontier) {
      if (node === null || typeof node !== 'object')
        throw new PathError(path, `"${at.join('.')}" is not an object`, node === null);
      if (part === '*') {
        const where = at.join('.');
        // peers.* is the two hosts (server and client totals); the keyed maps hold each connection.
        const keys =
          where === 'peers' ? ['server', 'client'] : STAR_MAPS.includes(where) ? Object.keys(node as object) : null;
        if (keys === null)
          throw new PathError(
            path,
            `"*" is allowed only as ${['peers', ...STAR_MAPS].map((m) => `${m}.*`).join(', ')}`,
          );
        // An empty map would make the assertion check nothing.
        if (keys.length === 0) throw new PathError(path, `${where} is empty in this run (no client connected)`, true);
        for (const key of keys) next.push({ path: [...at, key], node: (node as Record<string, unknown>)[key] });
        continue;
      }
      if (!Object.prototype.hasOwnProperty.call(node, part)) {
        const known = Object.keys(node as object).join(', ');
        throw new PathError(
          path,
          `no summary field "${part}"${at.length ? ` under ${at.join('.')}` : ''} (known: ${known})`,
        );
      }
      next.push({ path: [...at, part], node: (node as Record<string, unknown>)[part] });
    }
    frontier = next;
  }
  return frontier.map(({ path: at, node }) => {
    if (typeof node !== 'number')
      throw new PathError(
        path,
        `${at.join('.')} is ${node === null ? 'null' : typeof node}, not a number`,
        node === null,
      );
    return { path: at.join('.'), value: node };
  });
}

export function evaluate(summary: Summary, expectations: Record<string, Assertion>): AssertionResult[] {
  const cut = summary.settings?.phasePlanCut !== undefined;
  const results: AssertionResult[] = [];
  for (const [path, assertion] of Object.entries(expectations)) {
    const resolved = resolvePath(summary, path);
    for (const op of Object.keys(OPS) as ExpectOp[]) {
      const expected = assertion[op];
      if (expected === undefined) continue;
      for (const { path: concrete, value } of resolved) {
        const result = { path: concrete, op, expected, actual: value, pass: OPS[op](value, expected) };
        const why = cut ? cutMakesItUnjudgeable(result) : undefined;
        results.push(why === undefined ? result : { ...result, pass: false, notApplicable: why });
      }
    }
  }
  return results;
}

/**
 * A run that ended before its phase plan did (docs/compare-and-check.md#check-in-ci) is judged on what
 * it ran, except where the phases it did not run could change the answer: an end-of-run
 * value (.final) describes the plan's end, which the run never reached; and a lower bound
 * not reached yet (gt, gte, eq from below) may be reached in the phases that did not run.
 * An upper bound already broken stays broken, and one that holds held on everything that ran.
 */
function cutMakesItUnjudgeable(r: Omit<AssertionResult, 'notApplicable'>): string | undefined {
  if (r.path.endsWith('.final')) return 'an end-of-run value, and the run ended before its phase plan';
  if (!r.pass && (r.op === 'gt' || r.op === 'gte' || (r.op === 'eq' && r.actual < r.expected)))
    return 'a lower bound not reached before the run ended, inside its phase plan';
  return undefined;
}
