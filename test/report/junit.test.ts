// The shared JUnit writer (src/core/output/junit.ts): pass, fail and skipped cases,
// and `bcsim check`'s documents, byte for byte as check has always written them.
import { describe, expect, it } from 'vitest';
import { junitXml } from '../../src/analysis/check/junit.js';
import type { CheckRun } from '../../src/analysis/check/index.js';
import { junitDocument } from '../../src/core/output/index.js';
import { parseXml } from '../support/conformance-logs.js';

describe('junitDocument', () => {
  const xml = junitDocument('suite <all>', [
    {
      name: 'one',
      cases: [
        { classname: 'c', name: 'passes', status: 'pass' },
        { classname: 'c', name: 'fails', status: 'fail', message: 'a & b', detail: 'line 1\nline 2' },
        { classname: 'c', name: 'fails bare', status: 'fail', message: 'no detail' },
        { classname: 'c', name: 'skipped', status: 'skipped', message: 'checked 0 events: nothing\u0001 sent' },
      ],
    },
    { name: 'two', cases: [{ classname: 'd', name: 'passes', status: 'pass' }] },
  ]);

  it('counts failures and skipped cases per suite and in all, and parses', () => {
    const root = parseXml(xml);
    expect(root.attributes).toEqual({ name: 'suite <all>', tests: '5', failures: '2', skipped: '1' });
    expect(root.children.map((s) => s.attributes)).toEqual([
      { name: 'one', tests: '4', failures: '2', skipped: '1' },
      { name: 'two', tests: '1', failures: '0' },
    ]);
    const cases = root.children[0].children;
    expect(cases.map((c) => c.children.map((e) => e.name))).toEqual([[], ['failure'], ['failure'], ['skipped']]);
    expect(cases[1].children[0]).toMatchObject({ attributes: { message: 'a & b' }, text: 'line 1\nline 2' });
    // XML 1.0 cannot carry control characters at all: they become "?".
    expect(cases[3].children[0].attributes.message).toBe('checked 0 events: nothing? sent');
  });

  it('writes the forms check has always written: empty passing cases, failures inline', () => {
    expect(xml).toContain('    <testcase classname="c" name="passes"></testcase>\n');
    expect(xml).toContain('<testcase classname="c" name="fails bare"><failure message="no detail"/></testcase>');
    expect(xml).toContain(
      '<testcase classname="c" name="skipped"><skipped message="checked 0 events: nothing? sent"/></testcase>',
    );
  });
});

describe("bcsim check's JUnit, through the shared writer", () => {
  const run = (mode: 'stock' | 'fixed', seed: number, pass: boolean, identical: boolean | null): CheckRun =>
    ({
      ref: 'x.json',
      scenario: 'sweep <x>',
      mode,
      seed,
      durationSeconds: 10,
      results: [
        { path: 'delivery.reliableLost', op: 'eq', expected: 0, actual: pass ? 0 : 3, pass },
        { path: 'peers.*.ackOutbox.max', op: 'lte', expected: 20, actual: 9, pass: true },
      ],
      determinism:
        identical === null
          ? null
          : { identical, datagrams: 12, message: identical ? '' : 'datagram 4 differs: "a" & "b"' },
      reproduce: `bcsim run x.json --mode ${mode} --seed ${seed} --json`,
      recheck: '',
      settings: {},
      pass: pass && identical !== false,
    }) as unknown as CheckRun;

  it('writes exactly the expected bytes', () => {
    const runs = [run('stock', 1, false, false), run('fixed', 2, true, null)];
    expect(junitXml(runs, { seedInNames: true })).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
        '<testsuites name="bcsim check" tests="5" failures="2">\n' +
        '  <testsuite name="sweep &lt;x&gt; [stock] seed 1" tests="3" failures="2">\n' +
        '    <testcase classname="sweep &lt;x&gt; [stock] seed 1" name="delivery.reliableLost == 0"><failure message="delivery.reliableLost is 3, expected == 0">reproduce: bcsim run x.json --mode stock --seed 1 --json</failure></testcase>\n' +
        '    <testcase classname="sweep &lt;x&gt; [stock] seed 1" name="peers.*.ackOutbox.max &lt;= 20"></testcase>\n' +
        '    <testcase classname="sweep &lt;x&gt; [stock] seed 1" name="determinism: two runs give identical traces"><failure message="datagram 4 differs: &quot;a&quot; &amp; &quot;b&quot;"/></testcase>\n' +
        '  </testsuite>\n' +
        '  <testsuite name="sweep &lt;x&gt; [fixed] seed 2" tests="2" failures="0">\n' +
        '    <testcase classname="sweep &lt;x&gt; [fixed] seed 2" name="delivery.reliableLost == 0"></testcase>\n' +
        '    <testcase classname="sweep &lt;x&gt; [fixed] seed 2" name="peers.*.ackOutbox.max &lt;= 20"></testcase>\n' +
        '  </testsuite>\n' +
        '</testsuites>\n',
    );
  });
});
