// One line per metric group comparing each configuration with the first,
// e.g. "outbox: B peaks 2.0× lower (18 vs 36); no leak in either".
import type { PeerSummary } from '../../model/session/index.js';
import type { Comparison, ComparedRun } from './compare.js';
import { isMultiClient, perConnectionOutboxMax } from './connections.js';
import { fmt } from '../../core/output/index.js';
import { flipsOf, predictionReasons } from './evidence-notes.js';

type Pick = (run: ComparedRun) => number;
type PeerPick = (p: PeerSummary) => number;

const both =
  (f: PeerPick): Pick =>
  (r) =>
    Math.max(f(r.summary.peers.server), f(r.summary.peers.client));
const sum =
  (f: PeerPick): Pick =>
  (r) =>
    f(r.summary.peers.server) + f(r.summary.peers.client);

const ENDS = ['server', 'client'] as const;

/**
 * A figure pooled over both ends (their max or sum) can stay put while one end
 * moves, or move one way while an end moves the other: name each end whose move
 * the pooled relation hides, e.g. ", but at the server alone 30 → 17 in B".
 */
function hiddenMoves(base: ComparedRun, other: ComparedRun, pooled: Pick, f: PeerPick): string {
  const direction = Math.sign(pooled(other) - pooled(base));
  const moved = ENDS.filter((end) => {
    const d = Math.sign(f(other.summary.peers[end]) - f(base.summary.peers[end]));
    return d !== 0 && d !== direction;
  });
  if (moved.length === 0) return '';
  const moves = moved.map(
    (end) => `at the ${end} alone ${fmt(f(base.summary.peers[end]))} → ${fmt(f(other.summary.peers[end]))}`,
  );
  return `, but ${moves.join(' and ')} in ${other.spec.label}`;
}

/** "B peaks 2.0× lower (18 vs 36)", "the same (12)", "B peaks 5, A 0". */
function relation(verb: string, base: ComparedRun, other: ComparedRun, pick: Pick): string {
  const a = pick(base);
  const b = pick(other);
  const name = other.spec.label;
  if (a === b) return `${name} ${verb} the same (${fmt(a)})`;
  if (a === 0 || b === 0) return `${name} ${verb} ${fmt(b)}, ${base.spec.label} ${fmt(a)}`;
  const ratio = a > b ? a / b : b / a;
  // Small differences read better as a percentage than as "1×".
  const size = ratio < 1.1 ? `${fmt((Math.abs(b - a) / a) * 100)}%` : `${fmt(ratio)}×`;
  return `${name} ${verb} ${size} ${a > b ? 'lower' : 'higher'} (${fmt(b)} vs ${fmt(a)})`;
}

function leaks(run: ComparedRun): string[] {
  return run.trends.filter((t) => t.trend.leak).map((t) => `${t.peer} ${t.metric}`);
}

function leakPhrase(runs: readonly ComparedRun[]): string {
  const leaking = runs.filter((r) => leaks(r).length > 0);
  if (leaking.length === 0) return runs.length === 2 ? 'no leak in either' : 'no leak in any';
  return leaking.map((r) => `${r.spec.label} leaks (${leaks(r).join(', ')})`).join('; ');
}

export function verdicts(comparison: Comparison): string[] {
  const [base, ...others] = comparison.runs;
  if (!base || others.length === 0) return [];
  const against = (verb: string, pick: Pick) => others.map((o) => relation(verb, base, o, pick)).join('; ');
  // Pooled over both ends: also the moves of one end that the pooled figure hides.
  const pooledAgainst = (verb: string, pool: (f: PeerPick) => Pick, f: PeerPick, unit = '') =>
    others.map((o) => relation(verb, base, o, pool(f)) + unit + hiddenMoves(base, o, pool(f), f)).join('; ');
  const lost = comparison.runs.map((r) => `${r.spec.label} lost ${fmt(r.summary.delivery.reliableLost)}`).join(', ');
  const dup = comparison.runs
    .map(
      (r) =>
        `${r.spec.label} ${fmt(r.summary.delivery.duplicateDeliveries)}/${fmt(r.summary.delivery.outOfOrderDeliveries)}`,
    )
    .join(', ');
  // With several clients the peers are totals; name them, and add the worst single connection.
  const outbox = isMultiClient(comparison)
    ? [
        `outbox, server total: ${against('peaks', (r) => r.summary.peers.server.ackOutbox.max)}; ${leakPhrase(comparison.runs)}`,
        `outbox, per connection: ${against('peaks', (r) => perConnectionOutboxMax(r.summary))} at most on any one connection (either end)`,
      ]
    : [`outbox: ${pooledAgainst('peaks', both, (p) => p.ackOutbox.max)}; ${leakPhrase(comparison.runs)}`];
  // docs/sources.md 25: what the lines rest on, and where they are predictions.
  const reasons = predictionReasons(comparison);
  const restsOn = [`rests on: the readings \`bcsim reproduce ack-outbox\` ranks first${similarRank(comparison)}`];
  return [
    ...(reasons.length > 0 ? [`prediction: ${reasons.join('; ')}`] : []),
    ...outbox,
    `dead zone: ${pooledAgainst('peaks', both, (p) => p.ackOutboxDeadZone.max)}`,
    `dedup: ${pooledAgainst('peaks', both, (p) => p.dedupComparisons.maxPerMessage, ' comparisons per message')}`,
    `memory: ${pooledAgainst('peaks', both, (p) => p.memoryBytes.max, ' bytes')}`,
    `ACK bytes: ${pooledAgainst('sends', sum, (p) => p.ackBytesSent)}`,
    `retransmits: ${pooledAgainst('sends', sum, (p) => p.retransmits)}`,
    ...latencyLine(base, others),
    `delivery: ${lost} reliable messages; duplicates/out of order: ${dup}`,
    ...restsOn,
  ];
}

/** What the readings of similar rank do to the stock verdicts, or that they were not rerun. */
function similarRank(comparison: Comparison): string {
  if (comparison.runs[0]?.spec.label !== 'stock') return '';
  const all = flipsOf(comparison);
  if (all === null) return '; those of similar rank were not rerun (--sensitivity reruns them)';
  const flips = all.filter((f) => f.parts.length > 0);
  return flips.length === 0
    ? '; none of similar rank changes a stock figure here'
    : `; under one of similar rank: ${flips.map((f) => `"${f.name}" (${f.topics.join(', ')})`).join(', ')}: see the report`;
}

const CATEGORIES = ['low', 'high'] as const;

/**
 * Send-to-delivery latency (p99, per sequence category), when a column waits
 * longer than the first in some category: a fix that trades latency for its
 * other figures says so. A category a run delivered nothing in is left out.
 */
function latencyLine(base: ComparedRun, others: readonly ComparedRun[]): string[] {
  const p99 =
    (category: (typeof CATEGORIES)[number]): Pick =>
    (r) =>
      r.summary.delivery.latencyMs[category].p99;
  const measured = (category: (typeof CATEGORIES)[number]) =>
    [base, ...others].every((r) => r.summary.delivery.latencyMs[category].count > 0);
  const categories = CATEGORIES.filter(measured);
  if (!categories.some((c) => others.some((o) => p99(c)(o) > p99(c)(base)))) return [];
  const parts = categories.map((c) => `${c} types: ${others.map((o) => relation('is', base, o, p99(c))).join('; ')}`);
  return [`latency p99 (ms), ${parts.join('; ')}`];
}
