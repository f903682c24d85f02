// `reproduce fragment-ack`: run the fragment-ack-bug scenario once per candidate
// cause (docs/sources.md 14) and once with no fragment ever re-sent (docs/sources.md 27),
// all on the stock preset, on a clean and on a lossy link; measure each run against
// the observed signature and weigh the evidence for and against each reading.
import { usToSeconds } from '../../core/engine/index.js';
import type { Scenario } from '../../model/scenario/index.js';
import { traceScenario } from '../../model/trace/index.js';
import { maxMessageAgeUs, FRAGMENT_ACK_CAUSES } from '../../model/transport/index.js';
import type { FragmentAckCause } from '../../model/transport/index.js';
import { RANKING_RULE } from './criteria.js';
import { checksumResponseFragments } from './evidence-combat.js';
import type { Score } from './criteria.js';
import { FRAGMENT_EVIDENCE, rankFirst, scoreEvidence, weighFragmentEvidence } from './fragment-evidence.js';
import type { Weighed } from './fragment-evidence.js';
import { measureSignature } from './signature.js';
import type { Signature } from './signature.js';

export interface Hypothesis {
  /** A cause, or "none": no fragment is ever re-sent (the fragment ACKs match). */
  readonly cause: FragmentAckCause;
  readonly criteria: Signature;
  /** Every criterion of the observed signature holds. */
  readonly matches: boolean;
  /** The evidence for (holds) and against (does not) this reading. */
  readonly evidence: Weighed[];
  readonly score: Score;
}

export interface FragmentAckReproduction {
  readonly scenario: string;
  readonly seed: number;
  readonly simulatedSeconds: number;
  readonly hypotheses: Hypothesis[];
  readonly evidence: ReadonlyArray<{ key: string; title: string; kind: string; source: string }>;
  readonly rankingRule: string;
  /** The reading(s) ranked first on the clean link, and those of similar rank (the same bytes, one measured item fewer at most). */
  readonly best: FragmentAckCause[];
  readonly similar: FragmentAckCause[];
  readonly lossy: {
    readonly loss: number;
    readonly hypotheses: Hypothesis[];
    /** Causes whose pass/fail pattern under loss still differs from the stock cause's. */
    readonly distinguishable: FragmentAckCause[];
    readonly indistinguishable: FragmentAckCause[];
  };
}

export const STOCK_CAUSE: FragmentAckCause = 'matcher-rejects-fragments';

/** The stock cause first, the reading with no re-sends last (it weighs against the others). */
const ORDER: readonly FragmentAckCause[] = [
  STOCK_CAUSE,
  ...FRAGMENT_ACK_CAUSES.filter((c) => c !== STOCK_CAUSE && c !== 'none'),
  'none',
];

function runHypotheses(scenario: Scenario, seed: number): Hypothesis[] {
  const fragments = checksumResponseFragments(scenario);
  return ORDER.map((cause) => {
    const { events, result } = traceScenario(scenario, {
      preset: 'stock',
      switches: { fragmentAckCause: cause },
      seed,
    });
    // Re-sends are expected until the run ends or the stock message lifetime does.
    const lifetimeS = usToSeconds(maxMessageAgeUs(result.summary.switches, scenario.params));
    const criteria = measureSignature(events, usToSeconds(scenario.durationUs), lifetimeS);
    const evidence = weighFragmentEvidence(events, criteria, fragments);
    return {
      cause,
      criteria,
      matches: Object.values(criteria).every((c) => c.pass),
      evidence,
      score: scoreEvidence(evidence),
    };
  });
}

export function reproduceFragmentAck(
  clean: Scenario,
  lossy: Scenario,
  loss: number,
  seed = clean.seed,
): FragmentAckReproduction {
  const hypotheses = runHypotheses(clean, seed);
  const lossyHypotheses = runHypotheses(lossy, seed);
  const pattern = (h: Hypothesis) =>
    Object.values(h.criteria)
      .map((c) => (c.pass ? '1' : '0'))
      .join('');
  const stock = lossyHypotheses.find((h) => h.cause === STOCK_CAUSE) as Hypothesis;
  const others = lossyHypotheses.filter((h) => h.cause !== STOCK_CAUSE);
  const best = rankFirst(hypotheses);
  const top = best[0]?.score;
  const similar =
    top === undefined
      ? []
      : hypotheses
          .filter((h) => !best.includes(h) && h.score.bytes === top.bytes && top.measured - h.score.measured <= 1)
          .map((h) => h.cause);
  return {
    scenario: clean.name,
    seed,
    simulatedSeconds: usToSeconds(clean.durationUs),
    hypotheses,
    evidence: FRAGMENT_EVIDENCE.map((e) => ({ ...e })),
    rankingRule: `${RANKING_RULE} The five signature criteria are facets of one account and weigh as one item.`,
    best: best.map((h) => h.cause),
    similar,
    lossy: {
      loss,
      hypotheses: lossyHypotheses,
      distinguishable: others.filter((h) => pattern(h) !== pattern(stock)).map((h) => h.cause),
      indistinguishable: others.filter((h) => pattern(h) === pattern(stock)).map((h) => h.cause),
    },
  };
}
