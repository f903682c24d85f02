// `bcsim reproduce rtype`: every defect switch on alone over
// `repaired`, and off alone from `implemented`, each measured against the five
// table symptoms with the library's own symptom tests (rtypeSymptoms).
// Two workloads per row: `loss` (Bernoulli loss both ways) measures four columns;
// `outage` adds a 5 s downlink outage for client 2, long enough for packets to
// expire, which growing lists need (nothing expires under loss alone).
import { DEFECT_DESCRIPTIONS, DEFECT_SWITCHES } from '../../rtype/transport/index.js';
import type { DefectSwitch, RtypePresetName, RtypeSwitches } from '../../rtype/transport/index.js';
import { PERFECT_LINK } from '../../model/link/index.js';
import type { LinkConfig } from '../../model/link/index.js';
import { rtypeSymptoms, runRtype } from '../../rtype/session/index.js';
import type { RtypeConfigInput, RtypeSummary, RtypeSymptom } from '../../rtype/session/index.js';
import { DEFECT_CLAIMS, TABLE_SYMPTOMS } from './rtype-expected.js';
import type { TableSymptom } from './rtype-expected.js';

export interface RtypeReproduceOptions {
  readonly seed?: number;
  /** Simulated time per run; at least 10 s (the outage starts at a third of it). */
  readonly durationMs?: number;
  /** Bernoulli loss on every link, both ways. */
  readonly loss?: number;
}

/** One measured cell: whether the symptom shows, and the figure its test read. */
export interface SymptomCell {
  readonly shows: boolean;
  /** noResend: resend datagrams; resendStorm: excess resends; deathsLost: lost pairs; growingLists: dangling entries; crossClientClear: entries cleared for others. */
  readonly value: number;
  /** noResend: death datagrams the downlinks dropped; deathsLost: of the lost, those the server reported; else 0. */
  readonly detail: number;
}

export interface RtypeReproductionRow {
  /** baseline: a preset itself; on-alone: one defect on over repaired; off-alone: one defect off from implemented. */
  readonly kind: 'baseline' | 'on-alone' | 'off-alone';
  readonly base: 'repaired' | 'implemented';
  readonly defect: DefectSwitch | null;
  readonly description: string;
  readonly cells: Record<TableSymptom, SymptomCell>;
  /** Table symptoms this row shows and its base does not. */
  readonly added: TableSymptom[];
  /** Table symptoms its base shows and this row does not. */
  readonly removed: TableSymptom[];
  /** Finer symptoms (loss workload) this row shows and its base does not. */
  readonly also: RtypeSymptom[];
  readonly traceHashes: { readonly loss: string; readonly outage: string };
  /** on-alone rows: the measurement agrees with DEFECT_CLAIMS; off-alone rows: nothing was removed. */
  readonly asClaimed: boolean;
}

export interface RtypeReproduction {
  readonly seed: number;
  readonly durationMs: number;
  readonly loss: number;
  readonly outage: { readonly client: number; readonly startMs: number; readonly endMs: number };
  readonly columns: ReadonlyArray<{ readonly symptom: TableSymptom; readonly workload: 'loss' | 'outage' }>;
  readonly rows: RtypeReproductionRow[];
  /** implemented shows no resend and lost deaths, repaired none of the five, and every row is as claimed. */
  readonly reproduces: boolean;
}

const RTYPE_REPRODUCE_DEFAULTS = { seed: 1, durationMs: 60_000, loss: 0.2 } as const;
const OUTAGE_CLIENT = 2;
const OUTAGE_MS = 5_000;

/** The workloads: 4 clients, 2 deaths/s, 4 bursts of 8 a minute, and two bursts before the last client joins. */
function workloads(durationMs: number, loss: number): Record<'loss' | 'outage', RtypeConfigInput> {
  const link: LinkConfig = {
    ...PERFECT_LINK,
    latency: { baseMs: 30, jitterMs: 5, distribution: 'uniform' },
    loss: loss > 0 ? { model: 'bernoulli', probability: loss } : { model: 'none' },
  };
  const base: RtypeConfigInput = {
    clients: 4,
    durationMs,
    links: { serverToClient: link, clientToServer: link },
    workload: {
      deathsPerSecond: 2,
      burstsPerMinute: 4,
      scriptedBursts: [
        { atMs: 1_200, size: 8 },
        { atMs: 2_200, size: 8 },
      ],
    },
  };
  const start = Math.round(durationMs / 3);
  const down: LinkConfig = { ...link, outages: [{ startMs: start, endMs: start + OUTAGE_MS }] };
  return { loss: base, outage: { ...base, clientLinks: [null, { serverToClient: down }] } };
}

const COLUMN_WORKLOAD: Record<TableSymptom, 'loss' | 'outage'> = {
  noResend: 'loss',
  resendStorm: 'loss',
  deathsLost: 'loss',
  growingLists: 'outage',
  crossClientClear: 'loss',
};

function cell(symptom: TableSymptom, s: RtypeSummary): SymptomCell {
  const shows = rtypeSymptoms(s).includes(symptom);
  switch (symptom) {
    case 'noResend':
      return { shows, value: s.resends.datagrams, detail: s.wire.criticalDropped };
    case 'resendStorm':
      return { shows, value: s.resends.excess, detail: 0 };
    case 'deathsLost':
      return { shows, value: s.deaths.lost, detail: s.deaths.reportedLost };
    case 'growingLists':
      return { shows, value: s.pending.danglingFinal, detail: 0 };
    case 'crossClientClear':
      return { shows, value: s.confirmations.clearedForOthers, detail: 0 };
  }
}

interface Measured {
  readonly cells: Record<TableSymptom, SymptomCell>;
  readonly finer: RtypeSymptom[];
  readonly traceHashes: { loss: string; outage: string };
}

export function reproduceRtype(options: RtypeReproduceOptions = {}): RtypeReproduction {
  const seed = options.seed ?? RTYPE_REPRODUCE_DEFAULTS.seed;
  const durationMs = options.durationMs ?? RTYPE_REPRODUCE_DEFAULTS.durationMs;
  const loss = options.loss ?? RTYPE_REPRODUCE_DEFAULTS.loss;
  if (!(Number.isFinite(durationMs) && durationMs >= 10_000))
    throw new Error(`reproduce rtype: durationMs ${durationMs} is below 10 s`);
  const w = workloads(durationMs, loss);
  const measure = (preset: RtypePresetName, switches: Partial<RtypeSwitches>): Measured => {
    const lossRun = runRtype({ ...w.loss, preset, switches }, seed);
    const outageRun = runRtype({ ...w.outage, preset, switches }, seed);
    const runs = { loss: lossRun, outage: outageRun };
    const cells = Object.fromEntries(TABLE_SYMPTOMS.map((s) => [s, cell(s, runs[COLUMN_WORKLOAD[s]])])) as Record<
      TableSymptom,
      SymptomCell
    >;
    const finer = rtypeSymptoms(lossRun).filter((s) => !(TABLE_SYMPTOMS as readonly string[]).includes(s));
    return { cells, finer, traceHashes: { loss: lossRun.traceHash, outage: outageRun.traceHash } };
  };
  const rows: RtypeReproductionRow[] = [];
  for (const base of ['repaired', 'implemented'] as const) {
    const baseline = measure(base, {});
    const showing = (m: Measured) => TABLE_SYMPTOMS.filter((s) => m.cells[s].shows);
    const row = (
      kind: RtypeReproductionRow['kind'],
      defect: DefectSwitch | null,
      m: Measured,
    ): RtypeReproductionRow => {
      const added = showing(m).filter((s) => !baseline.cells[s].shows);
      const removed = showing(baseline).filter((s) => !m.cells[s].shows);
      const also = m.finer.filter((s) => !baseline.finer.includes(s));
      const description =
        defect === null
          ? base === 'repaired'
            ? 'every defect off, per-packet resend timer'
            : 'every defect on (the public code)'
          : DEFECT_DESCRIPTIONS[defect];
      return {
        kind,
        base,
        defect,
        description,
        cells: m.cells,
        added,
        removed,
        also,
        traceHashes: m.traceHashes,
        asClaimed: asClaimed(kind, defect, added, removed, also),
      };
    };
    rows.push(row('baseline', null, baseline));
    for (const defect of DEFECT_SWITCHES)
      rows.push(
        row(base === 'repaired' ? 'on-alone' : 'off-alone', defect, measure(base, { [defect]: base === 'repaired' })),
      );
  }
  const repaired = rows[0];
  const implemented = rows.find((r) => r.kind === 'baseline' && r.base === 'implemented') as RtypeReproductionRow;
  const reproduces =
    TABLE_SYMPTOMS.every((s) => !repaired.cells[s].shows) &&
    implemented.cells.noResend.shows &&
    implemented.cells.deathsLost.shows &&
    rows.every((r) => r.asClaimed);
  const start = Math.round(durationMs / 3);
  return {
    seed,
    durationMs,
    loss,
    outage: { client: OUTAGE_CLIENT, startMs: start, endMs: start + OUTAGE_MS },
    columns: TABLE_SYMPTOMS.map((symptom) => ({ symptom, workload: COLUMN_WORKLOAD[symptom] })),
    rows,
    reproduces,
  };
}

function asClaimed(
  kind: RtypeReproductionRow['kind'],
  defect: DefectSwitch | null,
  added: readonly TableSymptom[],
  removed: readonly TableSymptom[],
  also: readonly RtypeSymptom[],
): boolean {
  if (kind === 'baseline' || defect === null) return true;
  // Off alone: no single fix repairs the public code (the other copy bug still empties the lists).
  if (kind === 'off-alone') return removed.length === 0;
  const claim = DEFECT_CLAIMS[defect];
  const allowed = new Set<TableSymptom>([...claim.adds, ...(claim.incidental ?? [])]);
  const sameSet = (a: readonly string[], b: readonly string[]) =>
    a.length === b.length && a.every((x) => b.includes(x));
  return (
    claim.adds.every((s) => added.includes(s)) &&
    added.every((s) => allowed.has(s)) &&
    removed.length === 0 &&
    sameSet(also, claim.also)
  );
}
