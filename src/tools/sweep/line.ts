// One result line per run: settings, seed, trace hash, the
// summary's key figures and the expect verdict. Built with a fixed key order and
// no wall time, so the same run always writes the same bytes.
import { evaluate, failedAssertion, resolvePath } from '../../analysis/check/index.js';
import type { Scenario } from '../../model/scenario/index.js';
import type { Summary } from '../../model/session/index.js';
import type { PresetName } from '../../model/transport/index.js';

/** The figures every line carries (summary paths); `--metrics` may add more. */
export const DEFAULT_FIGURES: readonly string[] = [
  'delivery.reliableLost',
  'delivery.duplicateDeliveries',
  'delivery.outOfOrderDeliveries',
  ...['server', 'client'].flatMap((peer) =>
    [
      'ackOutbox.max',
      'ackOutboxDeadZone.max',
      'memoryBytes.max',
      'dedupComparisons.maxPerSecond',
      'retransmits',
      'packetsSent',
      'bytesSent',
    ].map((f) => `peers.${peer}.${f}`),
  ),
];

/** What the summary table shows when `--metrics` is not given. */
export const DEFAULT_METRICS: readonly string[] = [
  'peers.server.ackOutbox.max',
  'peers.client.ackOutbox.max',
  'delivery.reliableLost',
];

export interface Verdict {
  readonly passed: boolean;
  /** The concrete paths (`*` expanded) of the assertions that failed, each once. */
  readonly failed: string[];
  /** Only when the run cut its phase plan and some assertions could not be judged (check's notApplicable). */
  readonly notApplicable?: string[];
}

export interface SweepLine {
  readonly index: number;
  /** Identifies the grid (scenario, settings, modes, values, seeds, figures): merge refuses a mix. */
  readonly grid: string;
  /** Runs in the whole grid, every shard together. */
  readonly runs: number;
  readonly scenario: string;
  readonly mode: PresetName;
  readonly seed: number;
  readonly vary: Record<string, unknown>;
  readonly traceHash: string;
  readonly simulatedSeconds: number;
  /** Nested like the summary ({delivery: {reliableLost}, peers: {server: {ackOutbox: {max}}}}), so DuckDB and json_extract read it by path. */
  readonly figures: Record<string, unknown>;
  readonly verdict: Verdict | null;
}

/** The figures at `paths`, nested as in the summary; a null figure (no data) stays null. */
export function extractFigures(summary: Summary, paths: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const path of paths) {
    let value: number | null;
    try {
      value = resolvePath(summary, path)[0]?.value ?? null;
    } catch {
      value = null; // validated up front; only a figure with no data in this run gets here
    }
    setPath(out, path.split('.'), value);
  }
  return out;
}

function setPath(node: Record<string, unknown>, parts: readonly string[], value: unknown): void {
  for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
  node[parts[parts.length - 1]] = value;
}

/** A figure of a line by summary path; undefined when the line lacks it. */
export function figureAt(line: Pick<SweepLine, 'figures'>, path: string): number | null | undefined {
  let node: unknown = line.figures;
  for (const part of path.split('.')) {
    if (node === null || typeof node !== 'object' || !Object.prototype.hasOwnProperty.call(node, part))
      return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return typeof node === 'number' ? node : node === null ? null : undefined;
}

/** The scenario's expect block for `mode`, judged; null when it has none for that mode. */
export function verdictOf(summary: Summary, scenario: Scenario, mode: PresetName): Verdict | null {
  const expectations = scenario.expect[mode];
  if (expectations === undefined) return null;
  const results = evaluate(summary, expectations);
  const failed = [...new Set(results.filter(failedAssertion).map((r) => r.path))];
  const notApplicable = [...new Set(results.filter((r) => r.notApplicable !== undefined).map((r) => r.path))];
  return { passed: failed.length === 0, failed, ...(notApplicable.length > 0 ? { notApplicable } : {}) };
}

/** The union of the default figures and the chosen metrics, defaults first, each once. */
export function figurePaths(metrics: readonly string[]): string[] {
  return [...new Set([...DEFAULT_FIGURES, ...metrics])];
}

export function serializeLine(line: SweepLine): string {
  return `${JSON.stringify(line)}\n`;
}
