// What every verdict of a report rests on (docs/sources.md 25): whether it is a
// prediction past what was measured, the readings it depends on, and, when the
// sensitivity runs were made, which verdicts flip under a reading of similar rank.
import { usToSeconds } from '../../core/engine/index.js';
import type { SeriesTrend } from '../../model/metrics/index.js';
import { VERDICT_ALTERNATIVES } from '../reproduce/index.js';
import type { VerdictAlternative } from '../reproduce/index.js';
import type { Summary } from '../../model/session/index.js';
import type { Comparison } from './compare.js';
import { durationLabel, fmt } from '../../core/output/index.js';

/** docs/sources.md 25: the longest measured session, 34 minutes. */
const MEASURED_SESSION_S = 34 * 60;
/** The measured aggregate reliable rate of that session (docs/sources.md T1). */
const MEASURED_RELIABLE_PER_S = 4.9;
/** No measured session had a stretch of lobby or quiet this long (docs/sources.md 25 warns of accumulation in them). */
const MEASURED_QUIET_S = 5 * 60;

/** Why a comparison's verdicts are predictions, each with its source; empty when the run stays inside what was measured. */
export function predictionReasons(comparison: Comparison): string[] {
  const seconds = usToSeconds(comparison.durationUs);
  const stock = comparison.runs.find((r) => r.spec.label === 'stock') ?? comparison.runs[0];
  const reasons: string[] = [];
  if (seconds > MEASURED_SESSION_S)
    reasons.push(
      `it runs ${durationLabel(seconds)}, past the 34 measured minutes (docs/sources.md 25: sessions of 2 hours or more were never measured)`,
    );
  const rate = stock === undefined ? 0 : stock.summary.delivery.reliableSent / Math.max(1, seconds);
  if (rate > 2 * MEASURED_RELIABLE_PER_S)
    reasons.push(
      `its ${fmt(rate)} reliable messages/s are more than twice the measured ~4.9/s (ack-outbox-deadlock.md assumes ~60/s; never measured)`,
    );
  const quiet = longestQuietS(comparison);
  if (quiet > MEASURED_QUIET_S)
    reasons.push(
      `its ${durationLabel(quiet)} of lobby or quiet are longer than any measured quiet stretch (docs/sources.md 25 warns of accumulation in them, unmeasured)`,
    );
  return reasons;
}

function longestQuietS(comparison: Comparison): number {
  const phases = comparison.phases;
  let longest = 0;
  phases.forEach((p, i) => {
    if (p.kind !== 'lobby' && p.kind !== 'quiet') return;
    const end = i + 1 < phases.length ? phases[i + 1].startUs : comparison.durationUs;
    longest = Math.max(longest, usToSeconds(end - p.startUs));
  });
  return longest;
}

/** The first sentence of a report whose verdicts are predictions. */
export function predictionSentence(comparison: Comparison): string | null {
  const reasons = predictionReasons(comparison);
  if (reasons.length === 0) return null;
  return `Prediction: ${reasons.join('; and ')}. Every figure below is the model's, and rests on the readings named at the end.`;
}

const deadZoneEnd = (s: Summary) => [s.peers.server.ackOutboxDeadZone.final, s.peers.client.ackOutboxDeadZone.final];
const outboxPeak = (s: Summary) => Math.max(s.peers.server.ackOutbox.max, s.peers.client.ackOutbox.max);
const fragmentResends = (s: Summary) => s.peers.server.fragmentRetransmits + s.peers.client.fragmentRetransmits;
const leaking = (trends: readonly SeriesTrend[]) =>
  trends
    .filter((t) => t.metric === 'ackOutbox' && t.trend.leak)
    .map((t) => `${t.peer} (+${fmt(t.trend.slopePerHour)}/h)`);

/** A verdict that differs by this much, or turns from zero to some, has flipped. */
function differs(a: number, b: number): boolean {
  if (a === b) return false;
  if (a === 0 || b === 0) return Math.max(a, b) >= 3;
  return Math.max(a, b) / Math.min(a, b) >= 1.5 && Math.abs(a - b) >= 3;
}

export interface Flip {
  readonly name: VerdictAlternative;
  readonly change: string;
  /** The verdicts that differ, each with its figures. */
  readonly parts: readonly string[];
  /** Short names of those verdicts, for one-line summaries. */
  readonly topics: readonly string[];
}

/**
 * Each reading of similar rank with the stock verdicts of this comparison that
 * differ under it (none: empty parts); null when the sensitivity runs were not made.
 */
export function flipsOf(comparison: Comparison): Flip[] | null {
  const stock = comparison.runs.find((r) => r.spec.label === 'stock');
  if (stock === undefined) return [];
  if (comparison.sensitivity === undefined) return null;
  const s = stock.summary;
  return comparison.sensitivity.map((alt): Flip => {
    const a = alt.summary;
    const parts: string[] = [];
    const topics: string[] = [];
    const [sz, cz] = deadZoneEnd(s);
    const [az, acz] = deadZoneEnd(a);
    if (differs(sz, az) || differs(cz, acz)) {
      parts.push(`the dead zone ends at S ${az} · C ${acz} (stock: S ${sz} · C ${cz})`);
      topics.push('dead zone');
    }
    const stockLeaks = leaking(stock.trends);
    const altLeaks = leaking(alt.trends);
    if ((stockLeaks.length === 0) !== (altLeaks.length === 0)) {
      parts.push(
        altLeaks.length > 0
          ? `the ACK-outbox keeps growing: ${altLeaks.join(', ')} (stock: bounded)`
          : `no ACK-outbox grows (stock: ${stockLeaks.join(', ')})`,
      );
      topics.push('growth');
    }
    if (differs(outboxPeak(s), outboxPeak(a))) {
      parts.push(`the ACK-outbox peaks at ${outboxPeak(a)} (stock: ${outboxPeak(s)})`);
      topics.push('outbox peak');
    }
    if (differs(fragmentResends(s), fragmentResends(a))) {
      parts.push(`fragments are re-sent ${fmt(fragmentResends(a))} times (stock: ${fmt(fragmentResends(s))})`);
      topics.push('fragment re-sends');
    }
    if (a.delivery.reliableLost !== s.delivery.reliableLost) {
      parts.push(`${fmt(a.delivery.reliableLost)} reliable messages are lost (stock: ${fmt(s.delivery.reliableLost)})`);
      topics.push('losses');
    }
    return { name: alt.name, change: alt.change, parts, topics };
  });
}

/**
 * One sentence per reading of similar rank under which a stock verdict of this
 * report flips (the dead zone at the end, growth, the outbox peak, fragment
 * re-sends, losses), with the figures; one sentence for the readings under which none does.
 */
export function flipSentences(comparison: Comparison): string[] {
  const flips = flipsOf(comparison);
  if (flips === null) return [notRerunSentence(comparison)];
  const flipping = flips.filter((f) => f.parts.length > 0);
  const quiet = flips.filter((f) => f.parts.length === 0).map((f) => `"${f.name}"`);
  const lead =
    flipping.length === 0
      ? []
      : [
          'Stock verdicts that flip under a reading of similar rank (`bcsim reproduce ack-outbox`, `bcsim reproduce fragment-ack`):',
        ];
  return [
    ...lead,
    ...flipping.map((f) => `Under "${f.name}" (${f.change}), ${f.parts.join('; ')}.`),
    ...(quiet.length === 0 ? [] : [`No stock verdict here changes under ${quiet.join(', ')}.`]),
  ];
}

/** Without the sensitivity runs: which readings were not rerun, and how to rerun them. */
function notRerunSentence(comparison: Comparison): string {
  const names = VERDICT_ALTERNATIVES.map((n) => `"${n}"`).join(', ');
  return (
    `The readings of similar rank (${names}) were not rerun here: \`bcsim compare ${comparison.scenario.name} --sensitivity\` ` +
    'reruns the stock column under each and names the stock verdicts that flip.'
  );
}
