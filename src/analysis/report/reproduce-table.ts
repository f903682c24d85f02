// Terminal tables for `bcsim reproduce`.
import Table from 'cli-table3';
import type { TerminalStyle } from '../../core/output/index.js';
import type { AckOutboxReproduction, FragmentAckReproduction, Hypothesis } from '../reproduce/index.js';
import { CRITERIA, STOCK_READING } from '../reproduce/index.js';
import { COMPACT, fittedTable, TEXT_WIDTH, wrapItems, wrapLine } from '../../core/output/index.js';
import { statOf } from '../../model/metrics/index.js';

const causeLabel = (cause: string) => (cause === 'none' ? 'none (no re-send)' : cause);

/** Options of the text: `wide` keeps each table and paragraph on full-width lines. */
export interface ReproduceTextOptions {
  wide?: boolean;
}

const mark = (style: TerminalStyle, ok: boolean, text: string) =>
  ok ? style.green(`✓ ${text}`) : style.red(`✗ ${text}`);

/** The five signature criteria: numbered columns, their titles in a legend under the table. */
function hypothesisTable(hypotheses: readonly Hypothesis[], style: TerminalStyle, width: number): string[] {
  const wide = width === Number.POSITIVE_INFINITY;
  const head = ['cause', ...CRITERIA.map((c) => (wide ? c.title : (/^\d+/.exec(c.title)?.[0] ?? c.title))), 'matches'];
  const rows = hypotheses.map((h) => [
    causeLabel(h.cause),
    ...CRITERIA.map(({ key }) => mark(style, h.criteria[key].pass, h.criteria[key].measured)),
    h.matches ? style.green.bold('MATCH') : 'no',
  ]);
  const legend = wide
    ? []
    : wrapItems(
        CRITERIA.map((c) => c.title),
        ' · ',
        width - 2,
      ).map((l) => style.dim(`  ${l}`));
  return [fittedTable(head, rows, width), ...legend];
}

function underLoss(distinguishable: readonly string[], indistinguishable: readonly string[]): string[] {
  const stock = 'matcher-rejects-fragments';
  return [
    distinguishable.length > 0
      ? `Under loss, these causes still differ from ${stock}: ${distinguishable.map(causeLabel).join(', ')}.`
      : `Under loss, no other cause can be told apart from ${stock}.`,
    indistinguishable.length > 0
      ? `Under loss, these causes cannot be told apart from ${stock}: ${indistinguishable.map(causeLabel).join(', ')}.`
      : `Under loss, no other cause gives the same pattern as ${stock}.`,
  ];
}

/** The evidence for (✓) and against (✗) each reading, and its rank; lettered columns, legend under the table. */
function evidenceTable(r: FragmentAckReproduction, style: TerminalStyle, width: number): string[] {
  const wide = width === Number.POSITIVE_INFINITY;
  const rankTitle = 'bytes · measured · inferred';
  const head = [
    'reading',
    ...r.evidence.map((e, i) => (wide ? `[${e.kind}] ${e.title}` : criterionLabel(i))),
    wide ? rankTitle : 'rank',
  ];
  const rows = r.hypotheses.map((h) => {
    const rank = `${h.score.bytes} · ${h.score.measured} · ${h.score.inferred}`;
    return [
      causeLabel(h.cause),
      ...h.evidence.map((w) => mark(style, w.holds, w.measured)),
      r.best.includes(h.cause)
        ? style.green.bold(`${rank} BEST`)
        : r.similar.includes(h.cause)
          ? `${rank} similar`
          : rank,
    ];
  });
  const legend = r.evidence.flatMap((e, i) =>
    wrapLine(`  ${wide ? '' : `${criterionLabel(i)} [${e.kind}] `}${e.title}: ${e.source}`, width, '      '),
  );
  if (!wide) legend.push(`  rank: ${rankTitle} (how much evidence of each kind holds)`);
  return [fittedTable(head, rows, width), ...legend.map((l) => style.dim(l))];
}

/** The default text keeps to 120 columns: numbered or lettered columns with a legend, paragraphs wrapped. */
export function renderFragmentAckReproduction(
  r: FragmentAckReproduction,
  style: TerminalStyle,
  options: ReproduceTextOptions = {},
): string {
  const width = options.wide ? Number.POSITIVE_INFINITY : TEXT_WIDTH;
  const wrap = (text: string) => wrapLine(text, width, '  ');
  const lines = [
    ...wrap(
      style.bold(
        `${r.scenario} · seed ${r.seed} · ${r.simulatedSeconds} s per run · against the observed signature (docs/sources.md 14)`,
      ),
    ),
    'Lossless link:',
    ...hypothesisTable(r.hypotheses, style, width),
    '',
    style.bold('The evidence for (✓) and against (✗) each reading (docs/sources.md 14, 27):'),
    ...evidenceTable(r, style, width),
    ...wrap(r.rankingRule),
    ...wrap(
      `Ranked first: ${r.best.map(causeLabel).join(', ')}. Of similar rank (the same captured bytes, one measured item fewer at most): ${r.similar.map(causeLabel).join(', ') || 'none'}.`,
    ),
    '',
    `Under ${Math.round(r.lossy.loss * 100)}% Bernoulli loss on both directions:`,
    ...hypothesisTable(r.lossy.hypotheses, style, width),
    ...underLoss(r.lossy.distinguishable, r.lossy.indistinguishable).flatMap(wrap),
  ];
  return `${lines.join('\n')}\n`;
}

/** The terminal width reproduce ack-outbox keeps to; --json has everything the tables leave out. */
const REPRODUCE_WIDTH = TEXT_WIDTH;

/** One character per observation, as docs/calibration.md letters them: a–z, then A–Z. */
const CRITERION_LABELS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
function criterionLabel(i: number): string {
  return CRITERION_LABELS[i] ?? '?';
}

export function renderAckOutboxReproduction(r: AckOutboxReproduction, style: TerminalStyle): string {
  const mark = (ok: boolean) => (ok ? style.green('✓') : style.red('✗'));
  const readings = r.hypotheses;
  // Readings as rows, observations as numbered columns of marks, then the rank (captured bytes, then
  // measured figures, then inferences: criteria.ts RANKING_RULE). The measured values are in --json.
  const name = (h: (typeof readings)[number], i: number) => `${String(i + 1).padStart(2)}. ${h.name}`;
  const nameWidth = Math.max('reading'.length, ...readings.map((h, i) => name(h, i).length));
  const numbers = r.criteria.map((_c, i) => ` ${criterionLabel(i)}`).join('');
  const rank = (h: (typeof readings)[number]) => `${h.score.bytes}·${h.score.measured}·${h.score.inferred}`;
  const matrix = [
    `  ${'reading'.padEnd(nameWidth)}${numbers}  rank`,
    ...readings.map((h, i) => {
      const marks = r.criteria.map((c) => ` ${mark(h.criteria[c.key].matches)}`).join('');
      const tag =
        h.name === r.best.readings[0]
          ? style.green.bold(`${rank(h)} BEST`)
          : r.best.readings.includes(h.name)
            ? `${rank(h)} tied`
            : h.beyondDecisions !== null
              ? `${rank(h)} †`
              : rank(h);
      return `  ${name(h, i).padEnd(nameWidth)}${marks}  ${tag}`;
    }),
  ];
  const stock = readings.find((h) => h.name === STOCK_READING);
  const detail = new Table({
    head: ['observation', 'expected', `measured: ${STOCK_READING}`],
    colWidths: [28, 28, 60],
    wordWrap: true,
    style: { head: [], border: [] },
    chars: COMPACT,
  });
  if (stock !== undefined) {
    r.criteria.forEach((c, i) =>
      detail.push([
        `${criterionLabel(i)} ${c.title}`,
        stock.criteria[c.key].expected,
        `${mark(stock.criteria[c.key].matches)} ${stock.criteria[c.key].value}`,
      ]),
    );
  }
  // Every seed of every rate, both peers; then min / median / max of the outbox peak over the seeds.
  const seeds = r.sweep.seeds;
  const sweep = new Table({
    head: [
      'update ms',
      'rel./s',
      'peer',
      `outbox max, seed ${seeds.join(' · ')}`,
      'min / median / max',
      'dead zone*',
      'leak',
      'load*',
    ],
    style: { head: [], border: [] },
    chars: COMPACT,
  });
  const bySeed = (values: Array<string | number>) => values.join(' · ');
  // The other columns: the median over the seeds, to keep the table within 120 columns.
  const median = (values: number[]) => String(statOf(values)?.median ?? '–');
  for (const range of r.sweep.ranges) {
    const points = r.sweep.points.filter(
      (p) => p.updatePeriodMs === range.updatePeriodMs && p.reliablePerSecond === range.reliablePerSecond,
    );
    for (const role of ['server', 'client'] as const) {
      const q = points.map((p) => p.peers[role]);
      const stat = range.peers[role].outboxMax;
      const leaking = range.peers[role].leakingSeeds;
      const leak = leaking === 0 ? 'bounded' : style.red(leaking === q.length ? 'LEAK' : `LEAK ${leaking}/${q.length}`);
      sweep.push([
        range.updatePeriodMs,
        range.reliablePerSecond,
        role,
        bySeed(q.map((x) => x.outboxMax)),
        `${stat.min} / ${stat.median} / ${stat.max}`,
        median(q.map((x) => x.deadZoneMax)),
        leak,
        range.peers[role].load.median.toFixed(2),
      ]);
    }
  }
  const lines = [
    style.bold(`Stock ACK-outbox: each reading against the measured facts (docs/sources.md) · seed ${r.seed}`),
    'Readings:',
    ...readings.flatMap((h, i) =>
      wrapLine(
        `  ${name(h, i)}: ${h.description}${h.beyondDecisions === null ? '' : ` († ${h.beyondDecisions})`}`,
        REPRODUCE_WIDTH,
        '        ',
      ),
    ),
    ...wrapLine(
      style.dim(
        '  † takes a fact from outside docs/sources.md: ranked like the others, but the stock preset cannot follow it until docs/sources.md records the fact.',
      ),
      REPRODUCE_WIDTH,
      '    ',
    ),
    'Observations (expected; where it was measured):',
    `Observation kinds rank in this order: bytes (captured bytes), measured (a measured figure), inferred.`,
    ...r.criteria.flatMap((c, i) =>
      wrapLine(
        `  ${criterionLabel(i)}. [${c.kind}] ${c.title} (${readings[0]?.criteria[c.key].expected ?? ''}): ${style.dim(c.source)}`,
        REPRODUCE_WIDTH,
        '      ',
      ),
    ),
    '',
    `Each reading against each observation (${style.green('✓')} matches, ${style.red('✗')} does not; --json has every measured value):`,
    ...matrix,
    '',
    style.bold('Observations that contradict each other:'),
    ...r.contradictions.flatMap((c) => wrapLine(`- ${c.sentence}`, REPRODUCE_WIDTH, '  ')),
    '',
    ...wrapLine(
      style.bold(
        `Readings of similar rank to "${r.best.readings[0]}" (the same captured bytes, at most one measured figure fewer), where they differ:`,
      ),
    ),
    ...r.alternatives.flatMap((a) =>
      wrapLine(
        `- ${a.name}: ${a.differs.map((d) => `${d.title} ${d.matches ? '✓' : '✗'} ${d.value} (stock ${d.stock})`).join('; ') || 'no observation'}`,
        REPRODUCE_WIDTH,
        '  ',
      ),
    ),
    '',
  ];
  if (stock !== undefined) lines.push(`The reading the stock preset runs, as measured:`, detail.toString(), '');
  lines.push(
    ...r.unmatched.flatMap((u) =>
      wrapLine(
        `${style.yellow(u.beyond.length === 0 ? 'No reading matches' : 'No reading on docs/sources.md alone matches')} "${u.title}": ${u.note}.`,
        REPRODUCE_WIDTH,
        '  ',
      ),
    ),
    '',
  );
  if (r.sweep.points.length > 0) {
    lines.push(
      sweep.toString(),
      ...wrapLine(
        style.dim(
          `  * median over the seeds ${seeds.join(', ')}; --json has every seed's outbox at 10 min, slope per hour, ACK bytes per datagram and dedup comparisons`,
        ),
        REPRODUCE_WIDTH,
        '    ',
      ),
      '',
    );
  }
  lines.push(
    style.bold('What the table and the sweep show:'),
    ...r.explanation.flatMap((line) => wrapLine(`- ${line}`, REPRODUCE_WIDTH, '  ')),
    '',
  );
  return lines.join('\n');
}
