// Reads a conformance rules file (`--expect rules.json`).
// Either { "rules": [ … ] } or a top-level array of rules. Every problem is one
// ConformanceRulesError naming the file, the JSON path and the reason; the CLI
// prints its message as one line and exits 2.
import { readFileSync, statSync } from 'node:fs';
import { describeValue, formatPath, jsonTextProblem } from '../../model/scenario/index.js';
import { MAX_RULES, RULE_KINDS, RULE_SCHEMAS, ruleName } from './rules.js';
import type { ConformanceRule, RuleKind } from './rules.js';
import { fileErrorText } from '../../core/files/index.js';

export class ConformanceRulesError extends Error {
  override readonly name = 'ConformanceRulesError';

  constructor(
    /** The file (or label) the rules came from. */
    readonly source: string,
    /** JSON path such as rules[2].ms; "" for the whole document. */
    readonly path: string,
    readonly reason: string,
  ) {
    super(path ? `${source}: ${path}: ${reason}` : `${source}: ${reason}`);
  }
}

/** A rules file is a few lines; anything this large is not one. */
export const MAX_RULES_FILE_BYTES = 1024 * 1024;

export function loadConformanceRules(file: string): ConformanceRule[] {
  let text: string;
  try {
    const size = statSync(file).size;
    if (size > MAX_RULES_FILE_BYTES) {
      throw new ConformanceRulesError(
        file,
        '',
        `the file is ${size.toLocaleString('en-US')} bytes, more than the ${MAX_RULES_FILE_BYTES.toLocaleString('en-US')} a rules file may have`,
      );
    }
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof ConformanceRulesError) throw error;
    throw new ConformanceRulesError(file, '', `cannot read: ${fileErrorText(error)}`);
  }
  return parseConformanceRules(text, file);
}

/** Parses rules JSON text; `source` names it in errors. */
export function parseConformanceRules(text: string, source: string): ConformanceRule[] {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new ConformanceRulesError(source, '', `invalid JSON: ${(error as Error).message}`);
  }
  // Duplicate keys and absurd nesting, which JSON.parse tolerates silently.
  const problem = jsonTextProblem(text);
  if (problem) throw new ConformanceRulesError(source, problem.path, problem.reason);
  return validateConformanceRules(document, source);
}

/** Validates an already parsed document. */
export function validateConformanceRules(document: unknown, source: string): ConformanceRule[] {
  const fail = (path: PropertyKey[], reason: string): never => {
    throw new ConformanceRulesError(source, formatPath(path), reason);
  };
  let list: unknown;
  let base: PropertyKey[];
  if (Array.isArray(document)) {
    list = document;
    base = [];
  } else if (document !== null && typeof document === 'object') {
    const keys = Object.keys(document);
    const extra = keys.find((k) => k !== 'rules');
    if (extra !== undefined) fail([extra], `unknown key "${extra}" (expected only "rules")`);
    list = (document as { rules?: unknown }).rules;
    base = ['rules'];
    if (list === undefined) fail(base, 'expected an array of rules, but it is missing');
  } else {
    return fail([], `expected { "rules": [ … ] } or an array of rules, got ${describeValue(document)}`);
  }
  if (!Array.isArray(list)) return fail(base, `expected an array of rules, got ${describeValue(list)}`);
  // An empty list would pass whatever the counterpart does.
  if (list.length === 0) fail(base, 'expected at least one rule (leave out --expect for the default rules)');
  if (list.length > MAX_RULES) fail(base, `expected at most ${MAX_RULES} rules, got ${list.length}`);
  const rules = list.map((entry, i) => validateRule(entry, [...base, i], fail));
  const seen = new Map<string, number>();
  rules.forEach((rule, i) => {
    const name = ruleName(rule);
    const first = seen.get(name);
    if (first !== undefined)
      fail([...base, i, 'name'], `duplicate rule name "${name}" (also rule ${first}); give each a distinct "name"`);
    seen.set(name, i);
  });
  return rules;
}

function validateRule(
  entry: unknown,
  path: PropertyKey[],
  fail: (path: PropertyKey[], reason: string) => never,
): ConformanceRule {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry))
    return fail(path, `expected a rule object, got ${describeValue(entry)}`);
  const kind = (entry as { rule?: unknown }).rule;
  if (kind === undefined)
    return fail([...path, 'rule'], `expected a rule kind (${RULE_KINDS.join(', ')}), but it is missing`);
  if (typeof kind !== 'string' || !(RULE_KINDS as readonly string[]).includes(kind)) {
    return fail([...path, 'rule'], `unknown rule ${describeValue(kind)} (expected one of: ${RULE_KINDS.join(', ')})`);
  }
  const parsed = RULE_SCHEMAS[kind as RuleKind].safeParse(entry);
  if (parsed.success) {
    const rule = parsed.data as ConformanceRule;
    if (rule.rule === 'retransmit-interval' && rule.minMs > rule.maxMs)
      fail([...path, 'minMs'], `minMs ${rule.minMs} is above maxMs ${rule.maxMs}`);
    return rule;
  }
  // Code-unit order, as the scenario loader: the error shown must not depend on LANG.
  const issue = [...parsed.error.issues].sort((a, b) => (formatPath(a.path) < formatPath(b.path) ? -1 : 1))[0];
  if (issue.code === 'unrecognized_keys')
    return fail([...path, issue.keys[0]], `unknown key "${issue.keys[0]}" for rule "${kind}"`);
  const value = (entry as Record<PropertyKey, unknown>)[issue.path[0] as string];
  const reason =
    value === undefined ? `${issue.message}, but it is missing` : `${issue.message}, got ${describeValue(value)}`;
  return fail([...path, ...issue.path], reason);
}
