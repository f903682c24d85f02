// A rule that checked nothing is "not exercised", never passed, and says why
// from what its judge saw; a counterpart that sent nothing exercises no rule.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CONFORMANCE_RULES,
  SILENT_COUNTERPART_REASON,
  evaluateConformance,
  evaluateConformanceLog,
} from '../../src/live/conformance/index.js';
import type { ConformanceRule } from '../../src/live/conformance/index.js';
import type { WireRecord } from '../../src/live/wire-log.js';
import { Opcode } from '../../src/model/traffic/payloads.js';
import { ack, frag, heard, local, reliable, remote } from '../support/conformance-logs.js';

const END_MS = 10_000;
const response = (seq: number) => reliable(seq, Opcode.ChecksumResponse, 1);

/** [rule, log, reason] — each log gives the rule no case to judge, for the reason given. */
const CASES: Array<[ConformanceRule, WireRecord[], string, number?]> = [
  [{ rule: 'fragment-acks', withinMs: 2000 }, [local(0, reliable(1)), heard(10)], 'we sent no fragments'],
  [
    { rule: 'fragment-acks', withinMs: 2000 },
    [heard(10), local(9_000, frag(5, 0), frag(5, 1), frag(5, 2))],
    'we sent 3 fragments, none judgeable: 3 sent less than 2000 ms before the run ended',
  ],
  [{ rule: 'ack-within', ms: 1000 }, [heard(10)], 'we sent no reliable messages'],
  [
    { rule: 'ack-within', ms: 500 },
    [heard(10), local(9_800, reliable(2))],
    'we sent 1 reliable message, none judgeable: 1 sent less than 500 ms before the run ended',
  ],
  [
    { rule: 'ack-within', ms: 500 },
    [local(0, reliable(1)), heard(10)],
    'we sent 1 reliable message, none judgeable: 1 untracked (the bound on tracked keys was reached)',
    0,
  ],
  [{ rule: 'ack-sends-max', max: 9 }, [local(0, reliable(1)), heard(10)], 'the counterpart sent no ACKs'],
  [
    { rule: 'ack-sends-max', max: 9 },
    [local(0, reliable(1)), remote(10, ack(1)), remote(20, ack(1))],
    'the counterpart sent 2 ACKs, none judgeable: 3 untracked (the bound on tracked keys was reached)',
    0,
  ],
  [
    { rule: 'no-repeated-processing' },
    [local(0, reliable(1)), heard(10)],
    'we sent none of the requests whose replies show it: Connect, ChecksumRequest, ChecksumResponse, GameInit, NewPlayerInGame',
  ],
  [
    { rule: 'no-repeated-processing' },
    [local(0, response(3)), heard(10), local(2000, response(3))],
    'the counterpart answered none of our 1 request (Connect, ChecksumRequest, ChecksumResponse, GameInit, NewPlayerInGame)',
  ],
  [
    { rule: 'retransmit-interval', minMs: 200, maxMs: 3000 },
    [local(0, reliable(1)), heard(10)],
    'the counterpart sent no reliable messages',
  ],
  [
    { rule: 'retransmit-interval', minMs: 200, maxMs: 3000 },
    [remote(0, reliable(7)), remote(10, reliable(8))],
    'the counterpart re-sent none of its 2 reliable messages',
  ],
  [
    { rule: 'stops-after-ack', graceMs: 1000 },
    [remote(0, reliable(7)), local(10, reliable(1))],
    'we ACKed no reliable message of the counterpart',
  ],
  [
    { rule: 'stops-after-ack', graceMs: 1000 },
    [remote(9_500, reliable(9)), local(9_510, ack(9))],
    'we ACKed 1 reliable message of the counterpart, none judgeable: 1 ACKed less than 1000 ms before the run ended',
  ],
];

describe('each rule says why it checked nothing', () => {
  for (const [rule, log, reason, maxTrackedKeys] of CASES) {
    it(`${rule.rule}: ${reason}`, () => {
      const [result] = evaluateConformanceLog(log, [rule], { endUs: END_MS * 1000, maxTrackedKeys }).rules;
      expect(result).toMatchObject({ status: 'not-exercised', passed: false, checked: 0, violations: 0, reason });
    });
  }

  it('and a rule given a case to judge is exercised: the same kinds of log with one case more', () => {
    const judged: Array<[ConformanceRule, WireRecord[]]> = [
      [{ rule: 'fragment-acks', withinMs: 2000 }, [local(0, frag(5, 0)), heard(10)]],
      [{ rule: 'ack-within', ms: 1000 }, [local(0, reliable(1)), heard(10)]],
      [{ rule: 'ack-sends-max', max: 9 }, [local(0, reliable(1)), remote(10, ack(1))]],
      [{ rule: 'no-repeated-processing' }, [local(0, response(3)), remote(10, reliable(4, Opcode.ChecksumRequest, 4))]],
      [{ rule: 'retransmit-interval', minMs: 200, maxMs: 3000 }, [remote(0, reliable(7)), remote(2000, reliable(7))]],
      [{ rule: 'stops-after-ack', graceMs: 1000 }, [remote(0, reliable(9)), local(10, ack(9))]],
    ];
    for (const [rule, log] of judged) {
      const [result] = evaluateConformance(log, [rule], { endUs: END_MS * 1000 });
      expect(result.status, rule.rule).not.toBe('not-exercised');
      expect(result.checked, rule.rule).toBeGreaterThan(0);
      expect(result.reason, rule.rule).toBeUndefined();
    }
  });
});

describe('a counterpart that sent nothing', () => {
  const ours = [local(0, frag(5, 0), frag(5, 1), frag(5, 2)), local(100, reliable(1)), local(2100, reliable(1))];

  it('exercises no rule: every one is not exercised, for that reason', () => {
    const evaluation = evaluateConformanceLog(ours, DEFAULT_CONFORMANCE_RULES, { endUs: END_MS * 1000 });
    expect(evaluation.counterpartSilent).toBe(true);
    expect(evaluation.rules.map((r) => [r.status, r.passed, r.checked, r.reason])).toEqual(
      DEFAULT_CONFORMANCE_RULES.map(() => ['not-exercised', false, 0, SILENT_COUNTERPART_REASON]),
    );
    expect(evaluation.counts).toEqual({ rules: 6, passed: 0, failed: 0, notExercised: 6 });
  });

  it('while one datagram of it makes the same log judged (and failed: nothing was ACKed)', () => {
    const evaluation = evaluateConformanceLog([...ours, heard(50)], DEFAULT_CONFORMANCE_RULES, {
      endUs: END_MS * 1000,
    });
    expect(evaluation.counterpartSilent).toBe(false);
    expect(evaluation.rules.find((r) => r.rule === 'fragment-acks')).toMatchObject({
      status: 'fail',
      checked: 3,
      violations: 3,
    });
    expect(evaluation.rules.find((r) => r.rule === 'ack-within')).toMatchObject({ status: 'fail', checked: 4 });
  });
});
