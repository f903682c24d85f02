// The library's main entry: run a scenario once and summarise it.
import { VERSION } from '../../version.js';
import { micros, usToSeconds } from '../../core/engine/index.js';
import type { Micros, MicrosIn } from '../../core/engine/index.js';
import type { Scenario, SwitchOverrides } from '../scenario/index.js';
import { checkWorkBudget } from '../scenario/index.js';
import type { PresetName, TransportSwitches } from '../transport/index.js';
import type { SessionObserver } from './observer.js';
import { PROGRESS_CHUNK_US, Session } from './session.js';
import { effectiveSettings, mergeSwitches } from './settings.js';
import { phasePlanCut } from './phase-cut.js';
import { SUMMARY_SCHEMA } from './summary.js';
import type { Summary } from './summary.js';
import { summarizeConnections } from './summarize-connections.js';

export interface RunOptions {
  /** Preset to run; default the scenario's. The scenario's switch overrides apply on top. */
  readonly preset?: PresetName;
  /** Extra switches on top of preset and scenario overrides (reproduce uses this per cause). */
  readonly switches?: SwitchOverrides;
  /** A label for `mode` in the summary; default derived from the preset and overrides. */
  readonly modeLabel?: string;
  readonly durationUs?: MicrosIn;
  readonly seed?: number;
  /**
   * The `--loss` the scenario was loaded with (it is already applied to the
   * scenario): recorded in the summary's settings and its rerun command only.
   */
  readonly loss?: number;
  readonly observer?: SessionObserver;
  /** Keep a digest per datagram so two runs can be compared datagram by datagram. */
  readonly keepDigests?: boolean;
  /** Called every simulated minute with the simulated time reached (progress bars). */
  readonly onProgress?: (simulatedUs: Micros) => void;
}

export interface RunResult {
  readonly summary: Summary;
  readonly session: Session;
}

/** The resolved switches of a run: preset, then the scenario's overrides, then `extra`. */
export function switchesFor(scenario: Scenario, preset: PresetName, extra: SwitchOverrides = {}): TransportSwitches {
  return mergeSwitches(scenario, preset, extra);
}

export function runScenario(scenario: Scenario, options: RunOptions = {}): RunResult {
  const run = prepare(scenario, options);
  run.session.run(run.durationUs, options.onProgress);
  return finished(scenario, options, run);
}

/** Simulated time between two turns of the event loop in `runScenarioYielding`: far below a second of wall time. */
const YIELD_CHUNK_US = micros(10_000_000);

/** Why `runScenarioYielding` stopped early: the signal's reason (the CLI's "SIGINT"). */
export class RunAborted extends Error {
  override readonly name = 'RunAborted';
  constructor(readonly reason: string) {
    super(`run stopped: ${reason}`);
  }
}

/**
 * As runScenario, awaiting `turn` after every YIELD_CHUNK_US of simulated time
 * (the caller's, which gives the event loop a turn so a signal handler can
 * run: this layer sets no timer); once `signal` is aborted it throws
 * RunAborted. The run itself is the same: same events, same result.
 */
export async function runScenarioYielding(
  scenario: Scenario,
  options: RunOptions,
  turn: () => Promise<void>,
  signal: AbortSignal,
): Promise<RunResult> {
  const run = prepare(scenario, options);
  for (const t of run.session.steps(micros(run.durationUs), YIELD_CHUNK_US)) {
    if (options.onProgress && (t % PROGRESS_CHUNK_US === 0 || t === run.durationUs)) options.onProgress(t);
    await turn();
    if (signal.aborted) throw new RunAborted(String(signal.reason));
  }
  return finished(scenario, options, run);
}

interface PreparedRun {
  readonly session: Session;
  readonly preset: PresetName;
  readonly switches: TransportSwitches;
  readonly seed: number;
  readonly durationUs: MicrosIn;
}

function prepare(scenario: Scenario, options: RunOptions): PreparedRun {
  const preset = options.preset ?? scenario.preset;
  const switches = switchesFor(scenario, preset, options.switches);
  const seed = options.seed ?? scenario.seed;
  const durationUs = options.durationUs ?? scenario.durationUs;
  checkWorkBudget(scenario, durationUs); // refused up front, whatever set the duration
  const session = new Session(scenario, switches, seed, options.observer, options.keepDigests);
  return { session, preset, switches, seed, durationUs };
}

function finished(
  scenario: Scenario,
  options: RunOptions,
  { session, preset, switches, seed, durationUs }: PreparedRun,
): RunResult {
  const summary: Summary = {
    schema: SUMMARY_SCHEMA,
    version: VERSION,
    scenario: scenario.name,
    mode: options.modeLabel ?? modeLabel(preset, scenario.switchOverrides, options.switches),
    switches,
    seed,
    simulatedSeconds: usToSeconds(durationUs),
    traceHash: session.hasher.digest(),
    datagrams: session.hasher.datagramCount,
    events: session.sim.eventCount,
    ...summarizeConnections(session),
    delivery: session.deliveryStats(),
    settings: effectiveSettings(scenario, {
      preset,
      resolved: switches,
      switches: options.switches,
      seed,
      durationUs,
      loss: options.loss,
      cut: phasePlanCut(scenario.traffic, session.traffic.phaseLog, durationUs),
    }),
  };
  return { summary, session };
}

/** "stock", or "stock+fragmentAckCause=partial-ack" when switches were overridden. */
export function modeLabel(preset: PresetName, ...overrides: Array<SwitchOverrides | undefined>): string {
  const parts: string[] = [];
  for (const o of overrides) {
    for (const [key, value] of Object.entries(o ?? {})) {
      if (value === undefined) continue;
      parts.push(typeof value === 'object' ? `${key}=${JSON.stringify(value)}` : `${key}=${String(value)}`);
    }
  }
  return parts.length ? `${preset}+${parts.join('+')}` : preset;
}
