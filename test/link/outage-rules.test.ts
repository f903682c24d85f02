import { describe, expect, it } from 'vitest';
import { decodeDatagram, encodeDatagram } from '../../src/core/codec/index.js';
import type { Message } from '../../src/core/codec/index.js';
import { micros } from '../../src/core/engine/index.js';
import type { DropRule, MessageMatch } from '../../src/model/link/config.js';
import { messageMatches } from '../../src/model/link/drop-rules.js';
import { CountingStreams, ack, binomialTolerance, datagram, game, harness, linkConfig } from './helpers.js';

function rule(scope: DropRule['scope'], match: MessageMatch, extra: Partial<DropRule> = {}): DropRule {
  return { scope, match, firstN: null, probability: 1, fromMs: null, untilMs: null, ...extra };
}

function decoded(bytes: Uint8Array) {
  const result = decodeDatagram(bytes);
  if (!result.ok) throw new Error(result.error.reason);
  return result.datagram;
}

/** Fields a rule can see, without the decoder's offset/size. */
function strip(m: Message): Message {
  if (m.type === 0x01) return { type: 0x01, seq: m.seq, flags: m.flags, fragIndex: m.fragIndex };
  const { offset: _o, size: _s, ...rest } = m as Message & { offset?: number; size?: number };
  return rest as Message;
}

describe('outage windows', () => {
  it('drops exactly what is sent within [startMs, endMs) and delivers the rest', () => {
    const h = harness(
      linkConfig({
        outages: [
          { startMs: 100, endMs: 200 },
          { startMs: 250, endMs: 250.5 },
        ],
      }),
    );
    for (let i = 0; i < 300; i++) h.sim.at(micros(i * 1_000), () => h.link.send(datagram([game(i)]), [i]));
    h.sim.runUntilIdle();
    const dropped = h.drops.map((d) => d.uids[0]);
    expect(dropped).toEqual([...Array.from({ length: 100 }, (_, i) => 100 + i), 250]);
    expect(h.drops.every((d) => d.cause === 'outage')).toBe(true);
    expect(h.link.counters.droppedBy.outage).toBe(101);
    expect(h.link.counters.delivered).toBe(199);
    expect(h.arrivals.map((a) => a.uids[0])).toContain(99);
    expect(h.arrivals.map((a) => a.uids[0])).toContain(200);
  });
});

describe('drop rules', () => {
  it('"every ACK with the fragment flag" cuts exactly those ACKs and re-encodes the datagram', () => {
    const h = harness(linkConfig({ dropRules: [rule('message', { type: 'ack', fragment: true })] }));
    const mixed: Message[] = [ack(1), ack(2, 0x01, 3), game(7), ack(3, 0x03, 0)];
    const mixedBytes = datagram(mixed, 5);
    const onlyFragAcks = datagram([ack(4, 0x01, 0), ack(5, 0x01, 1)]);
    const noFragAcks = datagram([ack(6), ack(9, 0x02), game(8)]);
    h.link.send(mixedBytes, [10, 11, 12, 13]);
    h.link.send(onlyFragAcks, [20, 21]);
    h.link.send(noFragAcks, [30, 31, 32]);
    h.sim.runUntilIdle();

    const k = h.link.counters;
    expect(k.messagesDropped).toBe(2);
    expect(k.droppedBy.rule).toBe(1);
    expect(h.drops).toEqual([{ atUs: 0, uids: [20, 21], cause: 'rule' }]);
    expect(h.arrivals).toHaveLength(2);

    const [rewritten, untouched] = h.arrivals;
    const d = decoded(rewritten.bytes);
    expect(d.peerId).toBe(5);
    expect(d.messageCount).toBe(2);
    expect(rewritten.bytes[1]).toBe(2); // msg_count on the wire
    expect(d.messages.map(strip)).toEqual([strip(mixed[0]), strip(mixed[2])]);
    expect(rewritten.uids).toEqual([10, 12]);
    expect(rewritten.bytes.length).toBe(mixedBytes.length - 5 - 5); // two 5-byte fragment ACKs gone
    const reference = encodeDatagram({ peerId: 5, messages: [mixed[0], mixed[2]] });
    expect(reference.ok && Array.from(reference.bytes)).toEqual(Array.from(rewritten.bytes));
    expect(h.rewrites).toHaveLength(1);
    expect(h.rewrites[0].before).toBe(mixedBytes);
    expect(h.rewrites[0].after).toBe(rewritten.bytes);
    expect(h.rewrites[0].removedIndexes).toEqual([1, 3]);

    // A datagram with nothing to cut passes as the very same object.
    expect(untouched.bytes).toBe(noFragAcks);
    expect(untouched.uids).toEqual([30, 31, 32]);
  });

  it('"the first 2 transmissions of seq 5" drops exactly those two datagrams', () => {
    const h = harness(linkConfig({ dropRules: [rule('datagram', { type: 'game', seq: 5 }, { firstN: 2 })] }));
    const sends: Array<[Message[], number]> = [
      [[game(4)], 1],
      [[game(5)], 2], // 1st transmission: dropped
      [[ack(5)], 3], // an ACK for seq 5 is not a game message
      [[ack(1), game(5)], 4], // 2nd transmission, inside a bigger datagram: dropped whole
      [[game(6)], 5],
      [[game(5)], 6], // 3rd transmission: through
      [[game(5)], 7],
    ];
    for (const [messages, uid] of sends)
      h.link.send(
        datagram(messages),
        messages.map(() => uid),
      );
    h.sim.runUntilIdle();
    expect(h.drops.map((d) => d.uids[0])).toEqual([2, 4]);
    expect(h.drops.every((d) => d.cause === 'rule')).toBe(true);
    expect(h.link.counters.droppedBy.rule).toBe(2);
    expect(h.arrivals.map((a) => a.uids[0])).toEqual([1, 3, 5, 6, 7]);
  });

  it('applies only within [fromMs, untilMs)', () => {
    const h = harness(linkConfig({ dropRules: [rule('datagram', { type: 0x32 }, { fromMs: 10, untilMs: 20 })] }));
    for (const tMs of [5, 10, 15, 19.999, 20, 25])
      h.sim.at(micros(tMs * 1_000), () => h.link.send(datagram([game(1)]), [tMs]));
    h.sim.runUntilIdle();
    expect(h.drops.map((d) => d.uids[0])).toEqual([10, 15, 19.999]);
    expect(h.link.counters.droppedBy.rule).toBe(3);
  });

  it('a probabilistic message rule cuts a fraction p of matches, one draw per match', () => {
    const p = 0.3;
    const n = 20_000;
    const streams = new CountingStreams(4);
    const h = harness(linkConfig({ dropRules: [rule('message', { type: 'ack', seq: 1 }, { probability: p })] }), {
      streams,
    });
    const bytes = datagram([ack(1), ack(2)]);
    for (let i = 0; i < n; i++) h.link.send(bytes, [2 * i, 2 * i + 1]);
    h.sim.runUntilIdle();
    const k = h.link.counters;
    expect(k.messagesDropped).toBeGreaterThan(0);
    expect(Math.abs(k.messagesDropped / n - p)).toBeLessThan(binomialTolerance(p, n));
    expect(k.dropped).toBe(0);
    expect(streams.draws.get('c2s.rules')).toBe(n);
    for (const a of h.arrivals) {
      if (a.uids.length === 1) expect(a.uids[0] % 2).toBe(1); // the ack(2) survived
    }
  });

  it('firstN counts matches, so with p < 1 only the first N matches are candidates', () => {
    const h = harness(linkConfig({ dropRules: [rule('datagram', { seq: 9 }, { firstN: 100, probability: 0.5 })] }));
    for (let i = 0; i < 1_000; i++) h.link.send(datagram([game(9)]), [i]);
    h.sim.runUntilIdle();
    const dropped = h.drops.map((d) => d.uids[0]);
    expect(dropped.length).toBeGreaterThan(0);
    expect(dropped.length).toBeLessThan(100);
    expect(Math.max(...dropped)).toBeLessThan(100);
  });

  it('undecodable datagrams match nothing and pass untouched', () => {
    const h = harness(linkConfig({ dropRules: [rule('datagram', {})] }));
    const junk = new Uint8Array([2, 3, 0xff]);
    h.link.send(junk, []);
    h.sim.runUntilIdle();
    expect(h.arrivals[0].bytes).toBe(junk);
    expect(h.link.counters.dropped).toBe(0);
  });
});

describe('messageMatches', () => {
  const fragGame: Message = {
    type: 0x32,
    reliable: true,
    ordered: true,
    fragment: true,
    seq: 3,
    fragIndex: 0,
    fragCount: 2,
    payload: new Uint8Array(1),
  };
  const connect: Message = {
    type: 0x02,
    reliable: true,
    ordered: false,
    fragment: false,
    seq: 0,
    fragIndex: null,
    fragCount: null,
    payload: new Uint8Array(1),
  };
  const unreliable: Message = {
    type: 0x32,
    reliable: false,
    ordered: false,
    fragment: false,
    seq: null,
    fragIndex: null,
    fragCount: null,
    payload: new Uint8Array(1),
  };

  it.each<[string, MessageMatch, Message, boolean]>([
    ['type name', { type: 'ack' }, ack(1), true],
    ['type byte', { type: 1 }, ack(1), true],
    ['type mismatch', { type: 'game' }, ack(1), false],
    ['ack fragment flag', { fragment: true }, ack(1, 0x01, 4), true],
    ['ack fragIndex', { fragIndex: 4 }, ack(1, 0x01, 4), true],
    ['ack lowType flag', { lowType: true }, ack(1, 0x02), true],
    ['ack lowType clear', { lowType: true }, ack(1, 0x01, 0), false],
    ['ack is never reliable', { reliable: true }, ack(1), false],
    ['ack reliable:false', { reliable: false }, ack(1), true],
    ['data lowType below 0x32', { lowType: true }, connect, true],
    ['game is not lowType', { lowType: true }, fragGame, false],
    ['game fragment', { type: 'game', fragment: true, fragIndex: 0 }, fragGame, true],
    ['connect by name', { type: 'connect', seq: 0 }, connect, true],
    ['unreliable has no seq', { seq: 0 }, unreliable, false],
    ['empty match', {}, unreliable, true],
  ])('%s', (_label, match, message, expected) => {
    expect(messageMatches(match, message)).toBe(expected);
  });
});
