// A scenario problem, reported as one line: "<source>: <path>: <reason>".

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
