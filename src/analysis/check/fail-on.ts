// `compare --fail-on EXPR`: a condition over each run's
// summary that makes compare exit 1, so it can gate CI. EXPR is `leak` (any
// queue flagged as leaking) or `[LABEL:]PATH OP NUMBER` with OP one of
// > >= < <= == !=, PATH a summary path as in `expect` blocks (peers.* allowed).
import type { Summary } from '../../model/session/index.js';
import { resolvePath } from './assertions.js';

export interface FailOn {
  readonly text: string;
  readonly label: string | null;
  readonly kind: 'leak' | 'compare';
  readonly path: string;
  readonly op: string;
  readonly value: number;
}

export interface FailOnRun {
  readonly label: string;
  readonly summary: Summary;
  readonly leaks: readonly string[];
}

export class FailOnError extends Error {
  override readonly name = 'FailOnError';
}

const OPS: Record<string, (a: number, b: number) => boolean> = {
  '>=': (a, b) => a >= b,
  '<=': (a, b) => a <= b,
  '==': (a, b) => a === b,
  '!=': (a, b) => a !== b,
  '>': (a, b) => a > b,
  '<': (a, b) => a < b,
};
const EXPR = /^(?:([A-Za-z0-9][A-Za-z0-9_.-]*):)?([A-Za-z0-9_.*]+)\s*(>=|<=|==|!=|>|<)\s*(-?\d+(?:\.\d+)?)$/;

export function parseFailOn(text: string): FailOn {
  const trimmed = text.trim();
  const leak = /^(?:([A-Za-z0-9][A-Za-z0-9_.-]*):)?leak$/.exec(trimmed);
  if (leak) return { text, label: leak[1] ?? null, kind: 'leak', path: '', op: '', value: 0 };
  const m = EXPR.exec(trimmed);
  if (!m)
    throw new FailOnError(
      `--fail-on ${JSON.stringify(text)}: expected "leak" or "[LABEL:]PATH OP NUMBER", e.g. delivery.reliableLost>0 (OP: > >= < <= == !=)`,
    );
  return { text, label: m[1] ?? null, kind: 'compare', path: m[2], op: m[3], value: Number(m[4]) };
}

/** The runs each condition holds for, as "LABEL: path = value" lines; empty when none fails. */
export function failures(conditions: readonly FailOn[], runs: readonly FailOnRun[]): string[] {
  const out: string[] = [];
  for (const c of conditions) {
    if (c.label !== null && !runs.some((r) => r.label === c.label)) {
      throw new FailOnError(
        `--fail-on ${JSON.stringify(c.text)}: no column "${c.label}" (columns: ${runs.map((r) => r.label).join(', ')})`,
      );
    }
    for (const run of runs) {
      if (c.label !== null && run.label !== c.label) continue;
      if (c.kind === 'leak') {
        if (run.leaks.length > 0) out.push(`${run.label}: leak (${run.leaks.join(', ')})`);
        continue;
      }
      let resolved;
      try {
        resolved = resolvePath(run.summary, c.path);
      } catch (error) {
        throw new FailOnError(`--fail-on ${JSON.stringify(c.text)}: ${(error as Error).message}`);
      }
      for (const { path, value } of resolved)
        if (OPS[c.op](value, c.value)) out.push(`${run.label}: ${path} = ${value} (${c.op} ${c.value})`);
    }
  }
  return out;
}
