// The conformance rules as data (RULE_CATALOGUE): the windows each declares are
// the fields its schema checks as windows, docs/live.md's rule table names each
// rule with its fields, and a planted bug declared to fail a rule fails it
// (`bcsim peer client` against a `bcsim peer server` with the bug planted).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFORM_CASES, RULE_CATALOGUE, RULE_KINDS } from '../../src/live/index.js';
import { RULE_SCHEMAS } from '../../src/live/conformance/rules.js';
import { bcsim, freeUdpPort } from '../support/live.js';

/** A rule's fields besides its kind and name: `retransmit-interval {minMs, maxMs}`. */
const fieldsOf = (kind: keyof typeof RULE_SCHEMAS) =>
  Object.keys(RULE_SCHEMAS[kind].shape).filter((k) => k !== 'rule' && k !== 'name');

describe('the conformance rules as data', () => {
  it('declares as windows exactly the fields in ms of each rule', () => {
    for (const kind of RULE_KINDS)
      expect(RULE_CATALOGUE[kind].windows, kind).toEqual(fieldsOf(kind).filter((f) => f.endsWith('Ms') || f === 'ms'));
  });

  it("docs/live.md's rule table has a row per rule, in order, naming its fields", () => {
    const doc = readFileSync(new URL('../../docs/live.md', import.meta.url), 'utf8').split('\n');
    const start = doc.findIndex((l) => l.startsWith('| rule | the counterpart'));
    const rows: string[] = [];
    for (const line of doc.slice(start + 2)) {
      if (!line.startsWith('|')) break;
      rows.push(line.split('|')[1].trim());
    }
    expect(rows).toEqual(
      RULE_KINDS.map((k) => `\`${k}${fieldsOf(k).length === 0 ? '' : ` {${fieldsOf(k).join(', ')}}`}\``),
    );
  });

  it('a rule that is also a conform case is failed by the same planted bugs', () => {
    const shared = CONFORM_CASES.filter((c) => (RULE_KINDS as readonly string[]).includes(c.id));
    expect(shared.map((c) => c.id)).toEqual(['fragment-acks']);
    for (const c of shared)
      expect(RULE_CATALOGUE[c.id as keyof typeof RULE_CATALOGUE].plantedBugs).toEqual(c.plantedBugs);
  });

  const planted = RULE_KINDS.flatMap((rule) => RULE_CATALOGUE[rule].plantedBugs.map((bug) => ({ rule, bug })));
  it.each(planted)(
    '$bug fails the $rule rule of a fixed client',
    async ({ rule, bug }) => {
      const port = await freeUdpPort();
      const server = bcsim(
        ['peer', 'server', '--listen', `127.0.0.1:${port}`, '--mode', 'fixed', '--switch', `plantedBug=${bug}`],
        60_000,
      );
      try {
        await server.stderrSays('waiting for clients');
        // The join sends the round-2 checksum answer in fragments: the join alone exercises the fragment rules.
        const client = bcsim(
          ['peer', 'client', '--connect', `127.0.0.1:${port}`, '--mode', 'fixed', '--duration', '12s', '--json'],
          45_000,
        );
        const out = await client.exited;
        const json = JSON.parse(out.stdout) as { conformance: { rule: string; status: string; violations: number }[] };
        const verdict = json.conformance.find((r) => r.rule === rule);
        expect(verdict?.status, JSON.stringify(verdict)).toBe('fail');
        expect(verdict?.violations).toBeGreaterThan(0);
        expect(out.code).toBe(1);
      } finally {
        server.child.kill('SIGINT');
        await server.exited;
      }
    },
    90_000,
  );
});
