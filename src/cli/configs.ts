// `compare --config 'LABEL:ITEM[,ITEM…]'`. An item is a preset
// (`stock`, `fixed`, or `stock+switch=value…`), a switch (`ackSendLimit=5`,
// `keepalive.reliable=true`) or any scenario edit (`link.both.loss=0.1`), so a
// configuration is a preset plus switch overrides plus --set edits.
import type { PresetName } from '../model/transport/index.js';
import { UsageError } from './io.js';
import { SWITCH_NAMES, modeSpec } from './switch-flags.js';
import type { FlagEdit } from './switch-flags.js';

export interface ConfigSpec {
  readonly label: string;
  readonly preset: PresetName;
  /** Scenario edits for this configuration only: its switches as mode.* sets, then its own --set edits. */
  readonly sets: readonly FlagEdit[];
  /** The text as given, for the rerun command. */
  readonly source: string;
}

const MAX_CONFIGS = 8;
const LABEL = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$/;

/** Splits on commas outside JSON brackets and quotes: `a=[1,2],b=3` is two items. */
function items(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"' && text[i - 1] !== '\\') quoted = !quoted;
    else if (!quoted && (c === '[' || c === '{')) depth++;
    else if (!quoted && (c === ']' || c === '}')) depth--;
    else if (!quoted && depth === 0 && c === ',') {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out.map((s) => s.trim()).filter((s) => s.length > 0);
}

export function parseConfig(flag: string, text: string): ConfigSpec {
  const colon = text.indexOf(':');
  const label = colon < 0 ? '' : text.slice(0, colon);
  if (!LABEL.test(label))
    throw new UsageError(
      `${flag} ${text}: expected LABEL:ITEM[,ITEM...] with a label of letters, digits, . _ - (at most 32), e.g. 'B:fixed,ackSendLimit=5'`,
    );
  let preset: PresetName | undefined;
  const sets: FlagEdit[] = [];
  const typed = `${flag} ${text}`;
  for (const item of items(text.slice(colon + 1))) {
    const eq = item.indexOf('=');
    const plus = item.indexOf('+');
    if (eq < 0 || (plus > 0 && plus < eq)) {
      // A preset, possibly with +switch=value parts.
      if (preset !== undefined) throw new UsageError(`${flag} ${text}: two presets in one configuration`);
      const mode = modeSpec(item, flag, typed);
      preset = mode.preset;
      sets.push(...mode.sets);
    } else if (SWITCH_NAMES.includes(item.slice(0, eq))) {
      sets.push({ set: `mode.${item}`, typed, item });
    } else {
      sets.push({ set: item, typed, item }); // a scenario edit, validated like --set
    }
  }
  if (preset === undefined)
    throw new UsageError(`${flag} ${text}: name a preset (stock or fixed), e.g. '${label}:fixed,ackSendLimit=5'`);
  return { label, preset, sets, source: text };
}

export function parseConfigs(values: ReadonlyArray<{ flag: string; text: string }>): ConfigSpec[] {
  if (values.length > MAX_CONFIGS)
    throw new UsageError(`--config: at most ${MAX_CONFIGS} configurations, got ${values.length}`);
  const configs = values.map((v) => parseConfig(v.flag, v.text));
  const labels = new Set<string>();
  for (const c of configs) {
    if (labels.has(c.label)) throw new UsageError(`--config ${c.source}: the label "${c.label}" is used twice`);
    labels.add(c.label);
  }
  return configs;
}
