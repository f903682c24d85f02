// `bcsim trace`: the golden trace of the fragment-ACK bug, JSON Lines, filters.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseFilter, matches } from '../../src/model/trace/filter.js';
import { cli } from '../support/cli.js';

describe('trace of fragment-ack-bug (stock, first 20 s)', () => {
  it('is byte-identical to the committed golden file', async () => {
    const r = await cli(['trace', 'fragment-ack-bug', '--mode', 'stock', '--until', '20s']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(readFileSync('test/golden/fragment-ack-bug.stock.20s.trace', 'utf8'));
  });

  it('shows the bug-report shape: 3 fragments A1/A1/A0, three 5-byte fragment ACKs, all 3 re-sent every ~2 s', async () => {
    const r = await cli([
      'trace',
      'fragment-ack-bug',
      '--until',
      '20s',
      '--json',
      '--peer',
      'client',
      '--filter',
      'event=send,seq=2,fragment,type=game',
    ]);
    const sends = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const frags = sends.flatMap((e: { t: number; hex: string; messages: Array<Record<string, unknown>> }) =>
      e.messages
        .filter((m) => m.type === 0x32 && m.fragment)
        .map((m) => ({
          t: e.t,
          index: m.fragIndex as number,
          high: parseInt(e.hex.slice(((m.offset as number) + 2) * 2, ((m.offset as number) + 3) * 2), 16),
          note: m.note,
        })),
    );
    expect(frags.slice(0, 3).map((f) => [f.index, f.high, f.note])).toEqual([
      [0, 0xa1, 'first-send'],
      [1, 0xa1, 'first-send'],
      [2, 0xa0, 'first-send'],
    ]);
    const rounds = frags.slice(3).reduce<number[][]>((acc, f, i, all) => {
      if (i === 0 || f.t - all[i - 1].t > 1) acc.push([]);
      acc[acc.length - 1].push(f.index);
      return acc;
    }, []);
    expect(rounds.length).toBeGreaterThanOrEqual(8);
    for (const round of rounds) expect(round).toEqual([0, 1, 2]);
    expect(frags.slice(3).every((f) => f.note === 'retransmit')).toBe(true);

    const server = await cli([
      'trace',
      'fragment-ack-bug',
      '--until',
      '3s',
      '--json',
      '--peer',
      'server',
      '--filter',
      'event=send,type=ack,seq=2,fragment',
    ]);
    const acks = server.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .flatMap((e) =>
        e.messages.filter(
          (m: { type: number; seq: number; fragment: boolean }) => m.type === 1 && m.seq === 2 && m.fragment,
        ),
      )
      .slice(0, 3);
    expect(acks.map((a: { size: number; fragIndex: number; flags: number }) => [a.size, a.fragIndex, a.flags])).toEqual(
      [
        [5, 0, 1],
        [5, 1, 1],
        [5, 2, 1],
      ],
    );
  });

  it('marks ACK misses, duplicates and dead-zone ACKs', async () => {
    const r = await cli(['trace', 'fragment-ack-bug', '--until', '10s']);
    expect(r.stdout).toContain('NO MATCH: the fragment entry is queued but the matcher rejects it');
    expect(r.stdout).toContain('DUPLICATE    game reliable+fragment seq=2');
    expect(r.stdout).toContain('[DEAD-ZONE ACK, pass 2]');
    expect(r.stdout).toContain('[RETRANSMIT #1]');
  });

  it('marks link drops', async () => {
    const r = await cli([
      'trace',
      'fragment-ack-bug',
      '--until',
      '30s',
      '--set',
      'link.both.loss=0.3',
      '--filter',
      'event=drop',
    ]);
    expect(r.stdout).toMatch(/DROP\(loss\)/);
    expect(r.stdout.split('\n').filter((l) => l.includes('DROP(')).length).toBeGreaterThan(3);
  });

  it('--from/--until bound the window and --peer keeps one side', async () => {
    const r = await cli(['trace', 'fragment-ack-bug', '--from', '4s', '--until', '6s', '--json', '--peer', 'server']);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) {
      expect(e.t).toBeGreaterThanOrEqual(4);
      expect(e.t).toBeLessThanOrEqual(6);
      expect(e.from ?? e.at ?? e.to ?? e.role).toBe('server');
    }
  });

  it('rejects bad flags with one line and exit 2', async () => {
    for (const [flags, message] of [
      [['--filter', 'colour=red'], /--filter: "colour=red": unknown field "colour"/],
      [['--filter', 'seq=70000'], /--filter: "seq=70000": expected a whole number 0..65535/],
      [['--filter', 'type=bogus'], /--filter: "type=bogus": type is one of/],
      [['--peer', 'both'], /--peer: expected server or client, got "both"/],
      [['--from', '10s', '--until', '5s'], /--until: must not be before --from/],
    ] as Array<[string[], RegExp]>) {
      const r = await cli(['trace', 'fragment-ack-bug', ...flags]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});

describe('filter expressions', () => {
  const send = (messages: object[], notes: number[]) =>
    ({
      kind: 'send',
      timeUs: 0,
      from: 'client',
      bytes: new Uint8Array(),
      messages,
      notes,
      transmission: notes.map(() => 0),
    }) as never;
  const frag = {
    type: 0x32,
    reliable: true,
    ordered: false,
    fragment: true,
    seq: 2,
    fragIndex: 1,
    fragCount: null,
    payload: new Uint8Array(),
    offset: 2,
    size: 6,
  };
  const ack = { type: 1, seq: 2, flags: 1, fragIndex: 1, offset: 8, size: 5 };

  it('needs every term to hold for one message', () => {
    expect(matches(parseFilter('seq=2,fragment'), send([frag], [0]))).toBe(true);
    expect(matches(parseFilter('type=ack fragment frag=1'), send([frag, ack], [0, 2]))).toBe(true);
    expect(matches(parseFilter('type=ack,reliable'), send([frag, ack], [0, 2]))).toBe(false);
    expect(matches(parseFilter('retransmit'), send([frag], [1]))).toBe(true);
    expect(matches(parseFilter('!retransmit'), send([frag], [1]))).toBe(false);
    expect(matches(parseFilter('event=drop'), send([frag], [0]))).toBe(false);
  });
});
