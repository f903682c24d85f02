// `schemes-side-by-side`: one shared workload through BC stock,
// BC fixed, R-Type documented and R-Type repaired on the same links and seed.
import { MetricsRecorder, Series } from '../../model/metrics/index.js';
import type { Bucket } from '../../model/metrics/index.js';
import { RtypeSession, summarizeRtype } from '../session/index.js';
import type { RtypeConfig, RtypeSummary } from '../session/index.js';
import type { RtypePresetName } from '../transport/index.js';
import type { Scenario } from '../../model/scenario/index.js';
import { formatDuration, msToSeconds, msToUs, perSecondOverMs } from '../../core/engine/index.js';
import { runScenario, shellQuote } from '../../model/session/index.js';
import type { Summary } from '../../model/session/index.js';
import type { PresetName } from '../../model/transport/index.js';
import { bcScenarioOf } from './bc-side.js';
import { bcFigures, rtypeFigures } from './figures.js';
import type { SchemeFigures } from './figures.js';
import { rtypeMemorySeries } from './memory.js';
import { rtypeConfigOf } from './rtype-side.js';
import type { SideBySideScenario } from './scenario-file.js';

export type SchemeColumnId = 'bc-stock' | 'bc-fixed' | 'rtype-documented' | 'rtype-repaired';

export interface SchemeColumn {
  readonly id: SchemeColumnId;
  /** "BC stock", "R-Type repaired", …: the tables' column heads. */
  readonly label: string;
  readonly figures: SchemeFigures;
  readonly traceHash: string;
  /** Per second of simulated time, at most 300 buckets (as BC's recorder): the server's modelled memory, and resends. */
  readonly series: { readonly serverMemoryBytes: readonly Bucket[]; readonly resendsPerSecond: readonly Bucket[] };
  /** The run's own summary: bcsim.summary/1 or bcsim.rtype/1. */
  readonly bc?: Summary;
  readonly rtype?: RtypeSummary;
}

export interface SchemesComparison {
  readonly scenario: SideBySideScenario;
  readonly seed: number;
  readonly durationMs: number;
  /** What each side ran: the BC scenario built from the shared workload, the R-Type config (documented's). */
  readonly bcScenario: Scenario;
  readonly rtypeConfig: RtypeConfig;
  readonly columns: readonly SchemeColumn[];
}

export interface SchemesOptions {
  readonly durationMs?: number;
  readonly seed?: number;
}

const BC_COLUMNS: ReadonlyArray<{ id: SchemeColumnId; label: string; preset: PresetName }> = [
  { id: 'bc-stock', label: 'BC stock', preset: 'stock' },
  { id: 'bc-fixed', label: 'BC fixed', preset: 'fixed' },
];
const RTYPE_COLUMNS: ReadonlyArray<{ id: SchemeColumnId; label: string; preset: RtypePresetName }> = [
  { id: 'rtype-documented', label: 'R-Type documented', preset: 'documented' },
  { id: 'rtype-repaired', label: 'R-Type repaired', preset: 'repaired' },
];

export function runSchemesSideBySide(scenario: SideBySideScenario, options: SchemesOptions = {}): SchemesComparison {
  const durationMs = options.durationMs ?? scenario.durationMs;
  const seed = options.seed ?? scenario.seed;
  if (!Number.isSafeInteger(seed)) throw new Error(`schemes: seed ${seed} is not a safe integer`);
  const bcScenario = bcScenarioOf(scenario);
  const rtypeConfig = rtypeConfigOf(scenario, 'documented', durationMs);
  const columns: SchemeColumn[] = [];
  for (const c of BC_COLUMNS) {
    const recorder = new MetricsRecorder();
    const { summary } = runScenario(bcScenario, {
      preset: c.preset,
      durationUs: msToUs(durationMs),
      seed,
      observer: recorder,
    });
    const { server } = recorder.recorded().series;
    // The BC scenario exists only in memory: the rerun command is the comparison's own.
    const bc = {
      ...summary,
      settings: { ...summary.settings, rerun: `${rerunCommand(scenario, seed, durationMs)}  (column ${c.id})` },
    };
    columns.push({
      id: c.id,
      label: c.label,
      figures: bcFigures(summary),
      traceHash: summary.traceHash,
      series: { serverMemoryBytes: server.memoryBytes.points(), resendsPerSecond: server.retransmits.points() },
      bc,
    });
  }
  for (const c of RTYPE_COLUMNS) {
    const session = new RtypeSession(rtypeConfigOf(scenario, c.preset, durationMs), seed);
    session.run();
    const summary = summarizeRtype(session);
    columns.push({
      id: c.id,
      label: c.label,
      figures: rtypeFigures(session, summary),
      traceHash: summary.traceHash,
      series: rtypeSeries(summary),
      rtype: summary,
    });
  }
  return { scenario, seed, durationMs, bcScenario, rtypeConfig, columns };
}

/** The command that reruns the comparison: a built-in by name, a file by its path. */
function rerunCommand(scenario: SideBySideScenario, seed: number, durationMs: number): string {
  const ref = scenario.source === `scenarios/schemes/${scenario.name}.json` ? scenario.name : scenario.source;
  return `bcsim compare ${shellQuote(ref)} --seed ${seed} --duration ${formatDuration(msToUs(durationMs))}`;
}

/** The R-Type samples on BC's grid: a sample at t covers the interval before it, stamped at the interval's start. */
function rtypeSeries(summary: RtypeSummary): SchemeColumn['series'] {
  const s = summary.series;
  const memory = new Series();
  const resends = new Series();
  const bytes = rtypeMemorySeries(s, summary.switches);
  s.tMs.forEach((tMs, i) => {
    const startS = msToSeconds(tMs - s.everyMs);
    memory.add(startS, bytes[i]);
    resends.add(startS, perSecondOverMs(s.resendDatagrams[i], s.everyMs));
  });
  return { serverMemoryBytes: memory.points(), resendsPerSecond: resends.points() };
}
