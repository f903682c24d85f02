// The sensitivity runs (compare --sensitivity): without them a verdict says the readings of
// similar rank were not rerun; with them it names the ones that flip a stock verdict, with the
// figures, and the compared columns themselves are the same either way.
import { describe, expect, it } from 'vitest';
import { runComparison } from '../../src/analysis/report/compare.js';
import { findings } from '../../src/analysis/report/narrative.js';
import { verdicts } from '../../src/analysis/report/verdict.js';
import { VERDICT_ALTERNATIVES } from '../../src/analysis/reproduce/alternatives.js';
import { loadScenario } from '../../src/model/scenario/load.js';

const scenario = loadScenario('fragment-ack-bug');
const plain = runComparison(scenario, { durationUs: 60_000_000 });
const sensitive = runComparison(scenario, { durationUs: 60_000_000, sensitivity: true });

describe('compare without --sensitivity', () => {
  it('runs no reading of similar rank, and says so in the verdict and in the report', () => {
    expect(plain.sensitivity).toBeUndefined();
    expect(plain.runs.map((r) => r.spec.label)).toEqual(['stock', 'fixed']);
    expect(verdicts(plain).at(-1)).toBe(
      'rests on: the readings `bcsim reproduce ack-outbox` ranks first; those of similar rank were not rerun (--sensitivity reruns them)',
    );
    const notRerun = findings(plain).filter((f) => f.includes('were not rerun here'));
    expect(notRerun).toHaveLength(1);
    for (const name of VERDICT_ALTERNATIVES) expect(notRerun[0]).toContain(`"${name}"`);
    expect(notRerun[0]).toContain('`bcsim compare fragment-ack-bug --sensitivity`');
  });
});

describe('compare --sensitivity', () => {
  it('reruns the stock column once per reading of similar rank, in their order', () => {
    expect(sensitive.sensitivity?.map((r) => r.name)).toEqual([...VERDICT_ALTERNATIVES]);
  });

  it('leaves the compared columns as they are without it', () => {
    expect(sensitive.runs.map((r) => r.spec.label)).toEqual(['stock', 'fixed']);
    expect(JSON.stringify(sensitive.runs.map((r) => r.summary))).toBe(JSON.stringify(plain.runs.map((r) => r.summary)));
  });

  it('names the reading under which the fragment re-sends flip, with both figures', () => {
    const stockResends =
      plain.runs[0].summary.peers.server.fragmentRetransmits + plain.runs[0].summary.peers.client.fragmentRetransmits;
    expect(stockResends).toBeGreaterThan(3);
    const restsOn = verdicts(sensitive).at(-1) as string;
    expect(restsOn).toMatch(/under one of similar rank: .*"no-fragment-resend" \([^)]*fragment re-sends\)/);
    const sentence = findings(sensitive).find((f) => f.startsWith('Under "no-fragment-resend"'));
    expect(sentence).toContain(`fragments are re-sent 0 times (stock: ${stockResends})`);
    expect(findings(sensitive).some((f) => f.includes('were not rerun here'))).toBe(false);
  });

  it('runs nothing more when no column is labelled stock', () => {
    const other = runComparison(scenario, {
      durationUs: 5_000_000,
      sensitivity: true,
      modes: [
        { label: 'A', preset: 'stock' },
        { label: 'B', preset: 'fixed' },
      ],
    });
    expect(other.sensitivity).toEqual([]);
  });
});
