// A scenario problem, reported as one line: "<source>: <path>: <reason>".
import { visit } from 'jsonc-parser';

export class ScenarioError extends Error {
  override readonly name = 'ScenarioError';

  constructor(
    /** The file, "builtin:<name>", or the offending "--set path=value". */
    readonly source: string,
    /** JSON path such as link.clientToServer.loss or traffic.phases[2].kind; "" for the whole document. */
    readonly path: string,
    readonly reason: string,
  ) {
    super(path ? `${source}: ${path}: ${reason}` : `${source}: ${reason}`);
  }
}

/** Renders a zod/JS path: ["traffic", "phases", 2, "kind"] -> traffic.phases[2].kind */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (!/^[A-Za-z_$][\w$]*$/.test(String(part))) out += `[${JSON.stringify(String(part))}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

/** A short rendering of the offending value for "got …". */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 37)}...` : value);
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  return String(value);
}

/** One leading UTF-8 byte-order mark, as Windows editors write it; JSON.parse refuses it as an invisible token. */
export function withoutByteOrderMark(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Deeper than any scenario can be; also keeps the recursive JSON visitor far from the stack limit. */
const MAX_JSON_DEPTH = 64;
const STOP = Symbol('stop');

/**
 * Checks JSON text that JSON.parse already accepted for what it silently
 * tolerates: a duplicate key (the last one wins) and absurd nesting.
 * Returns the JSON path (prefixed by `basePath`) and a one-line reason.
 */
export function jsonTextProblem(
  text: string,
  basePath: ReadonlyArray<PropertyKey> = [],
): { path: string; reason: string } | null {
  const keys: Array<Set<string>> = [];
  let depth = 0;
  let problem: { path: string; reason: string } | null = null;
  const stop = (path: ReadonlyArray<PropertyKey>, reason: string): never => {
    problem = { path: formatPath([...basePath, ...path]), reason };
    throw STOP;
  };
  const enter = (line: number, character: number, path: () => ReadonlyArray<PropertyKey>): void => {
    // Only the outermost key: the full path would be as long as the nesting.
    if (++depth > MAX_JSON_DEPTH)
      stop(
        path().slice(0, 1),
        `nested deeper than ${MAX_JSON_DEPTH} levels at line ${line + 1}, column ${character + 1}`,
      );
  };
  try {
    visit(text, {
      onObjectBegin: (_offset, _length, line, character, path) => {
        enter(line, character, path);
        keys.push(new Set());
      },
      onObjectEnd: () => {
        depth--;
        keys.pop();
      },
      onArrayBegin: (_offset, _length, line, character, path) => enter(line, character, path),
      onArrayEnd: () => {
        depth--;
      },
      onObjectProperty: (key, _offset, _length, line, character, path) => {
        const seen = keys[keys.length - 1];
        if (seen.has(key))
          stop(path(), `duplicate key ${JSON.stringify(key)} at line ${line + 1}, column ${character + 1}`);
        seen.add(key);
      },
    });
  } catch (error) {
    if (error !== STOP) throw error;
  }
  return problem;
}
