// The effective settings of one run: the preset, every switch and parameter
// after overrides, the --set list, seed and duration, and a bcsim command line
// that reruns it. Every summary and report records them, so a reader can rerun
// any figure from the file alone.
import { existsSync, realpathSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { formatDuration, usToSeconds } from '../../core/engine/index.js';
import type { MicrosIn } from '../../core/engine/index.js';
import { BUILTIN_DIR } from '../scenario/index.js';
import type { Scenario, ScenarioParams, SwitchOverrides } from '../scenario/index.js';
import { ineffectiveSettings, PRESETS, resolveSwitches } from '../transport/index.js';
import type { PresetName, TransportSwitches } from '../transport/index.js';
import type { PhasePlanCut } from './phase-cut.js';

export interface EffectiveSettings {
  /** The preset the run used (--mode, else the scenario's). */
  readonly preset: PresetName;
  /** Every switch, after the scenario's and the run's overrides. */
  readonly switches: TransportSwitches;
  /** Only the switches that differ from the preset; {} when the run is the plain preset. */
  readonly changedSwitches: SwitchOverrides;
  /** Every transport parameter after overrides, update periods per role included. */
  readonly params: ScenarioParams;
  /** The --set overrides, in the order they were applied. */
  readonly set: readonly string[];
  /** Switch overrides as given: by the scenario's `mode` block, and by the run itself (compare --causes, reproduce). */
  readonly switchOverrides: { readonly scenario: SwitchOverrides; readonly run: SwitchOverrides };
  /** `run --loss`: Bernoulli loss that replaced every loss model of the scenario; null when not used. */
  readonly loss: number | null;
  readonly seed: number;
  readonly durationSeconds: number;
  /** How many clients the server had. */
  readonly clients: number;
  readonly scenario: string;
  /** Where the scenario came from: "scenarios/<name>.json" for a built-in, else the path given. */
  readonly source: string;
  /** A bcsim command that reruns exactly this run and prints its summary (same traceHash). */
  readonly rerun: string;
  /** Switches and parameters set here that have no effect under the design chosen. */
  readonly warnings: readonly string[];
  /**
   * Only when the run ended before its phase plan did (a --duration shorter than the plan):
   * the phase it ended in and the phases that never ran. `expect` judges such a run by
   * what it can still tell (docs/compare-and-check.md#check-in-ci).
   */
  readonly phasePlanCut?: PhasePlanCut;
}

export interface SettingsOptions {
  readonly preset: PresetName;
  /** The resolved switches; default: the preset with the scenario's and `switches` overrides. */
  readonly resolved?: TransportSwitches;
  /** Run-level switch overrides on top of the scenario's. */
  readonly switches?: SwitchOverrides;
  readonly seed?: number;
  readonly durationUs?: MicrosIn;
  readonly loss?: number;
  /** The run's cut of its phase plan, once it has run (phase-cut.ts). */
  readonly cut?: PhasePlanCut | null;
}

export function effectiveSettings(scenario: Scenario, options: SettingsOptions): EffectiveSettings {
  const preset = options.preset;
  const switches = options.resolved ?? mergeSwitches(scenario, preset, options.switches);
  const changed = changedSwitches(preset, switches);
  const seed = options.seed ?? scenario.seed;
  const durationUs = options.durationUs ?? scenario.durationUs;
  const loss = options.loss ?? null;
  const runOverrides = copyJson(options.switches ?? {});
  // The rerun loads the same scenario with the same --set list, so it gets the
  // scenario's switches; when the run changed them, one more --set replaces the
  // whole mode block with the preset and exactly the switches that differ from it.
  const needsModeSet = !sameJson(switches, mergeSwitches(scenario, preset));
  const words = [
    'bcsim',
    'run',
    scenarioRef(scenario),
    '--mode',
    preset,
    '--seed',
    String(seed),
    '--duration',
    formatDuration(durationUs),
  ];
  if (loss !== null) words.push('--loss', String(loss));
  for (const s of scenario.overrides) words.push('--set', s);
  if (needsModeSet) words.push('--set', `mode=${JSON.stringify({ preset, ...changed })}`);
  words.push('--json');
  return {
    preset,
    switches: copyJson(switches),
    changedSwitches: changed,
    params: copyJson(scenario.params),
    set: [...scenario.overrides],
    switchOverrides: { scenario: copyJson(scenario.switchOverrides), run: runOverrides },
    loss,
    seed,
    durationSeconds: usToSeconds(durationUs),
    clients: scenario.clients,
    scenario: scenario.name,
    source: scenario.source,
    rerun: words.map(shellQuote).join(' '),
    warnings: ineffectiveSettings(switches, explicitSwitches(scenario, options.switches), scenario.params),
    ...(options.cut ? { phasePlanCut: options.cut } : {}),
  };
}

/** What the scenario and the run set on purpose, merged as mergeSwitches merges them. */
function explicitSwitches(scenario: Scenario, extra: SwitchOverrides = {}): SwitchOverrides {
  const own = scenario.switchOverrides;
  const merged: SwitchOverrides = { ...own, ...extra };
  if (own.retransmit || extra.retransmit) merged.retransmit = { ...own.retransmit, ...extra.retransmit };
  if (own.keepalive || extra.keepalive) merged.keepalive = { ...own.keepalive, ...extra.keepalive };
  return merged;
}

/** The preset, then the scenario's switch overrides, then the run's (session/run.ts switchesFor). */
export function mergeSwitches(scenario: Scenario, preset: PresetName, extra: SwitchOverrides = {}): TransportSwitches {
  const merged: SwitchOverrides = {
    ...scenario.switchOverrides,
    ...extra,
    retransmit: { ...scenario.switchOverrides.retransmit, ...extra.retransmit },
    keepalive: { ...scenario.switchOverrides.keepalive, ...extra.keepalive },
  };
  return resolveSwitches(preset, merged);
}

/** The switches that differ from the preset; nested policies give only their differing fields. */
function changedSwitches(preset: PresetName, switches: TransportSwitches): SwitchOverrides {
  const base = PRESETS[preset] as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(switches)) {
    const was = base[key];
    if (isPlainObject(value) && isPlainObject(was)) {
      const diff = Object.fromEntries(Object.entries(value).filter(([k, v]) => !sameJson(v, was[k])));
      if (Object.keys(diff).length > 0) out[key] = copyJson(diff);
    } else if (!sameJson(value, was)) {
      out[key] = copyJson(value);
    }
  }
  return out as SwitchOverrides;
}

/** "key=value" per changed switch, nested policies as key.field=value; [] for the plain preset. */
export function changedSwitchList(changed: SwitchOverrides): string[] {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(changed)) {
    if (isPlainObject(value)) for (const [k, v] of Object.entries(value)) parts.push(`${key}.${k}=${text(v)}`);
    else parts.push(`${key}=${text(value)}`);
  }
  return parts;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * The reference to give `bcsim run`: the built-in's name when the scenario is a
 * built-in ("builtin:<name>", or the "scenarios/<name>.json" label of one that is
 * not shadowed by another file of that path here), else the path as given.
 */
export function scenarioRef(scenario: Pick<Scenario, 'source'>): string {
  const source = scenario.source;
  if (source.startsWith('builtin:')) return source.slice('builtin:'.length);
  const m = /^scenarios\/([^/\\]+)\.json$/.exec(source);
  if (m === null) return source;
  const builtin = resolvePath(BUILTIN_DIR, `${m[1]}.json`);
  if (!existsSync(builtin)) return source;
  const local = resolvePath(source);
  if (existsSync(local) && realpathSync(local) !== realpathSync(builtin)) return source;
  return m[1];
}

/** Quotes a word for a POSIX shell when it needs it. */
export function shellQuote(word: string): string {
  return /^[\w./:=@,+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A plain, unshared copy: the settings never alias the scenario or the presets. */
function copyJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
