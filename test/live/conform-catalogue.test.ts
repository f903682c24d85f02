// The cases declared as data: each wire fault is declared by the one case that probes
// it (with what it is), a fault no case declares is refused, and the groups' lists
// join into one list with no case twice.
import { describe, expect, it } from 'vitest';
import { CASE_IDS, CONFORM_CASES, FAULT_KINDS, faultLabel, faultOwner } from '../../src/live/index.js';

describe('conform cases as data', () => {
  it('declares every fault once, in the case that probes it', () => {
    const declared = CONFORM_CASES.flatMap((c) => Object.keys(c.probes).map((kind) => [kind, c.id]));
    expect(new Set(declared.map(([kind]) => kind)).size).toBe(declared.length);
    expect([...FAULT_KINDS.entries()].map(([kind, v]) => [kind, v.caseId])).toEqual(declared);
    expect(faultOwner('duplicate')).toBe('duplicate-processing');
    expect(faultLabel('duplicate')).toBe('a reliable message sent again with its seq');
    for (const [, { label }] of FAULT_KINDS) expect(label).toMatch(/^[a-z]/);
  });

  it('refuses a fault that no case declares', () => {
    expect(() => faultLabel('no-such-fault')).toThrow('conform: fault no-such-fault is declared by no case');
    expect(faultOwner('no-such-fault')).toBeNull();
  });

  it('lists each case once, group by group', () => {
    expect(new Set(CASE_IDS).size).toBe(CASE_IDS.length);
    expect(CASE_IDS.length).toBe(CONFORM_CASES.length);
    expect(CASE_IDS.slice(0, 2)).toEqual(['duplicate-processing', 'fragment-reassembly']);
  });
});
