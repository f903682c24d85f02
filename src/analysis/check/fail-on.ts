// `compare --fail-on EXPR`: a condition over each run's
// summary that makes compare exit 1, so it can gate CI. EXPR is `leak` (any
// queue flagged as leaking) or `[LABEL:]PATH OP NUMBER` with OP one of
// > >= < <= == !=, PATH a summary path as in `expect` blocks (peers.* allowed).
import type { ModeSpec } from '../report/index.js';
import type { Scenario } from '../../model/scenario/index.js';
import { runScenario } from '../../model/session/index.js';
import type { Summary } from '../../model/session/index.js';
import { PathError, resolvePath } from './assertions.js';

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

/**
 * Checks conditions before anything runs, so a typo fails in a moment, not after the
 * runs and their reports: a label must name a column, and a path a numeric field of
 * each column's summary. The summary's own shape says which paths exist: a zero-length
 * run of the column has every field. A field with no data yet (null) is left to the runs.
 */
export function checkFailOn(conditions: readonly FailOn[], scenario: Scenario, columns: readonly ModeSpec[]): void {
  for (const c of conditions) {
    if (c.label !== null && !columns.some((m) => m.label === c.label))
      throw new FailOnError(
        `--fail-on ${JSON.stringify(c.text)}: no column "${c.label}" (columns: ${columns.map((m) => m.label).join(', ')})`,
      );
  }
  const paths = conditions.filter((c) => c.kind === 'compare');
  if (paths.length === 0) return;
  for (const column of columns) {
    const shape = runScenario(column.scenario ?? scenario, {
      preset: column.preset,
      switches: column.switches,
      durationUs: 0,
    }).summary;
    for (const c of paths) {
      if (c.label !== null && c.label !== column.label) continue;
      try {
        resolvePath(shape, c.path);
      } catch (error) {
        if (!(error instanceof PathError)) throw error;
        if (!error.metNull) throw new FailOnError(`--fail-on ${JSON.stringify(c.text)}: ${error.message}`);
      }
    }
  }
}
