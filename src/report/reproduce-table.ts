// Terminal tables for `bcsim reproduce`.
import Table from 'cli-table3';
import type { ChalkInstance } from 'chalk';
import type { AckOutboxReproduction } from '../reproduce/ack-outbox.js';
import type { FragmentAckReproduction, Hypothesis } from '../reproduce/fragment-ack.js';
import { CRITERIA } from '../reproduce/signature.js';
import { COMPACT } from './summary-table.js';

function hypothesisTable(hypotheses: readonly Hypothesis[], chalk: ChalkInstance): string {
  const table = new Table({ head: ['cause', ...CRITERIA.map((c) => c.title), 'matches'], style: { head: [], border: [] }, chars: COMPACT });
  for (const h of hypotheses) {
    table.push([
      h.cause === 'none' ? 'none (fixed)' : h.cause,
      ...CRITERIA.map(({ key }) => {
        const c = h.criteria[key];
        return c.pass ? chalk.green(`✓ ${c.measured}`) : chalk.red(`✗ ${c.measured}`);
      }),
      h.matches ? chalk.green.bold('MATCH') : 'no',
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
    const expected = readings[0]?.criteria[c.key].expected ?? '';
    table.push([`${c.title} (${expected})`, ...readings.map((h) => `${mark(h.criteria[c.key].matches)} ${h.criteria[c.key].value}`)]);
  }
  table.push(['matched', ...readings.map((h) => (r.best.readings.includes(h.name) ? chalk.green.bold(`${h.matched}/${r.best.of} BEST`) : `${h.matched}/${r.best.of}`))]);
  const legend = readings.map((h, i) => `  ${i + 1}. ${chalk.bold(h.name)}: ${h.description}`);
  const sweep = new Table({
    head: ['update ms', 'reliable/s', 'peer', 'outbox max', 'at 10 min', 'dead zone max', 'slope /h', 'leak', 'load', 'ACK B/datagram', 'dedup cmp/s max'],
    style: { head: [], border: [] },
    chars: COMPACT,
  });
  for (const p of r.sweep.points) {
    for (const role of ['server', 'client'] as const) {
      const q = p.peers[role];
      sweep.push([p.updatePeriodMs, p.reliablePerSecond, role, q.outboxMax, q.outboxFinal, q.deadZoneMax, q.slopePerHour, q.leak ? chalk.red('LEAK') : 'bounded', q.load.toFixed(2), q.meanAckBytesPerDatagram, q.dedupMaxPerSecond]);
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
  ];
  if (r.sweep.points.length > 0) lines.push(sweep.toString(), '');
  lines.push(chalk.bold('What the table and the sweep show:'), ...r.explanation.map((line) => `- ${line}`), '');
  return lines.join('\n');
}
