// Runs a scenario in several modes with the metrics recorder attached, and keeps
// what the reports need: summaries, bounded time series, trends, phases.
import { MetricsRecorder, seriesTrends } from '../../model/metrics/index.js';
import { fanOut, runScenario } from '../../model/session/index.js';
import type { SessionObserver, Summary } from '../../model/session/index.js';
import type { RecordedRun, SeriesTrend } from '../../model/metrics/index.js';
import type { Scenario, SwitchOverrides } from '../../model/scenario/index.js';
import type { PhaseStart } from '../../model/traffic/index.js';
import { FRAGMENT_ACK_CAUSES } from '../../model/transport/index.js';
import type { PresetName } from '../../model/transport/index.js';
import { sensitivityModes, splitSensitivity } from './sensitivity.js';
import type { ReadingRun } from './sensitivity.js';

export interface ModeSpec {
  /** Column label: "stock", "fixed", "cause:<name>", or a --config label. */
  readonly label: string;
  readonly preset: PresetName;
  readonly switches?: SwitchOverrides;
  /** This column's own scenario (its --config edits applied); default the comparison's. */
  readonly scenario?: Scenario;
  /** The --config text that made this column, for the rerun command. */
  readonly source?: string;
}

export interface ComparedRun {
  readonly spec: ModeSpec;
  readonly summary: Summary;
  readonly recorded: RecordedRun;
  readonly trends: SeriesTrend[];
}

export interface Comparison {
  readonly scenario: Scenario;
  readonly seed: number;
  readonly durationUs: number;
  readonly runs: readonly ComparedRun[];
  readonly phases: readonly PhaseStart[];
  /** The stock column under each reading of similar rank; absent unless asked for (compare --sensitivity). */
  readonly sensitivity?: readonly ReadingRun[];
}

export const STOCK_AND_FIXED: readonly ModeSpec[] = [
  { label: 'stock', preset: 'stock' },
  { label: 'fixed', preset: 'fixed' },
];

/** stock and fixed, then one stock column per other fragment-ACK cause. */
export function modesWithCauses(): ModeSpec[] {
  const stockCause = 'matcher-rejects-fragments';
  return [
    ...STOCK_AND_FIXED,
    ...FRAGMENT_ACK_CAUSES.filter((c) => c !== stockCause).map((cause) => ({
      label: `cause:${cause}`,
      preset: 'stock' as const,
      switches: { fragmentAckCause: cause },
    })),
  ];
}

export interface CompareOptions {
  readonly modes?: readonly ModeSpec[];
  readonly durationUs?: number;
  readonly seed?: number;
  /** `--loss`, already applied to the scenarios: recorded in each column's settings and rerun command. */
  readonly loss?: number;
  readonly maxPoints?: number;
  /** Called between chunks of simulated time (progress display). */
  readonly onProgress?: (label: string, simulatedUs: number, totalUs: number) => void;
  /** Also rerun the stock column under each reading of similar rank, to say which verdicts flip. */
  readonly sensitivity?: boolean;
  /** Another observer for a column's run besides the metrics recorder (compare --pcap's capture). */
  readonly observerFor?: (spec: ModeSpec, index: number) => SessionObserver | undefined;
}

export function runComparison(scenario: Scenario, options: CompareOptions = {}): Comparison {
  const modes = options.modes ?? STOCK_AND_FIXED;
  const durationUs = options.durationUs ?? scenario.durationUs;
  const seed = options.seed ?? scenario.seed;
  const extra = options.sensitivity === true ? sensitivityModes(scenario, modes) : [];
  let phases: readonly PhaseStart[] = [];
  const all = [...modes, ...extra].map((spec, index): ComparedRun => {
    const column = runColumn(
      scenario,
      spec,
      { durationUs, seed, loss: options.loss, maxPoints: options.maxPoints },
      index < modes.length ? options.observerFor?.(spec, index) : undefined,
      options.onProgress,
    );
    if (phases.length === 0) phases = column.phases;
    return column.run;
  });
  return comparisonOf(scenario, seed, durationUs, all, modes.length, phases, options.sensitivity === true);
}

/** The comparison of `columns` columns whose runs `all` may be followed by their sensitivity columns. */
export function comparisonOf(
  scenario: Scenario,
  seed: number,
  durationUs: number,
  all: readonly ComparedRun[],
  columns: number,
  phases: readonly PhaseStart[],
  sensitivity: boolean,
): Comparison {
  const split = splitSensitivity(all, columns);
  const base = { scenario, seed, durationUs, runs: split.runs, phases };
  return sensitivity ? { ...base, sensitivity: split.sensitivity } : base;
}

export interface ColumnSettings {
  readonly durationUs: number;
  readonly seed: number;
  readonly loss?: number;
  readonly maxPoints?: number;
}

/** One column of a comparison: its run with the metrics recorder attached (here, or in a worker thread). */
export function runColumn(
  scenario: Scenario,
  spec: ModeSpec,
  settings: ColumnSettings,
  observer?: SessionObserver,
  onProgress?: CompareOptions['onProgress'],
): { run: ComparedRun; phases: readonly PhaseStart[] } {
  const recorder = new MetricsRecorder(settings.maxPoints);
  const { summary, session } = runScenario(spec.scenario ?? scenario, {
    preset: spec.preset,
    switches: spec.switches,
    modeLabel: spec.label,
    durationUs: settings.durationUs,
    seed: settings.seed,
    loss: settings.loss,
    observer: fanOut(recorder, observer),
    onProgress: onProgress ? (us) => onProgress(spec.label, us, settings.durationUs) : undefined,
  });
  const recorded = recorder.recorded();
  return { run: { spec, summary, recorded, trends: seriesTrends(recorded) }, phases: session.traffic.phaseLog };
}
