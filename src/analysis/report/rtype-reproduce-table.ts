// The terminal table of `bcsim reproduce rtype`: one row per defect (on alone over
// repaired, off alone from implemented), one column per symptom, each cell measured.
import Table from 'cli-table3';
import type { TerminalStyle } from '../../core/output/index.js';
import { TABLE_SYMPTOM_TITLES } from '../reproduce/index.js';
import type { RtypeReproduction, RtypeReproductionRow, SymptomCell, TableSymptom } from '../reproduce/index.js';
import { msToSeconds } from '../../core/engine/index.js';
import { fmt, COMPACT } from '../../core/output/index.js';

/** The figure each column's test read, in words. */
function cellText(symptom: TableSymptom, c: SymptomCell): string {
  switch (symptom) {
    case 'noResend':
      return `${fmt(c.value)} resent, ${fmt(c.detail)} dropped`;
    case 'resendStorm':
      return `${fmt(c.value)} excess`;
    case 'deathsLost':
      return `${fmt(c.value)} lost, ${fmt(c.detail)} reported`;
    case 'growingLists':
      return `${fmt(c.value)} dangling`;
    case 'crossClientClear':
      return `${fmt(c.value)} cleared`;
  }
}

function rowHead(row: RtypeReproductionRow): string {
  if (row.defect === null) return `${row.base} (baseline)`;
  return `${row.defect} ${row.kind === 'on-alone' ? 'on' : 'off'}`;
}

export function renderRtypeReproduction(r: RtypeReproduction, style: TerminalStyle): string {
  // Two-line heads keep the table within a wide terminal.
  const title = (symptom: TableSymptom) => TABLE_SYMPTOM_TITLES[symptom].replace(/ (under|clears) /, '\n$1 ');
  const head = [
    'defect',
    ...r.columns.map((c) => `${title(c.symptom)}${c.workload === 'outage' ? '*' : ''}`),
    'other symptoms',
    'as\nclaimed',
  ];
  const lines = [
    style.bold(
      `R-Type defects, each on alone over repaired and off alone from implemented · seed ${r.seed} · ${fmt(msToSeconds(r.durationMs))} s per run`,
    ),
    `4 clients, ${fmt(100 * r.loss)} % loss both ways, 2 deaths/s, 4 bursts of 8 a minute. ✓ the symptom shows, · it does not; the figure is what its test read.`,
    `* measured with a 5 s downlink outage for client ${r.outage.client} (${fmt(msToSeconds(r.outage.startMs))}–${fmt(msToSeconds(r.outage.endMs))} s), so packets expire.`,
  ];
  for (const base of ['repaired', 'implemented'] as const) {
    const table = new Table({ head, style: { head: [], border: [] }, chars: COMPACT });
    for (const row of r.rows.filter((x) => x.base === base)) {
      const baseline = r.rows.find((x) => x.base === base && x.kind === 'baseline') as RtypeReproductionRow;
      table.push([
        row.defect === null ? style.bold(rowHead(row)) : rowHead(row),
        ...r.columns.map(({ symptom }) => {
          const c = row.cells[symptom];
          const text = `${c.shows ? '✓' : '·'} ${cellText(symptom, c)}`;
          // A cell that differs from the baseline's verdict is what the defect changed.
          if (row.defect === null || c.shows === baseline.cells[symptom].shows) return text;
          return c.shows ? style.red(text) : style.green(text);
        }),
        row.defect === null ? '' : row.also.join(', ') || '–',
        row.defect === null ? '' : row.asClaimed ? style.green('yes') : style.red.bold('NO'),
      ]);
    }
    lines.push(
      '',
      style.bold(
        base === 'repaired'
          ? 'On alone over repaired (what each defect does by itself):'
          : 'Off alone from implemented (what fixing only that defect changes):',
      ),
      table.toString(),
    );
  }
  const verdict = r.reproduces
    ? style.green(
        'Reproduced: implemented never re-sends and loses deaths, repaired shows none of the five symptoms, and every defect does what the model claims (DEFECT_CLAIMS).',
      )
    : style.red.bold(
        'NOT reproduced: a baseline or a defect no longer behaves as the model claims (see "as claimed").',
      );
  lines.push('', verdict, '');
  return lines.join('\n');
}
