// The sensitivity runs of a comparison (compare --sensitivity): the stock column
// again under each reading of similar rank (docs/sources.md 25), as extra columns that
// run beside the others, here or on the worker pool, and are split off afterwards.
// They cost a full run each, so they are opt-in; without them a verdict names the
// readings it rests on and says they were not rerun.
import { VERDICT_ALTERNATIVES, alternativeDescription, alternativeRun } from '../reproduce/index.js';
import type { VerdictAlternative } from '../reproduce/index.js';
import type { SeriesTrend } from '../../model/metrics/index.js';
import type { Scenario, SwitchOverrides } from '../../model/scenario/index.js';
import type { Summary } from '../../model/session/index.js';
import type { PresetName } from '../../model/transport/index.js';

/** What a sensitivity column needs of a comparison's column (compare.ts's ModeSpec is one). */
interface Column {
  readonly label: string;
  readonly preset: PresetName;
  readonly switches?: SwitchOverrides;
  readonly scenario?: Scenario;
}

/** What it needs of a column's run (compare.ts's ComparedRun is one). */
interface ColumnRun {
  readonly spec: Column;
  readonly summary: Summary;
  readonly trends: readonly SeriesTrend[];
}

/** The stock column's figures under one reading of similar rank. */
export interface ReadingRun {
  readonly name: VerdictAlternative;
  /** What the reading changes, for the sentence that names it. */
  readonly change: string;
  readonly summary: Summary;
  readonly trends: readonly SeriesTrend[];
}

const LABEL_PREFIX = 'reading:';

/** One extra column per reading of similar rank, for the column labelled stock; none without one. */
export function sensitivityModes(scenario: Scenario, modes: readonly Column[]): Column[] {
  const stock = modes.find((m) => m.label === 'stock');
  if (stock === undefined) return [];
  return VERDICT_ALTERNATIVES.map((name): Column => {
    const alt = alternativeRun(stock.scenario ?? scenario, stock.switches ?? {}, name);
    return { label: `${LABEL_PREFIX}${name}`, preset: 'stock', switches: alt.switches, scenario: alt.scenario };
  });
}

/** The runs of `modes.length` columns followed by their sensitivity columns, split apart. */
export function splitSensitivity<R extends ColumnRun>(
  runs: readonly R[],
  columns: number,
): { runs: R[]; sensitivity: ReadingRun[] } {
  const readings = runs.slice(columns).map((run): ReadingRun => {
    const name = run.spec.label.slice(LABEL_PREFIX.length) as VerdictAlternative;
    if (!run.spec.label.startsWith(LABEL_PREFIX) || !VERDICT_ALTERNATIVES.includes(name))
      throw new Error(`splitSensitivity: column "${run.spec.label}" is not a reading of similar rank`);
    const change = alternativeDescription(name).replace(/^calibrated, but /, '');
    return { name, change, summary: run.summary, trends: run.trends };
  });
  return { runs: runs.slice(0, columns), sensitivity: readings };
}
