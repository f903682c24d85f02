// Setting switches from the command line: `--switch name=value`
// and `--mode stock+name=value+…` both become `--set mode.<name>=<value>` edits,
// so they are validated exactly like a scenario file, and blamed on the flag.
// The names and the parameters pointed to come from the switch declarations.
import { PRESET_NAMES, SWITCH_NAMES, SWITCH_PARAMS } from '../model/transport/index.js';
import type { PresetName } from '../model/transport/index.js';
import { UsageError } from './io.js';

/** Every switch name a flag accepts: the top-level ones, and a group's fields as keepalive.* / retransmit.*. */
export { SWITCH_NAMES };

/**
 * A scenario edit made from a flag other than --set: the error about a bad value
 * names what the user typed (`--switch ackSendLimit=banana`), not the edit it became.
 */
export interface FlagEdit {
  /** The edit, as `--set` takes it: `mode.ackSendLimit=banana`. */
  readonly set: string;
  /** The flag and its whole text: `--mode stock+ackSendLimit=banana`. */
  readonly typed: string;
  /** The one assignment of that text the edit came from: `ackSendLimit=banana`. */
  readonly item: string;
}

/** `--set` texts as typed, and edits made from other flags. */
export type Edit = string | FlagEdit;

export const editSet = (edit: Edit): string => (typeof edit === 'string' ? edit : edit.set);

/**
 * A message about `--set <edit>` ("--set mode.x=1: mode.x: reason") said about the
 * flag the edit came from instead ("--switch x=1: reason"); any other message unchanged.
 */
export function blameEdits(message: string, edits: readonly Edit[]): string {
  for (const edit of edits) {
    if (typeof edit === 'string' || !message.startsWith(`--set ${edit.set}: `)) continue;
    let rest = message.slice(`--set ${edit.set}: `.length);
    const path = edit.set.slice(0, edit.set.indexOf('='));
    const name = edit.item.slice(0, edit.item.indexOf('='));
    if (rest.startsWith(`${path}: `)) {
      rest = rest.slice(path.length + 2);
      // The path is worth naming only when the flag's text holds more than this one assignment.
      if (edit.typed.slice(edit.typed.indexOf(' ') + 1) !== edit.item) rest = `${name}: ${rest}`;
    }
    return `${edit.typed}: ${rest}`;
  }
  return message;
}

/** Transport parameters users try as switches (those that go with a switch, and the update periods): say where they go. */
const PARAMS_HINT: ReadonlySet<string> = new Set([...SWITCH_PARAMS, 'updatePeriodMs']);

function toEdit(typed: string, assignment: string): FlagEdit {
  const eq = assignment.indexOf('=');
  const name = eq < 0 ? assignment : assignment.slice(0, eq);
  if (eq <= 0 || eq === assignment.length - 1)
    throw new UsageError(`${typed}: expected name=value, for example ackSendLimit=5`);
  if (!SWITCH_NAMES.includes(name)) {
    const hint = PARAMS_HINT.has(name) ? `; ${name} is a transport parameter: --set transport.${name}=…` : '';
    throw new UsageError(`${typed}: unknown switch "${name}"${hint} (switches: ${SWITCH_NAMES.join(', ')})`);
  }
  return { set: `mode.${name}=${assignment.slice(eq + 1)}`, typed, item: assignment };
}

/** `--switch name=value` (repeatable) as scenario edits. */
export function switchSets(values: readonly string[] | undefined): FlagEdit[] {
  return (values ?? []).map((v) => toEdit(`--switch ${v}`, v));
}

/**
 * `--mode stock` or `--mode stock+ackSendLimit=5+keepalive.reliable=true`; `typed` is
 * what an error names (a --config item is blamed on the whole --config).
 */
export function modeSpec(
  value: string | undefined,
  flag = '--mode',
  typed = `${flag} ${value}`,
): { preset: PresetName | undefined; sets: FlagEdit[] } {
  if (value === undefined) return { preset: undefined, sets: [] };
  const [name, ...switches] = value.split('+');
  if (!(PRESET_NAMES as string[]).includes(name)) {
    throw new UsageError(
      `${flag}: expected ${PRESET_NAMES.join(' or ')}, optionally followed by +switch=value, got "${value}"`,
    );
  }
  return { preset: name as PresetName, sets: switches.map((s) => toEdit(typed, s)) };
}
