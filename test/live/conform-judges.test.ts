// The pure parts of `bcsim conform`'s judgement, without sockets: the judge of a
// server's own seqs (SeqStream), the order cases run in (exclusive ones alone),
// the campaign's outcome and first line, how a session's end is read from the
// server's messages, and the planted wire bugs of bcsim's peer server.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TYPE_BOOT, TYPE_GAME, decodeDatagram } from '../../src/core/codec/index.js';
import { SeqStream } from '../../src/live/conform/cases/seq-stream.js';
import { runScheduled, startOrder } from '../../src/live/conform/schedule.js';
import { sessionEndOf } from '../../src/live/conform/session-end.js';
import type { Arrival } from '../../src/live/conform/client.js';
import type { ConformCase } from '../../src/live/conform/case-types.js';
import { CampaignWire } from '../../src/live/conform/campaign-wire.js';
import type { ConformWireFigures } from '../../src/live/conform/campaign-wire.js';
import { conformOutcome } from '../../src/live/index.js';
import type { CaseResult, ConformReport } from '../../src/live/index.js';
import { cutAfterFragmentAck, ownSeqLowByte } from '../../src/live/peer/planted-wire.js';
import { ack, fragAck, reliable } from '../support/conformance-logs.js';
import { bc } from '../support/pcap-build.js';

const ARRIVAL: Arrival = { timeMs: 0, bytes: new Uint8Array(0), messages: [], error: null, deviations: [] };
const GRACE_MS = 1000;
const RESEND_MIN_MS = 500;

/** Feeds `count` new messages from `first`, `stepMs` apart; returns the stream and the next time. */
function feed(stream: SeqStream, first: number, count: number, atMs = 0, stepMs = 1): number {
  let t = atMs;
  for (let i = 0; i < count; i++, t += stepMs) stream.see((first + i) & 0xffff, t, ARRIVAL, i);
  return t;
}

describe("SeqStream: the server's own seqs", () => {
  it('passes a server that counts on across 255 and 65,535 (once every skipped seq has come)', () => {
    const s = new SeqStream('high', GRACE_MS, RESEND_MIN_MS);
    feed(s, 5, 65_536 + 40);
    expect(s.fault).toBeNull();
    expect(s.crossedByte).toBe(true);
    expect(s.wraps).toBe(1);
    expect(s.done(32)).toBe(true);
  });

  it('fails a one-byte counter at 255 -> 0, decisively, with or without telling messages apart', () => {
    for (const identity of [true, false]) {
      const s = new SeqStream('low', GRACE_MS, RESEND_MIN_MS);
      for (let i = 0; i < 300; i++) s.see(i & 0xff, i, ARRIVAL, identity ? i : null);
      expect(s.fault?.detail).toMatch(
        /carried seq 0 \(low\).* right after seq 255: expected 256 \(the seq past one byte\)/,
      );
      expect(s.done(0)).toBe(false);
    }
  });

  it('waits for a skipped seq (lost on the way), and fails a jump past any plausible loss', () => {
    const s = new SeqStream('high', GRACE_MS, RESEND_MIN_MS);
    feed(s, 0, 300);
    s.see(310, 400, ARRIVAL, 310);
    expect(s.fault).toBeNull();
    expect(s.missingCount).toBe(10);
    for (let q = 300; q < 310; q++) s.see(q, 2400, ARRIVAL, q);
    expect(s.missingCount).toBe(0);
    s.see(30_000, 2500, ARRIVAL, 30_000);
    expect(s.fault?.detail).toMatch(/carried seq 30000 \(high\) right after seq 310/);
  });

  it('forgives one copy after our ACK (an ACK may be lost), not two', () => {
    const s = new SeqStream('high', GRACE_MS, RESEND_MIN_MS);
    feed(s, 0, 10);
    s.see(3, 2000, ARRIVAL, 3);
    expect(s.fault).toBeNull();
    s.see(3, 4000, ARRIVAL, 3);
    expect(s.fault?.detail).toMatch(/seq 3 \(high\) came again 2 times, each after we ACKed it/);
  });

  it('never faults a correct server, whatever it loses and re-sends', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 65_535 }),
        fc.array(fc.boolean(), { minLength: 50, maxLength: 400 }),
        (first, lost) => {
          const s = new SeqStream('high', GRACE_MS, RESEND_MIN_MS);
          let t = 0;
          const resend: Array<[number, number]> = [];
          lost.forEach((isLost, i) => {
            const seq = (first + i) & 0xffff;
            if (isLost && i > 0) resend.push([seq, i]);
            else s.see(seq, t, ARRIVAL, i);
            t += 1;
          });
          // The lost ones come again at the retransmit interval, once each.
          for (const [seq, i] of resend) s.see(seq, t + 2000, ARRIVAL, i);
          expect(s.fault).toBeNull();
          expect(s.missingCount).toBe(0);
        },
      ),
    );
  });
});

function fakeCase(id: string, sessions: number, exclusive = false): ConformCase {
  return {
    id,
    title: id,
    probe: id,
    windows: [],
    plantedBugs: [],
    sessions,
    probes: {},
    exclusive,
    run: async () => ({ status: 'pass', summary: '', evidence: [] }),
  };
}

describe('the order cases run in', () => {
  it('starts shared cases most sessions first and exclusive ones last, each with nothing beside it', async () => {
    const cases = [
      fakeCase('a', 1),
      fakeCase('x', 2, true),
      fakeCase('b', 3),
      fakeCase('y', 2, true),
      fakeCase('c', 1),
    ];
    expect(startOrder(cases).map((c) => c.id)).toEqual(['b', 'a', 'c', 'x', 'y']);
    const running = new Set<string>();
    const beside: Record<string, string[]> = {};
    await runScheduled(
      startOrder(cases),
      4,
      async (c) => {
        beside[c.id] = [...running];
        running.add(c.id);
        for (const other of running) if (other !== c.id) (beside[other] ??= []).push(c.id);
        await new Promise((r) => setTimeout(r, 20));
        running.delete(c.id);
      },
      async () => true,
    );
    expect(beside.x).toEqual([]);
    expect(beside.y).toEqual([]);
    expect(beside.b).toContain('a');
  });
});

function result(id: string, status: CaseResult['status']): CaseResult {
  return {
    id,
    title: id,
    status,
    summary: `${id} why`,
    evidence: [],
    durationS: 1,
    repro: '',
    removedAfter: null,
    explainedBy: null,
  };
}

function report(
  cases: CaseResult[],
  refusal: ConformReport['refusal'] = null,
  wire: Partial<ConformWireFigures> = {},
): ConformReport {
  const count = (s: CaseResult['status']) => cases.filter((c) => c.status === s).length;
  return {
    schema: 'bcsim.conform/1',
    server: '127.0.0.1:1',
    seed: 1,
    answered: true,
    wallSeconds: 1,
    sessions: 1,
    counts: { pass: count('pass'), fail: count('fail'), notExercised: count('not-exercised') },
    refusal,
    serverDeviations: { datagrams: 0, byCode: {} },
    wire: { ...new CampaignWire().figures(), ...wire },
    cases,
  };
}

describe("the campaign's outcome", () => {
  it('never passes a run that exercised nothing, and says why first', () => {
    const refused = conformOutcome(
      report([result('a', 'not-exercised')], { round: '0', sent: 'ref 0x7E0CE243', did: 'it went silent' }),
    );
    expect(refused).toEqual({
      ok: false,
      firstLine:
        'bcsim conform: nothing was exercised: the server refused our round-0 checksum answer (ref 0x7E0CE243): it went silent — if it checks file hashes, give it its manifest with --manifest FILE',
    });
    expect(conformOutcome(report([result('a', 'not-exercised')])).firstLine).toBe(
      'bcsim conform: nothing was exercised: every case said NOT EXERCISED; the first: a: a why',
    );
  });

  it('passes a run with a case exercised and none failed, unless --require-exercised finds one not exercised', () => {
    const r = report([result('a', 'pass'), result('b', 'not-exercised')]);
    expect(conformOutcome(r)).toEqual({ ok: true, firstLine: null });
    expect(conformOutcome(r, true).firstLine).toBe(
      'bcsim conform: 1 case was not exercised, and --require-exercised fails the run; the first: b: b why',
    );
    expect(conformOutcome(report([result('a', 'fail'), result('b', 'pass')])).ok).toBe(false);
  });
  it("says first when more of the server's datagrams were unreadable than readable, whether the run passed or not", () => {
    const unreadable = {
      total: 150_000,
      bySource: [
        { address: '127.0.0.1:1', count: 150_000, first: [{ hex: '9dd3', bytes: 2, reason: 'offset 1: cut short' }] },
      ],
      otherSources: 0,
    };
    const garbage =
      "more of the server's datagrams were unreadable than readable: 2012 readable, unreadable 150000 (150000 from 127.0.0.1:1); first: 9dd3 (offset 1: cut short)";
    const passed = report([result('a', 'pass')], null, { readable: 2012, unreadable });
    expect(conformOutcome(passed)).toEqual({ ok: true, firstLine: `bcsim conform: ${garbage}` });
    const nothing = report([result('a', 'not-exercised')], null, { readable: 0, unreadable });
    expect(conformOutcome(nothing).firstLine).toBe(
      "bcsim conform: nothing was exercised: more of the server's datagrams were unreadable than readable: 0 readable, unreadable 150000 (150000 from 127.0.0.1:1); first: 9dd3 (offset 1: cut short)",
    );
    const failed = report([result('a', 'fail')], null, { readable: 2012, unreadable });
    expect(conformOutcome(failed)).toEqual({ ok: false, firstLine: `bcsim conform: 1 case failed; and ${garbage}` });
    // As many readable as not: nothing to say first.
    expect(conformOutcome(report([result('a', 'pass')], null, { readable: 150_000, unreadable })).firstLine).toBeNull();
  });
});

describe("a session's end, from the server's messages", () => {
  const data = (type: number, payload: number[]) =>
    ({
      type,
      reliable: true,
      ordered: true,
      fragment: false,
      seq: 1,
      fragIndex: null,
      fragCount: null,
      payload: Uint8Array.from(payload),
      offset: 2,
      size: 5 + payload.length,
    }) as never;

  it('a transport Boot naming our slot, a BootPlayer, or a Disconnect; not a Boot of another slot', () => {
    expect(sessionEndOf(3, { timeMs: 10, message: data(TYPE_BOOT, [3]) })?.how).toBe('boot');
    expect(sessionEndOf(3, { timeMs: 10, message: data(TYPE_BOOT, [4]) })).toBeNull();
    expect(sessionEndOf(3, { timeMs: 10, message: data(TYPE_GAME, [0x04, 2]) })?.detail).toBe(
      'a game BootPlayer (opcode 0x04, reason 2)',
    );
    expect(sessionEndOf(3, { timeMs: 10, message: data(0x05, [3, 127, 0, 0, 1]) })?.how).toBe('disconnect');
  });
});

describe('planted wire bugs of bcsim peer server', () => {
  it('own-seq-low-byte sends seq 0x0102 as 0x0002, and ACKs as they are', () => {
    const out = decodeDatagram(ownSeqLowByte(bc(1, [reliable(0x0102), ack(0x0304)])));
    expect(out.ok && out.datagram.messages.map((m) => m.seq)).toEqual([0x0002, 0x0304]);
  });

  it('fragment-ack-ends-datagram reads nothing after the first fragment ACK', () => {
    const out = decodeDatagram(cutAfterFragmentAck(bc(1, [ack(1), fragAck(2, 1), reliable(3)])));
    expect(out.ok && out.datagram.messages.map((m) => m.seq)).toEqual([1, 2]);
    const whole = bc(1, [ack(1), reliable(3)]);
    expect(cutAfterFragmentAck(whole)).toBe(whole);
  });
});
