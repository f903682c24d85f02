// Field checks of the scheme-scenario format: each names its field, so a bad file
// gets one line ("<file>: <field>: <reason>") and the CLI exits 2.

export class SchemeScenarioError extends Error {
  override readonly name = 'SchemeScenarioError';
  constructor(
    /** The file, or "scenarios/schemes/<name>.json". */
    readonly source: string,
    /** The field, "" for the whole file. */
    readonly path: string,
    readonly reason: string,
  ) {
    super(path === '' ? `${source}: ${reason}` : `${source}: ${path}: ${reason}`);
  }
}

function got(value: unknown): string {
  return value === undefined ? 'nothing' : JSON.stringify(value);
}

export function objectAt(label: string, path: string, value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new SchemeScenarioError(label, path, `expected a JSON object, got ${got(value)}`);
  return value as Record<string, unknown>;
}

export function unknownKeys(
  label: string,
  path: string,
  value: Record<string, unknown>,
  known: readonly string[],
): void {
  const extra = Object.keys(value).find((key) => !known.includes(key));
  if (extra !== undefined)
    throw new SchemeScenarioError(
      label,
      path === '' ? extra : `${path}.${extra}`,
      `unknown key "${extra}" (known: ${known.join(', ')})`,
    );
}

export function numberIn(label: string, path: string, value: unknown, min: number, max: number): number {
  if (typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max) return value;
  throw new SchemeScenarioError(label, path, `expected a number from ${min} to ${max}, got ${got(value)}`);
}

export function integerIn(label: string, path: string, value: unknown, min: number, max: number): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return value;
  throw new SchemeScenarioError(label, path, `expected a whole number from ${min} to ${max}, got ${got(value)}`);
}
