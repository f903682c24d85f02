// The conformance rules' verdicts as text, JUnit and counts: pass, fail and
// not exercised, and a rule that checked nothing failed on request.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  conformanceJunitXml,
  countVerdicts,
  evaluateConformance,
  evaluateConformanceLog,
  renderConformanceText,
  requireExercised,
  writeConformanceJunit,
} from '../../src/live/conformance/index.js';
import type { ConformanceRule } from '../../src/live/conformance/index.js';
import { ack, frag, local, parseXml, reliable, remote } from '../support/conformance-logs.js';

describe('reports', () => {
  const log = [
    local(0, frag(5, 0), frag(5, 1), frag(5, 2)),
    local(10, reliable(6)),
    remote(20, ack(6)),
    remote(30, ack(6)),
  ];
  const rules: ConformanceRule[] = [
    { rule: 'fragment-acks', withinMs: 2000 },
    { rule: 'ack-sends-max', max: 1, name: 'one <ack> & "only"' },
    { rule: 'no-repeated-processing' },
    { rule: 'ack-sends-max', max: 9 },
  ];
  const evaluation = evaluateConformanceLog(log, rules, { endUs: 10_000_000 });
  const results = [...evaluation.rules];

  it('gives each rule a status, and counts them', () => {
    expect(results.map((r) => [r.status, r.passed])).toEqual([
      ['fail', false],
      ['fail', false],
      ['not-exercised', false],
      ['pass', true],
    ]);
    expect(results[2].reason).toBe(
      'we sent none of the requests whose replies show it: Connect, ChecksumRequest, ChecksumResponse, GameInit, NewPlayerInGame',
    );
    expect(results.filter((r) => r.reason !== undefined)).toHaveLength(1);
    expect(evaluation.counts).toEqual({ rules: 4, passed: 1, failed: 2, notExercised: 1 });
    expect(evaluation.counterpartSilent).toBe(false);
  });

  it('renders one line per rule, the evidence of failures, the reason of a rule not exercised, and the counts', () => {
    const text = renderConformanceText(results, evaluation);
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe(
      'FAIL fragment-acks: Every fragment we sent got a well-formed 5-byte fragment ACK with its seq and index within 2000 ms. (checked 3, violations 3)',
    );
    expect(lines[1]).toMatch(
      /^ {4}t=0\.000 s conn 1 seq 5 frag 0: Our fragment 0 of seq 5 got no well-formed 5-byte fragment ACK within 2000 ms/,
    );
    expect(lines[2]).toMatch(/^ {6}hex: 02 03 32 /);
    expect(text).toContain(
      'FAIL one <ack> & "only": No ACK entry of the counterpart was sent more than 1 times. (checked 1, violations 1)',
    );
    expect(text).toContain(
      'NOT EXERCISED no-repeated-processing: No request of ours drew more than one distinct reliable reply, so none was processed twice as far as the wire shows. ' +
        '(checked 0 events: we sent none of the requests whose replies show it: Connect, ChecksumRequest, ChecksumResponse, GameInit, NewPlayerInGame)\n' +
        'PASS ack-sends-max: ',
    );
    expect(lines[lines.length - 1]).toBe(
      'conformance: 1 passed, 2 failed, 1 not exercised (4 rules; 4 datagrams on 1 connection)',
    );
    expect(renderConformanceText(results.slice(3)).trimEnd().split('\n').pop()).toBe(
      'conformance: 1 passed, 0 failed, 0 not exercised (1 rule)',
    );
  });

  it('writes deterministic JUnit XML that parses: one case per rule, failures with evidence, a rule not exercised skipped with its reason', () => {
    const xml = conformanceJunitXml(results);
    expect(conformanceJunitXml(evaluateConformance(log, rules, { endUs: 10_000_000 }))).toBe(xml);
    const root = parseXml(xml);
    expect(root).toMatchObject({
      name: 'testsuites',
      attributes: { name: 'bcsim peer conformance', tests: '4', failures: '2', skipped: '1' },
    });
    const suites = root.children.filter((c) => c.name === 'testsuite');
    expect(suites).toHaveLength(1);
    expect(suites[0].attributes).toEqual({ name: 'bcsim peer conformance', tests: '4', failures: '2', skipped: '1' });
    const cases = suites[0].children;
    expect(cases.map((c) => c.name)).toEqual(['testcase', 'testcase', 'testcase', 'testcase']);
    expect(cases[1].attributes.name).toBe(
      'one <ack> & "only": No ACK entry of the counterpart was sent more than 1 times.',
    );
    expect(cases.map((c) => c.children.map((f) => f.name))).toEqual([['failure'], ['failure'], ['skipped'], []]);
    const failure = cases[0].children[0];
    expect(failure.attributes.message).toBe('3 violations in 3 checked');
    expect(failure.text).toContain('seq 5 frag 2');
    expect(failure.text).toContain('hex: 02 03 32');
    expect(cases[2].children[0].attributes.message).toBe(`not exercised: checked 0 events: ${results[2].reason}`);

    const dir = mkdtempSync(join(tmpdir(), 'bcsim-junit-'));
    try {
      const file = join(dir, 'out', 'junit.xml');
      writeConformanceJunit(file, results);
      expect(readFileSync(file, 'utf8')).toBe(xml);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('with exercise required, a rule that checked nothing fails, in the text, the counts and JUnit alike', () => {
    const required = requireExercised(results);
    expect(required[2]).toMatchObject({
      status: 'fail',
      passed: false,
      checked: 0,
      violations: 0,
      reason: results[2].reason,
    });
    expect(countVerdicts(required)).toEqual({ rules: 4, passed: 1, failed: 3, notExercised: 0 });
    const text = renderConformanceText(required);
    expect(text).toContain('FAIL no-repeated-processing: ');
    expect(text).toContain(`    not exercised, and required to be: checked 0 events: ${results[2].reason}\n`);
    expect(text.trimEnd().split('\n').pop()).toBe('conformance: 1 passed, 3 failed, 0 not exercised (4 rules)');
    const cases = parseXml(conformanceJunitXml(required)).children[0].children;
    expect(cases[2].children[0]).toMatchObject({
      name: 'failure',
      attributes: { message: `not exercised, and required to be: checked 0 events: ${results[2].reason}` },
    });
    expect(parseXml(conformanceJunitXml(required)).attributes).toEqual({
      name: 'bcsim peer conformance',
      tests: '4',
      failures: '3',
    });
  });
});
