// Finds, reads, overrides and validates a scenario. A scenario reference is a
// built-in name (scenarios/<name>.json in this package) or a file path.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as z from 'zod';
import { fileErrorText } from '../../core/files/index.js';
import { ScenarioError, describeValue, formatPath, jsonTextProblem, withoutByteOrderMark } from './errors.js';
import { nearestKeyPath } from './key-paths.js';
import { applySet, parseSet, pathsOverlap } from './overrides.js';
import type { SetOverride } from './overrides.js';
import { resolveScenario } from './resolve.js';
import type { Scenario } from './scenario.js';
import { scenarioSchema } from './schema.js';
import { storedBuiltin } from './stored.js';
import type { StoredBuiltin } from './stored.js';

/** How far above a module the package's scenarios/ may be (dist/<group>/<folder>/ is three). */
const MAX_FIND_UP = 8;

/** The package's scenarios/ folder: the nearest one at or above this module, wherever it was built to or bundled. */
export const BUILTIN_DIR = findUp(fileURLToPath(new URL('.', import.meta.url)), 'scenarios');

/** The nearest `name` at or above `dir`; `dir`/`name` if there is none. */
function findUp(dir: string, name: string): string {
  for (let at = dir, up = 0; up < MAX_FIND_UP; at = dirname(at), up++)
    if (existsSync(join(at, name))) return join(at, name);
  return join(dir, name);
}

/** A ref with a path separator or a .json ending is a file; anything else names a built-in. */
export function looksLikePath(ref: string): boolean {
  return ref.includes('/') || ref.includes('\\') || ref.endsWith('.json');
}

export interface LoadOptions {
  /** --set overrides, "path=value". */
  readonly sets?: readonly string[];
  /** Replaces the loss model of both directions with Bernoulli loss (`run --loss`). */
  readonly loss?: number;
  /** Base for relative paths. */
  readonly cwd?: string;
}

const NOT_A_FILE = 'is a directory, not a scenario file';

/** Far above any hand-written scenario (the schema's size limits fit in ~2 MB); checked before reading. */
export const MAX_SCENARIO_FILE_BYTES = 16 * 1024 * 1024;

export function loadScenario(ref: string, options: LoadOptions = {}): Scenario {
  const { file, label, builtin } = locate(ref, options.cwd ?? process.cwd());
  let text: string;
  try {
    const stats = statSync(file);
    if (stats.isDirectory()) throw new ScenarioError(label, '', NOT_A_FILE);
    const size = stats.size;
    if (size > MAX_SCENARIO_FILE_BYTES)
      throw new ScenarioError(
        label,
        '',
        `the file is ${size.toLocaleString('en-US')} bytes, more than the ${MAX_SCENARIO_FILE_BYTES.toLocaleString('en-US')} a scenario may have`,
      );
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof ScenarioError) throw error;
    throw new ScenarioError(label, '', `cannot read: ${fileErrorText(error)}`);
  }
  const unchanged = builtin !== undefined && (options.sets ?? []).length === 0 && options.loss === undefined;
  return (
    (unchanged ? storedBuiltin(builtin, text) : undefined) ??
    parseScenario(text, label, options.sets ?? [], options.loss)
  );
}

/** What the build stores for the built-ins (stored.ts), by file name: each file's text and the schema's result for it. */
export function storedBuiltins(): Record<string, StoredBuiltin> {
  const names = readdirSync(BUILTIN_DIR)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort();
  return Object.fromEntries(
    names.map((name) => {
      const text = readFileSync(resolvePath(BUILTIN_DIR, `${name}.json`), 'utf8');
      return [name, { text, scenario: parseScenario(text, builtinLabel(name)) }];
    }),
  );
}

function builtinLabel(name: string): string {
  return `scenarios/${name}.json`;
}

/**
 * The JSON document of a file's text (a byte-order mark dropped), or a ScenarioError naming
 * `label`: invalid JSON with where, or a text problem the parser lets through (jsonTextProblem).
 */
export function readJsonDocument(fileText: string, label: string): unknown {
  const text = withoutByteOrderMark(fileText);
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new ScenarioError(label, '', `invalid JSON: ${jsonErrorWhere(text, error as Error)}`);
  }
  const problem = jsonTextProblem(text);
  if (problem) throw new ScenarioError(label, problem.path, problem.reason);
  return document;
}

/** Parses scenario JSON text; `label` names it in errors. */
export function parseScenario(fileText: string, label: string, sets: readonly string[] = [], loss?: number): Scenario {
  const document = readJsonDocument(fileText, label);
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    throw new ScenarioError(label, '', 'expected a JSON object at the top level');
  }
  const overrides = sets.map(parseSet);
  for (const override of overrides) {
    // `mode.<switch>=…` where the mode is a preset name: the name becomes { "preset": name } first.
    if (override.path[0] === 'mode' && override.path.length > 1) presetAsObject(document as Record<string, unknown>);
    applySet(document as Record<string, unknown>, override);
  }
  if (loss !== undefined) replaceLoss(document as Record<string, unknown>, loss);
  const parsed = scenarioSchema().safeParse(document);
  if (!parsed.success) throw issueToError(parsed.error.issues, document, label, overrides);
  try {
    return resolveScenario(parsed.data, label, sets);
  } catch (error) {
    throw error instanceof ScenarioError ? blameOverride(error, overrides) : error;
  }
}

/** A cross-field error at a path a --set wrote is blamed on that flag, like a schema error. */
function blameOverride(error: ScenarioError, overrides: SetOverride[]): ScenarioError {
  const under = (path: string, prefix: string) =>
    path === prefix || path.startsWith(`${prefix}.`) || path.startsWith(`${prefix}[`);
  const culprit = overrides.find((o) => under(error.path, formatPath(o.path)) || under(formatPath(o.path), error.path));
  return culprit ? new ScenarioError(`--set ${culprit.raw}`, error.path, error.reason) : error;
}

function presetAsObject(document: Record<string, unknown>): void {
  if (document.mode === undefined) document.mode = { preset: 'stock' };
  else if (typeof document.mode === 'string') document.mode = { preset: document.mode };
}

/** Every direction loses with probability `loss`, whatever loss model the file had. */
function replaceLoss(document: Record<string, unknown>, loss: number): void {
  const link = (document.link ??= {}) as Record<string, Record<string, unknown> | undefined>;
  if (typeof link !== 'object' || link === null) return; // the schema reports it
  for (const name of ['both', 'clientToServer', 'serverToClient']) {
    const block = link[name];
    if (block && typeof block === 'object') {
      delete block.loss;
      delete block.gilbertElliott;
    }
  }
  link.both = { ...(link.both ?? {}), loss };
}

/** Names and descriptions of the built-in scenarios, sorted by name. */
export function listBuiltins(): Array<{ name: string; description: string; duration: string; clients: number }> {
  return readdirSync(BUILTIN_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const raw = JSON.parse(readFileSync(resolvePath(BUILTIN_DIR, f), 'utf8')) as {
        name: string;
        description?: string;
        duration?: string;
        clients?: number;
      };
      return {
        name: raw.name,
        description: raw.description ?? '',
        duration: String(raw.duration ?? ''),
        clients: raw.clients ?? 1,
      };
    });
}

export function builtinNames(): string[] {
  return listBuiltins().map((b) => b.name);
}

/** The file a reference names; `builtin` is the built-in's name when it is one. */
function locate(ref: string, cwd: string): { file: string; label: string; builtin?: string } {
  if (!looksLikePath(ref)) {
    const builtin = resolvePath(BUILTIN_DIR, `${ref}.json`);
    if (existsSync(builtin)) return { file: builtin, label: builtinLabel(ref), builtin: ref };
    // A bare name is a built-in's; say what the name is here when it is something else.
    const local = resolvePath(cwd, ref);
    if (existsSync(local) && statSync(local).isDirectory()) throw new ScenarioError(ref, '', NOT_A_FILE);
    const names = `no built-in scenario of that name (try one of: ${builtinNames().join(', ')})`;
    throw new ScenarioError(
      ref,
      '',
      existsSync(local) ? `${names}; to read the file ${ref}, write ./${ref}` : `${names} and no such file`,
    );
  }
  return { file: resolvePath(cwd, ref), label: ref };
}

/** The first issue, as "<source>: <path>: <reason>, got <value>". */
function issueToError(
  issues: z.core.$ZodIssue[],
  document: unknown,
  label: string,
  overrides: SetOverride[],
): ScenarioError {
  // Code-unit order, not localeCompare: the chosen error must not depend on LANG.
  const issue = [...issues]
    .map((i) => ({ i, key: formatPath(i.path) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))[0].i;
  let path: PropertyKey[] = [...issue.path];
  let reason: string;
  if (issue.code === 'unrecognized_keys') {
    const near = nearestKeyPath(path, issue.keys[0]);
    path = [...path, issue.keys[0]];
    reason = `unknown key "${issue.keys[0]}"${near === undefined || near === formatPath(path) ? '' : ` (did you mean ${near}?)`}`;
  } else if (issue.code === 'invalid_union' && 'discriminator' in issue && issue.discriminator) {
    reason = `${issue.message.startsWith('Invalid') ? 'expected a phase kind: join, lobby, combat, lull, quiet or disconnect' : issue.message}, got ${describeValue(valueAt(document, path))}`;
  } else {
    const value = valueAt(document, path);
    const base = issue.message.startsWith('Invalid input')
      ? `expected ${'expected' in issue ? String(issue.expected) : 'a different value'}`
      : issue.message;
    reason =
      value === undefined && issue.code === 'invalid_type'
        ? `${base}, but it is missing`
        : `${base}, got ${(tooBig(issue) ? describeSize(value) : undefined) ?? describeValue(value)}`;
  }
  const culprit = overrides.find((o) => pathsOverlap(o.path, path));
  return new ScenarioError(culprit ? `--set ${culprit.raw}` : label, formatPath(path), reason);
}

/** A size limit (zod's too_big, or the assertion-count refine). */
function tooBig(issue: z.core.$ZodIssue): boolean {
  return issue.code === 'too_big' || issue.message.startsWith('expected at most');
}

/** For a too-long array, string or object: its size, not its contents. */
function describeSize(value: unknown): string | undefined {
  if (Array.isArray(value)) return `${value.length.toLocaleString('en-US')} items`;
  if (typeof value === 'string') return `${value.length.toLocaleString('en-US')} characters`;
  if (value !== null && typeof value === 'object') return `${Object.keys(value).length.toLocaleString('en-US')} keys`;
  return undefined;
}

/** Keys a string shorthand expands into ("stock" -> { preset: "stock" }, "join" -> { kind: "join" }, a manifest's "App.pyc" -> { name: "App.pyc" }). */
const SHORTHAND_KEYS = new Set<PropertyKey>(['preset', 'kind', 'name']);

function valueAt(document: unknown, path: readonly PropertyKey[]): unknown {
  let node = document;
  for (const key of path) {
    if (typeof node === 'string' && SHORTHAND_KEYS.has(key)) return node;
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

function jsonErrorWhere(text: string, error: Error): string {
  const invisible = /^Unexpected token '([\p{Cc}\p{Cf}\p{Z}])'/u.exec(error.message);
  if (invisible)
    return `unexpected invisible character U+${invisible[1].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}${whereIn(text, text.indexOf(invisible[1]))}`;
  const match = /position (\d+)/.exec(error.message);
  if (!match) return error.message;
  return `${error.message.replace(/ in JSON at position \d+.*$/, '')}${whereIn(text, Number(match[1]))}`;
}

function whereIn(text: string, position: number): string {
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - before.lastIndexOf('\n');
  return ` at line ${line}, column ${column}`;
}
