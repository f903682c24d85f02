// Setting switches from the command line: `--switch name=value`
// and `--mode stock+name=value+…` both become `--set mode.<name>=<value>` edits,
// so they are validated exactly like a scenario file, and blamed on the flag.
import { PRESETS, PRESET_NAMES } from '../model/transport/index.js';
import type { PresetName } from '../model/transport/index.js';
import { UsageError } from './io.js';

const STOCK = PRESETS.stock as unknown as Record<string, unknown>;
const NESTED = ['keepalive', 'retransmit'] as const;

/** Every switch name a flag accepts: the top-level ones, and keepalive.* / retransmit.*. */
export const SWITCH_NAMES: readonly string[] = [
  ...Object.keys(STOCK).filter((k) => !(NESTED as readonly string[]).includes(k)),
  ...NESTED.flatMap((group) => Object.keys(STOCK[group] as object).map((k) => `${group}.${k}`)),
];

/** Transport parameters users try as switches: say where they go instead. */
const PARAMS_HINT = new Set([
  'ackPassOneLimit',
  'ackFreeAtCount',
  'ackResendIntervalMs',
  'datagramsPerUpdate',
  'keepaliveIdleMs',
  'peerTimeoutMs',
  'maxMessageAgeMs',
  'updatePeriodMs',
]);

function toSet(flag: string, assignment: string): string {
  const eq = assignment.indexOf('=');
  const name = eq < 0 ? assignment : assignment.slice(0, eq);
  if (eq <= 0 || eq === assignment.length - 1)
    throw new UsageError(`${flag} ${assignment}: expected name=value, for example ackSendLimit=5`);
  if (!SWITCH_NAMES.includes(name)) {
    const hint = PARAMS_HINT.has(name) ? `; ${name} is a transport parameter: --set transport.${name}=…` : '';
    throw new UsageError(
      `${flag} ${assignment}: unknown switch "${name}"${hint} (switches: ${SWITCH_NAMES.join(', ')})`,
    );
  }
  return `mode.${name}=${assignment.slice(eq + 1)}`;
}

/** `--switch name=value` (repeatable) as scenario edits. */
export function switchSets(values: readonly string[] | undefined): string[] {
  return (values ?? []).map((v) => toSet('--switch', v));
}

/** `--mode stock` or `--mode stock+ackSendLimit=5+keepalive.reliable=true`. */
export function modeSpec(
  value: string | undefined,
  flag = '--mode',
): { preset: PresetName | undefined; sets: string[] } {
  if (value === undefined) return { preset: undefined, sets: [] };
  const [name, ...switches] = value.split('+');
  if (!(PRESET_NAMES as string[]).includes(name)) {
    throw new UsageError(
      `${flag}: expected ${PRESET_NAMES.join(' or ')}, optionally followed by +switch=value, got "${value}"`,
    );
  }
  return { preset: name as PresetName, sets: switches.map((s) => toSet(flag, s)) };
}
