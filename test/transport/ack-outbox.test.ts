// The ACK-outbox counts the stock linear dedup scan without performing it.
// Here a naive implementation (a plain array, scanned entry by entry) runs the
// same random operations; comparisons, sizes, dead zone and wire output must agree.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AckMessage } from '../../src/core/codec/index.js';
import { ZERO_US, micros } from '../../src/core/engine/index.js';
import { AckOutbox } from '../../src/model/transport/ack-outbox.js';
import { newPeerCounters } from '../../src/model/transport/counters.js';
import { DatagramBuilder } from '../../src/model/transport/datagram-builder.js';
import { DEFAULT_PARAMS, resolveSwitches } from '../../src/model/transport/switches.js';
import type { TransportSwitches } from '../../src/model/transport/switches.js';

interface NaiveEntry {
  seq: number;
  low: boolean;
  fragment: boolean;
  fragIndex: number;
  count: number;
  lastSendUs: number;
}

/** The stock algorithm written the obvious way: one list, scanned from the head. */
class NaiveOutbox {
  entries: NaiveEntry[] = [];
  constructor(
    private readonly twoPass: boolean,
    private readonly passOneLimit: number,
    private readonly freeAt: number,
    private readonly resetOnRefresh: boolean,
    private readonly coalesce: boolean,
    private readonly intervalUs: number,
  ) {}

  receive(seq: number, low: boolean, fragment: boolean, fragIndex: number): number {
    let comparisons = 0;
    for (const e of this.entries) {
      comparisons++;
      const sameIndex = !fragment || this.coalesce || e.fragIndex === fragIndex;
      if (e.seq === seq && e.low === low && e.fragment === fragment && sameIndex) {
        e.lastSendUs = -Infinity;
        if (this.resetOnRefresh) e.count = 0;
        return comparisons;
      }
    }
    this.entries.push({ seq, low, fragment, fragIndex, count: 0, lastSendUs: -Infinity });
    return comparisons;
  }

  /** Returns [seq, fragIndex|null] of each ACK written, in order. */
  pass(nowUs: number, budget: { bytes: number }, stale: boolean): Array<[number, number | null]> {
    const written: Array<[number, number | null]> = [];
    for (const e of [...this.entries]) {
      const inPassOne = e.count < this.passOneLimit;
      if (stale === inPassOne) continue;
      if (!(nowUs - e.lastSendUs > this.intervalUs)) continue;
      const size = e.fragment ? 5 : 4;
      if (size > budget.bytes) break;
      budget.bytes -= size;
      written.push([e.seq, e.fragment ? e.fragIndex : null]);
      e.count++;
      e.lastSendUs = nowUs;
      const limit = stale ? this.freeAt : this.twoPass ? Infinity : this.passOneLimit;
      if (e.count >= limit) this.entries.splice(this.entries.indexOf(e), 1);
    }
    return written;
  }

  get deadZone(): number {
    return this.twoPass ? this.entries.filter((e) => e.count >= this.passOneLimit).length : 0;
  }
}

type Op =
  | { kind: 'receive'; seq: number; low: boolean; fragment: boolean; fragIndex: number }
  | { kind: 'cycle'; advanceMs: number; budget: number; gateOpen: boolean };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('receive' as const),
      seq: fc.integer({ min: 0, max: 12 }),
      low: fc.boolean(),
      fragment: fc.boolean(),
      fragIndex: fc.integer({ min: 0, max: 2 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('cycle' as const),
      advanceMs: fc.integer({ min: 0, max: 1500 }),
      budget: fc.integer({ min: 0, max: 40 }),
      gateOpen: fc.boolean(),
    }),
  },
);

function check(switchOverrides: Partial<TransportSwitches>, ops: Op[]): void {
  const switches = resolveSwitches('stock', switchOverrides);
  const counters = newPeerCounters();
  const outbox = new AckOutbox(switches, DEFAULT_PARAMS, counters);
  const twoPass = switches.ackOutbox === 'two-pass-gated';
  const naive = new NaiveOutbox(
    twoPass,
    twoPass ? DEFAULT_PARAMS.ackPassOneLimit : switches.ackSendLimit,
    DEFAULT_PARAMS.ackFreeAtCount,
    switches.ackRefresh === 'reset-count',
    switches.fragmentAckCause === 'partial-ack',
    DEFAULT_PARAMS.ackResendIntervalMs * 1000,
  );
  let nowUs = 0;
  for (const op of ops) {
    if (op.kind === 'receive') {
      const expected = naive.receive(op.seq, op.low, op.fragment, op.fragIndex);
      expect(outbox.onReliableReceived(op.seq, op.low, op.fragment, op.fragIndex, ZERO_US)).toBe(expected);
    } else {
      nowUs += op.advanceMs * 1000;
      const out = new DatagramBuilder();
      out.bytes = 512 - op.budget; // leave exactly `budget` bytes free
      const budget = { bytes: op.budget };
      const expected = naive.pass(nowUs, budget, false);
      outbox.passOne(micros(nowUs), out);
      if (twoPass && (out.count > 0 || op.gateOpen)) {
        expected.push(...naive.pass(nowUs, budget, true));
        outbox.passTwo(micros(nowUs), out);
      } else if (twoPass && expected.length === 0) {
        // gate shut: the naive model skips pass 2 too
      }
      const written = (out.messages as AckMessage[]).map((m): [number, number | null] => [m.seq, m.fragIndex]);
      expect(written).toEqual(expected);
    }
    expect(outbox.size).toBe(naive.entries.length);
    expect(outbox.deadZone).toBe(naive.deadZone);
  }
}

describe('AckOutbox against a naive linear scan', () => {
  const variants: Array<[string, Partial<TransportSwitches>]> = [
    ['stock', {}],
    ['stock + reset-count refresh', { ackRefresh: 'reset-count' }],
    ['stock + partial-ack coalescing', { fragmentAckCause: 'partial-ack' }],
    ['single pass, linear scan', { ackOutbox: 'single-pass-bounded' }],
  ];
  for (const [name, overrides] of variants) {
    it(`${name}: same comparisons, sizes, dead zone and wire order`, () => {
      fc.assert(
        fc.property(fc.array(opArb, { minLength: 1, maxLength: 200 }), (ops) => check(overrides, ops)),
        { numRuns: 300, seed: 20261125 },
      );
    });
  }

  it('counts comparisons through a position-index compaction (thousands of insertions)', () => {
    const ops: Op[] = [];
    for (let i = 0; i < 12_000; i++) {
      ops.push({ kind: 'receive', seq: i % 4000, low: false, fragment: false, fragIndex: 0 });
      if (i % 7 === 0) ops.push({ kind: 'cycle', advanceMs: 700, budget: 40, gateOpen: true });
    }
    check({}, ops);
  });

  it('hashed dedup costs exactly one comparison per lookup', () => {
    const counters = newPeerCounters();
    const outbox = new AckOutbox(resolveSwitches('fixed'), DEFAULT_PARAMS, counters);
    for (let i = 0; i < 500; i++) expect(outbox.onReliableReceived(i, false, false, 0, ZERO_US)).toBe(1);
    expect(counters.dedupComparisons).toBe(500);
    expect(counters.dedupComparisonsMaxPerMessage).toBe(1);
  });
});
