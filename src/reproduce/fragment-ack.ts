// `reproduce fragment-ack`: run the fragment-ack-bug scenario once per candidate
// cause (DECISIONS.md 14) plus none (= fixed), on a clean and on a lossy link,
// and measure each run against the observed signature.
import { usToSeconds } from '../engine/index.js';
import type { Scenario } from '../scenario/index.js';
import { traceScenario } from '../trace/index.js';
import { maxMessageAgeUs, FRAGMENT_ACK_CAUSES } from '../transport/index.js';
import type { FragmentAckCause } from '../transport/index.js';
import { measureSignature } from './signature.js';
import type { Signature } from './signature.js';

export interface Hypothesis {
  /** A cause, or "none" for the fixed preset. */
  readonly cause: FragmentAckCause;
  readonly criteria: Signature;
  readonly matches: boolean;
}

export interface FragmentAckReproduction {
  readonly scenario: string;
  readonly seed: number;
  readonly simulatedSeconds: number;
  readonly hypotheses: Hypothesis[];
  readonly lossy: {
    readonly loss: number;
    readonly hypotheses: Hypothesis[];
    /** Causes whose pass/fail pattern under loss still differs from the stock cause's. */
    readonly distinguishable: FragmentAckCause[];
    readonly indistinguishable: FragmentAckCause[];
  };
}

export const STOCK_CAUSE: FragmentAckCause = 'matcher-rejects-fragments';

function runHypotheses(scenario: Scenario, seed: number): Hypothesis[] {
  return FRAGMENT_ACK_CAUSES.map((cause) => {
    // "none" is the fixed preset; every other cause runs on stock with that cause switched in.
    const options = cause === 'none' ? { preset: 'fixed' as const } : { preset: 'stock' as const, switches: { fragmentAckCause: cause } };
    const { events, result } = traceScenario(scenario, { ...options, seed });
    // Re-sends are expected until the run ends or the stock message lifetime does (issue 10).
    const lifetimeS = usToSeconds(maxMessageAgeUs(result.summary.switches, scenario.params));
    const criteria = measureSignature(events, usToSeconds(scenario.durationUs), lifetimeS);
    return { cause, criteria, matches: Object.values(criteria).every((c) => c.pass) };
  });
}

export function reproduceFragmentAck(clean: Scenario, lossy: Scenario, loss: number, seed = clean.seed): FragmentAckReproduction {
  const hypotheses = runHypotheses(clean, seed);
  const lossyHypotheses = runHypotheses(lossy, seed);
  const pattern = (h: Hypothesis) => Object.values(h.criteria).map((c) => (c.pass ? '1' : '0')).join('');
  const stock = lossyHypotheses.find((h) => h.cause === STOCK_CAUSE) as Hypothesis;
  const others = lossyHypotheses.filter((h) => h.cause !== STOCK_CAUSE);
  return {
    scenario: clean.name,
    seed,
    simulatedSeconds: usToSeconds(clean.durationUs),
    hypotheses,
    lossy: {
      loss,
      hypotheses: lossyHypotheses,
      distinguishable: others.filter((h) => pattern(h) !== pattern(stock)).map((h) => h.cause),
      indistinguishable: others.filter((h) => pattern(h) === pattern(stock)).map((h) => h.cause),
    },
  };
}
