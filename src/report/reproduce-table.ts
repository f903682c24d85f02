// Terminal tables for `bcsim reproduce`.
import Table from 'cli-table3';
import type { ChalkInstance } from 'chalk';
import type { AckOutboxReproduction, FragmentAckReproduction, Hypothesis } from '../reproduce/index.js';
import { CRITERIA } from '../reproduce/index.js';
import { COMPACT } from './summary-table.js';
import { statOf } from '../metrics/index.js';

const causeLabel = (cause: string) => (cause === 'none' ? 'none (no re-send)' : cause);

function hypothesisTable(hypotheses: readonly Hypothesis[], chalk: ChalkInstance): string {
  const table = new Table({ head: ['cause', ...CRITERIA.map((c) => c.title), 'matches'], style: { head: [], border: [] }, chars: COMPACT });
  for (const h of hypotheses) {
    table.push([
      causeLabel(h.cause),
      ...CRITERIA.map(({ key }) => {
        const c = h.criteria[key];
        return c.pass ? chalk.green(`✓ ${c.measured}`) : chalk.red(`✗ ${c.measured}`);
      }),
      h.matches ? chalk.green.bold('MATCH') : 'no',
    ]);
  }
  return table.toString();
}

/** The evidence for (✓) and against (✗) each reading, and its rank. */
function evidenceTable(r: FragmentAckReproduction, chalk: ChalkInstance): string {
  const table = new Table({ head: ['reading', ...r.evidence.map((e) => `[${e.kind}] ${e.title}`), 'bytes · measured · inferred'], style: { head: [], border: [] }, chars: COMPACT });
  for (const h of r.hypotheses) {
    const rank = `${h.score.bytes} · ${h.score.measured} · ${h.score.inferred}`;
    table.push([
      causeLabel(h.cause),
      ...h.evidence.map((w) => (w.holds ? chalk.green(`✓ ${w.measured}`) : chalk.red(`✗ ${w.measured}`))),
      r.best.includes(h.cause) ? chalk.green.bold(`${rank} BEST`) : r.similar.includes(h.cause) ? `${rank} similar` : rank,
    ]);
  }
  return table.toString();
}

export function renderFragmentAckReproduction(r: FragmentAckReproduction, chalk: ChalkInstance): string {
  const lines = [
    chalk.bold(`${r.scenario} · seed ${r.seed} · ${r.simulatedSeconds} s per run · against the observed signature (DECISIONS.md 14)`),
    'Lossless link:',
    hypothesisTable(r.hypotheses, chalk),
    '',
    chalk.bold('The evidence for (✓) and against (✗) each reading (DECISIONS.md 14, 27):'),
    evidenceTable(r, chalk),
    ...r.evidence.map((e) => chalk.dim(`  ${e.title}: ${e.source}`)),
    r.rankingRule,
    `Ranked first: ${r.best.map(causeLabel).join(', ')}. Of similar rank (the same captured bytes, one measured item fewer at most): ${r.similar.map(causeLabel).join(', ') || 'none'}.`,
    '',
    `Under ${Math.round(r.lossy.loss * 100)}% Bernoulli loss on both directions:`,
    hypothesisTable(r.lossy.hypotheses, chalk),
    `Still distinguishable from matcher-rejects-fragments under loss: ${r.lossy.distinguishable.join(', ') || 'none'}.`,
    `Not distinguishable under loss: ${r.lossy.indistinguishable.join(', ') || 'none'}.`,
  ];
  return `${lines.join('\n')}\n`;
}

export function renderAckOutboxReproduction(r: AckOutboxReproduction, chalk: ChalkInstance): string {
  const mark = (ok: boolean) => (ok ? chalk.green('✓') : chalk.red('✗'));
  // One row per criterion, one column per reading: 13 readings fit a wide terminal as columns badly, so transpose.
  const readings = r.hypotheses;
  const table = new Table({ head: ['observation (expected)', ...readings.map((h, i) => `${i + 1}`)], style: { head: [], border: [] }, chars: COMPACT });
  for (const c of r.criteria) {
    table.push([`[${c.kind}] ${c.title} (${c.expected})`, ...readings.map((h) => `${mark(h.criteria[c.key].matches)} ${h.criteria[c.key].value}`)]);
  }
  // The rank: captured bytes, then measured figures, then inferences (criteria.ts RANKING_RULE).
  const rank = (h: (typeof readings)[number]) => `${h.score.bytes} · ${h.score.measured} · ${h.score.inferred}`;
  table.push(['bytes · measured · inferred', ...readings.map((h) => (h.name === r.best.readings[0] ? chalk.green.bold(`${rank(h)} BEST`) : r.best.readings.includes(h.name) ? `${rank(h)} tied` : rank(h)))]);
  const legend = readings.map((h, i) => `  ${i + 1}. ${chalk.bold(h.name)}: ${h.description}`);
  // Issue 15: every seed of every rate, both peers; then min / median / max of the outbox peak over the seeds.
  const seeds = r.sweep.seeds;
  const sweep = new Table({
    head: ['update ms', 'reliable/s', 'peer', `outbox max, seed ${seeds.join(' · ')}`, 'min / median / max', 'at 10 min*', 'dead zone max*', 'slope /h*', 'leak', 'load*', 'ACK B/datagram*', 'dedup cmp/s max*'],
    style: { head: [], border: [] },
    chars: COMPACT,
  });
  const bySeed = (values: Array<string | number>) => values.join(' · ');
  // The other columns: the median over the seeds, to keep the table within a wide terminal.
  const median = (values: number[]) => String(statOf(values)?.median ?? '–');
  for (const range of r.sweep.ranges) {
    const points = r.sweep.points.filter((p) => p.updatePeriodMs === range.updatePeriodMs && p.reliablePerSecond === range.reliablePerSecond);
    for (const role of ['server', 'client'] as const) {
      const q = points.map((p) => p.peers[role]);
      const stat = range.peers[role].outboxMax;
      const leaking = range.peers[role].leakingSeeds;
      const leak = leaking === 0 ? 'bounded' : chalk.red(leaking === q.length ? 'LEAK' : `LEAK ${leaking}/${q.length}`);
      sweep.push([
        range.updatePeriodMs,
        range.reliablePerSecond,
        role,
        bySeed(q.map((x) => x.outboxMax)),
        `${stat.min} / ${stat.median} / ${stat.max}`,
        median(q.map((x) => x.outboxFinal)),
        median(q.map((x) => x.deadZoneMax)),
        median(q.map((x) => x.slopePerHour)),
        leak,
        range.peers[role].load.median.toFixed(2),
        median(q.map((x) => x.meanAckBytesPerDatagram)),
        median(q.map((x) => x.dedupMaxPerSecond)),
      ]);
    }
  }
  const lines = [
    chalk.bold(`Stock ACK-outbox: each reading against the measured facts (DECISIONS.md) · seed ${r.seed}`),
    ...legend,
    table.toString(),
    ...r.criteria.map((c) => chalk.dim(`  ${c.title}: ${c.source}`)),
    '',
    ...r.unmatched.map((u) => `${chalk.yellow('No reading matches')} "${u.title}": ${u.note}.`),
    '',
    chalk.bold('Observations that contradict each other:'),
    ...r.contradictions.map((c) => `- ${c.sentence}`),
    '',
    chalk.bold(`Readings of similar rank to "${r.best.readings[0]}" (the same captured bytes, at most one measured figure fewer), where they differ:`),
    ...r.alternatives.map((a) => `- ${a.name}: ${a.differs.map((d) => `${d.title} ${d.matches ? '✓' : '✗'} ${d.value} (stock ${d.stock})`).join('; ') || 'no observation'}`),
    '',
  ];
  if (r.sweep.points.length > 0) lines.push(sweep.toString(), chalk.dim(`  * median over the seeds ${seeds.join(', ')}`), '');
  lines.push(chalk.bold('What the table and the sweep show:'), ...r.explanation.map((line) => `- ${line}`), '');
  return lines.join('\n');
}
