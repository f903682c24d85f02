// `--set path=value`: edits the raw scenario document before validation, so an
// override is checked exactly like the file itself.
import { ScenarioError, formatPath as formatSetPath, jsonTextProblem } from './errors.js';

export interface SetOverride {
  readonly raw: string;
  readonly path: ReadonlyArray<string | number>;
  readonly value: unknown;
}

const SEGMENT = /^([A-Za-z_][A-Za-z0-9_]*)((?:\[\d+\])*)$/;
/** Keys that would reach Object.prototype instead of the scenario. */
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

/** Parses "a.b[2].c=value" (or a.b.2.c); the value is JSON if it parses, else a string. */
export function parseSet(raw: string): SetOverride {
  const eq = raw.indexOf('=');
  const fail = (reason: string): never => {
    throw new ScenarioError(`--set ${raw}`, '', reason);
  };
  if (eq <= 0) fail('expected path=value, for example link.both.loss=0.1');
  const pathText = raw.slice(0, eq);
  const valueText = raw.slice(eq + 1);
  const path: Array<string | number> = [];
  for (const segment of pathText.split('.')) {
    if (/^\d+$/.test(segment)) {
      path.push(Number(segment));
      continue;
    }
    const m = SEGMENT.exec(segment);
    if (!m) fail(`bad path segment "${segment}" (expected names, [index] or .index)`);
    if (FORBIDDEN.has((m as RegExpExecArray)[1])) fail(`"${segment}" cannot be set`);
    path.push((m as RegExpExecArray)[1]);
    for (const index of (m as RegExpExecArray)[2].matchAll(/\[(\d+)\]/g)) path.push(Number(index[1]));
  }
  let value: unknown = valueText;
  try {
    value = JSON.parse(valueText);
  } catch {
    // Not JSON: keep it as a string ("4h", "fixed", …).
    return { raw, path, value };
  }
  // Checked like a file: a duplicate key is an error, not "last one wins".
  const problem = jsonTextProblem(valueText, path);
  if (problem) throw new ScenarioError(`--set ${raw}`, problem.path, problem.reason);
  return { raw, path, value };
}

/** Scenario objects whose keys are numbers: `--set link.clients.2.loss=0.1` creates `{"2": …}`. */
const NUMBER_KEYED_MAPS: ReadonlySet<string> = new Set(['link.clients']);

/** Applies an override to a plain JSON document, creating objects/arrays on the way. */
export function applySet(document: Record<string, unknown>, override: SetOverride): void {
  let node: Record<string | number, unknown> = document;
  const { path } = override;
  for (let i = 0; i < path.length; i++) {
    const key = path[i];
    if (Array.isArray(node) && typeof key === 'number' && key > node.length) {
      const where = formatSetPath(path.slice(0, i));
      throw new ScenarioError(
        `--set ${override.raw}`,
        where,
        `index ${key} is past the end (${node.length} items; use [${node.length}] to append)`,
      );
    }
    if (i === path.length - 1) break;
    // A map keyed by number (link.clients) is an object, not an array.
    const nextIsIndex = typeof path[i + 1] === 'number' && !NUMBER_KEYED_MAPS.has(formatSetPath(path.slice(0, i + 1)));
    const child = node[key];
    if (child === undefined || child === null || typeof child !== 'object') {
      if (child !== undefined && child !== null) {
        throw new ScenarioError(
          `--set ${override.raw}`,
          formatSetPath(path.slice(0, i + 1)),
          'is not an object or array, so it has no fields',
        );
      }
      node[key] = nextIsIndex ? [] : {};
    }
    node = node[key] as Record<string | number, unknown>;
  }
  node[path[path.length - 1]] = override.value;
}

/** True when one path is a prefix of the other: the override caused this error. */
export function pathsOverlap(a: ReadonlyArray<PropertyKey>, b: ReadonlyArray<PropertyKey>): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}
