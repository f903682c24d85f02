// Every key path a scenario file may hold, read from the schema itself, so an
// unknown key can name the nearest valid path ("did you mean
// transport.ackResendIntervalMs?") and the list never drifts from the schema.
import { scenarioSchema } from './schema.js';

/** A path pattern: object keys, `[]` for any array index, `*` for any key of a map. */
type Pattern = readonly string[];

/** Deeper than any scenario path; also stops a recursive schema. */
const MAX_SCHEMA_DEPTH = 40;

let cached: Pattern[] | undefined;

/** Every key path of the scenario schema, as patterns. */
function scenarioKeyPaths(): readonly Pattern[] {
  if (cached !== undefined) return cached;
  const out = new Map<string, Pattern>();
  walk(scenarioSchema(), [], out, []);
  return (cached = [...out.values()]);
}

interface SchemaNode {
  readonly _zod?: { readonly def: Record<string, unknown> & { readonly type: string } };
}

function walk(node: unknown, path: Pattern, out: Map<string, Pattern>, stack: readonly unknown[]): void {
  const def = (node as SchemaNode | undefined)?._zod?.def;
  if (def === undefined || stack.includes(node) || stack.length > MAX_SCHEMA_DEPTH) return;
  const inner = [...stack, node];
  switch (def.type) {
    case 'object':
      for (const [key, child] of Object.entries(def.shape as Record<string, unknown>)) {
        const at = [...path, key];
        out.set(at.join('\u0000'), at);
        walk(child, at, out, inner);
      }
      return;
    case 'optional':
    case 'nullable':
    case 'default':
    case 'readonly':
    case 'nonoptional':
    case 'catch':
    case 'prefault':
      walk(def.innerType, path, out, inner);
      return;
    case 'pipe':
      walk(def.in, path, out, inner);
      walk(def.out, path, out, inner);
      return;
    case 'union':
      for (const option of def.options as unknown[]) walk(option, path, out, inner);
      return;
    case 'array':
      walk(def.element, [...path, '[]'], out, inner);
      return;
    case 'record':
      walk(def.valueType, [...path, '*'], out, inner);
      return;
    case 'lazy':
      walk((def.getter as () => unknown)(), path, out, inner);
      return;
    default:
      return;
  }
}

/**
 * The valid path nearest to an unknown `key` found under `parent`: the same key
 * (or one a typo away) elsewhere or beside it. Ranked by how close the key is,
 * then by how much of `parent` the path shares, then by length. undefined when
 * nothing is close.
 */
export function nearestKeyPath(parent: ReadonlyArray<PropertyKey>, key: string): string | undefined {
  const wanted = key.toLowerCase();
  const limit = Math.max(1, Math.floor(key.length / 4));
  let best: { pattern: Pattern; distance: number; shared: number } | undefined;
  for (const pattern of scenarioKeyPaths()) {
    const last = pattern[pattern.length - 1];
    const distance = editDistance(wanted, last.toLowerCase(), limit);
    if (distance > limit) continue;
    const shared = sharedPrefix(pattern, parent);
    if (
      best === undefined ||
      distance < best.distance ||
      (distance === best.distance &&
        (shared > best.shared || (shared === best.shared && pattern.length < best.pattern.length)))
    ) {
      best = { pattern, distance, shared };
    }
  }
  return best === undefined ? undefined : render(best.pattern, parent);
}

/** How many leading segments of the concrete path the pattern matches. */
function sharedPrefix(pattern: Pattern, concrete: ReadonlyArray<PropertyKey>): number {
  let n = 0;
  while (n < pattern.length - 1 && n < concrete.length && segmentMatches(pattern[n], concrete[n])) n++;
  return n;
}

function segmentMatches(segment: string, value: PropertyKey): boolean {
  if (segment === '[]') return typeof value === 'number';
  if (segment === '*') return true;
  return segment === String(value);
}

/** The pattern as a --set path: wildcards the concrete path fills are filled, the rest shown as [N] and <k>. */
function render(pattern: Pattern, concrete: ReadonlyArray<PropertyKey>): string {
  let out = '';
  pattern.forEach((segment, i) => {
    const value = i < concrete.length && segmentMatches(segment, concrete[i]) ? concrete[i] : undefined;
    if (segment === '[]') out += `[${value === undefined ? 'N' : String(value)}]`;
    else out += `${out === '' ? '' : '.'}${segment === '*' ? (value === undefined ? '<k>' : String(value)) : segment}`;
  });
  return out;
}

/** Levenshtein distance, stopping early once it exceeds `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      rowMin = Math.min(rowMin, current[j]);
    }
    if (rowMin > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length];
}
