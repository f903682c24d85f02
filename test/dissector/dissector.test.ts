// The Wireshark dissector dissector/bcsim.lua, run for real in tshark.
// Captures are built with text2pcap from `bcsim trace --json`
// lines (AlbyRules-encrypted with bcsim's codec, or left plaintext), and every
// field tshark shows for every message is compared with bcsim's own decode of
// the same datagram. Never skipped: without tshark every test fails and says so.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  decodeDatagram,
  decodeResultToJson,
  decrypt,
  encodeDatagram,
  encrypt,
  parseHex,
} from '../../src/core/codec/index.js';
import type { AckJson, DataJson, Message } from '../../src/core/codec/index.js';
import { DEAD_ZONE_MARK, RETRANSMIT_MARK } from '../../src/model/trace/index.js';
import { cli } from '../support/cli.js';
import { checkFrame } from './expect-frame.js';
import type { Mark, TraceSend } from './expect-frame.js';
import {
  BCSIM_ADDRESSING,
  DISSECTOR,
  UNREGISTERED_ADDRESSING,
  dataSources,
  dissect,
  matchFrames,
  requireWireshark,
  tshark,
  writeCapture,
} from './tshark.js';
import type { Addressing, Frame, TsharkOptions, WirePacket } from './tshark.js';

async function traceSends(args: string[]): Promise<TraceSend[]> {
  const r = await cli(['trace', ...args, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { event: string })
    .filter((e): e is TraceSend => e.event === 'send');
}

function packetsOf(sends: readonly TraceSend[], encrypted: boolean): WirePacket[] {
  return sends.map((s) => {
    const parsed = parseHex(s.hex);
    if (!parsed.ok) throw new Error(`trace hex: ${parsed.reason}`);
    return {
      t: s.t,
      fromServer: s.from === 'server',
      client: s.client,
      bytes: encrypted ? encrypt(parsed.bytes) : parsed.bytes,
    };
  });
}

/** The stock two-pass ACK-outbox frees an entry at its 9th send; sends 4 to 9 are pass 2's. */
const ACK_FREE_AT = 9;
const ACK_PASS_ONE = 3;

/**
 * The marks the dissector must set, from bcsim's own notes for data messages
 * (a `retransmit` note, with `transmission` earlier sends, first sent at the
 * `first-send` of the same sender, category, seq and fragment) and, for ACKs,
 * from the rule the dissector documents: the sends of the same ACK (seq, flags,
 * fragment index) by the same sender since the message it acknowledges was
 * first sent, and, counted per stock entry (freed at its 9th send), its 4th to
 * 9th sends as dead-zone ones.
 */
function expectedMarks(sends: readonly TraceSend[], frames: readonly Frame[]): Array<Array<Mark | undefined>> {
  const firstData = new Map<string, number>();
  const acks = new Map<string, { first: number; sends: number }>();
  return sends.map((s, i) => {
    const frame = frames[i].number;
    const other = s.from === 'server' ? 'client' : 'server';
    return s.messages.map((m): Mark | undefined => {
      if (m.type === 1) {
        const ack = m as AckJson;
        const key = `${s.client}|${s.from}|${ack.seq}|${ack.flags}|${ack.fragIndex ?? '-'}`;
        const seen = acks.get(key) ?? { first: frame, sends: 0 };
        acks.set(key, seen);
        seen.sends++;
        const deadZone = (seen.sends - 1) % ACK_FREE_AT >= ACK_PASS_ONE;
        return { kind: 'ack', first: seen.first, sends: seen.sends, deadZone };
      }
      const data = m as DataJson;
      if (!data.reliable) return undefined;
      const low = data.type < 0x32;
      const key = `${s.client}|${s.from}|${low ? 'low' : 'high'}|${data.seq}|${data.fragIndex ?? '-'}`;
      if (m.note === 'retransmit') {
        const first = firstData.get(key);
        if (first === undefined) throw new Error(`trace: retransmit of ${key} before its first send`);
        return { kind: data.fragment ? 'fragment' : 'reliable', first, number: m.transmission };
      }
      firstData.set(key, frame);
      for (const flags of low ? [2, 3] : [0, 1]) {
        acks.delete(`${s.client}|${other}|${data.seq}|${flags}|-`);
        acks.delete(`${s.client}|${other}|${data.seq}|${flags}|${data.fragIndex ?? '-'}`);
      }
      return undefined;
    });
  });
}

/** Every frame of a trace capture against bcsim's decode; returns the marks for further checks. */
function checkCapture(
  sends: readonly TraceSend[],
  packets: readonly WirePacket[],
  frames: readonly Frame[],
  reading: 'encrypted' | 'plaintext',
  addressing: Addressing = BCSIM_ADDRESSING,
): Array<Array<Mark | undefined>> {
  expect(frames.length).toBe(sends.length);
  const matched = matchFrames(frames, packets, addressing);
  const marks = expectedMarks(sends, matched);
  sends.forEach((s, i) => {
    const plain = reading === 'encrypted' ? decrypt(packets[i].bytes) : packets[i].bytes;
    // bcsim's decode of the datagram is what the trace printed (the trace adds note and transmission).
    expect(matched[i].payload, `frame ${matched[i].number}: the captured payload`).toEqual(packets[i].bytes);
    const decoded = decodeResultToJson(plain, decodeDatagram(plain));
    expect(decoded.messages).toEqual(s.messages.map(({ note: _n, transmission: _t, ...m }) => m));
    checkFrame(matched[i], packets[i].bytes, plain, reading, marks[i]);
    // One vocabulary with the trace: exactly its retransmits are retransmits, exactly
    // its dead-zone (pass 2) ACKs are dead-zone ACKs, and an ACK is never a retransmit.
    s.messages.forEach((m, k) => {
      const mark = marks[i][k];
      const at = `frame ${matched[i].number} message ${k + 1}`;
      expect(mark !== undefined && mark.kind !== 'ack', at).toBe(m.note === 'retransmit');
      expect(mark?.kind === 'ack' && mark.deadZone, at).toBe(m.note === 'dead-zone-ack');
    });
  });
  return marks;
}

/**
 * The full check on a capture of the stock fragment-ack-bug run: every
 * datagram decodes, no malformed packet, fields equal bcsim's decode, the 3
 * fragments carry 0xA1/0xA1/0xA0, and the retransmissions are flagged.
 */
function checkStockCapture(
  sends: readonly TraceSend[],
  packets: readonly WirePacket[],
  frames: readonly Frame[],
): void {
  const marks = checkCapture(sends, packets, frames, 'encrypted');
  const matched = matchFrames(frames, packets);
  for (const frame of frames) expect(frame.raw, `frame ${frame.number}`).not.toContain('_ws.malformed');

  // The 3 fragments of the round-2 checksum response: flags 0xA1, 0xA1, 0xA0.
  const firstFragments = sends.flatMap((s, i) =>
    s.messages.flatMap((m, k) =>
      m.type === 0x32 && (m as DataJson).fragment && m.note === 'first-send' ? [matched[i].bc!.messages[k]] : [],
    ),
  );
  expect(firstFragments.map((n) => n.fields['bc.flags_len'][0].slice(0, 4))).toEqual(['0xa1', '0xa1', '0xa0']);
  expect(firstFragments.map((n) => n.fields['bc.frag_index'][0])).toEqual(['0', '1', '2']);

  // The retransmits are flagged: exactly as many as bcsim made, fragments and others; ACK repeats apart.
  const flagged = (kind: Mark['kind']): number =>
    marks.flat().filter((m) => m?.kind === kind && (m.kind !== 'ack' || m.sends > 1)).length;
  const retransmits = sends.flatMap((s) => s.messages.filter((m) => m.note === 'retransmit'));
  expect(retransmits.length).toBeGreaterThanOrEqual(50);
  expect(flagged('fragment')).toBe(retransmits.filter((m) => (m as DataJson).fragment).length);
  expect(flagged('reliable')).toBe(retransmits.filter((m) => !(m as DataJson).fragment).length);
  expect(flagged('ack')).toBeGreaterThan(0);
  const experts = frames.flatMap((f) => f.bc!.messages.flatMap((n) => n.experts.map((e) => e.field)));
  expect(experts.filter((e) => e === 'bc.fragment_retransmission').length).toBe(flagged('fragment'));
  const deadZone = marks.flat().filter((m) => m?.kind === 'ack' && m.deadZone).length;
  expect(deadZone).toBeGreaterThan(0);
  expect(experts.filter((e) => e === 'bc.ack_dead_zone').length).toBe(deadZone);
  expect(experts.filter((e) => e === 'bc.ack_repeat').length).toBe(flagged('ack') - deadZone);
}

let work: string;
let options: TsharkOptions;
let wireshark: { version: string; lua: string };

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'bcsim-dissector-'));
  options = { home: join(work, 'home') };
});

// Each test checks for tshark itself, so that without it every test fails with
// the reason (a failing beforeAll would report the tests as skipped).
beforeEach(() => {
  wireshark = requireWireshark();
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the Wireshark dissector in tshark', () => {
  it('`bcsim run fragment-ack-bug --mode stock --pcap` (120 s, encrypted) decodes exactly as bcsim decodes it', async () => {
    const file = join(work, 'run-stock.pcapng');
    const run = await cli(['run', 'fragment-ack-bug', '--mode', 'stock', '--seed', '1', '--pcap', file]);
    expect(run.code, run.stderr).toBe(0);
    const sends = await traceSends(['fragment-ack-bug', '--mode', 'stock', '--seed', '1']);
    checkStockCapture(sends, packetsOf(sends, true), dissect(file, options));
  });

  it('the same run captured with text2pcap from `bcsim trace --json` (independent of the pcapng export)', async () => {
    const sends = await traceSends(['fragment-ack-bug', '--mode', 'stock', '--seed', '1', '--until', '120s']);
    const packets = packetsOf(sends, true);
    checkStockCapture(sends, packets, dissect(writeCapture(work, 'fragment-ack-bug', packets), options));
  });

  it('two-pass dissection (-2) shows the same fields and marks as one pass', async () => {
    const sends = await traceSends(['fragment-ack-bug', '--mode', 'stock', '--until', '30s']);
    const file = writeCapture(work, 'two-pass', packetsOf(sends, true));
    const one = dissect(file, options).map((f) => f.bc);
    const two = dissect(file, { ...options, twoPass: true }).map((f) => f.bc);
    expect(two).toEqual(one);
    expect(one.flatMap((bc) => bc!.messages).filter((n) => n.fields['bc.retransmit']).length).toBeGreaterThan(0);
    expect(one.flatMap((bc) => bc!.messages).filter((n) => n.fields['bc.ack.repeat']).length).toBeGreaterThan(0);
  });

  it("the Info column speaks the trace's words: [RETRANSMIT #n] on data, ACK REPEAT or DEAD-ZONE ACK on ACKs", async () => {
    const sends = await traceSends(['fragment-ack-bug', '--mode', 'stock', '--until', '60s']);
    const packets = packetsOf(sends, true);
    const file = writeCapture(work, 'info', packets);
    const frames = matchFrames(dissect(file, options), packets);
    const rows = tshark(file, ['-T', 'fields', '-e', 'frame.number', '-e', '_ws.col.Info'], options).trim().split('\n');
    const info = new Map(rows.map((row) => [Number(row.split('\t')[0]), row.split('\t')[1]]));
    sends.forEach((s, i) => {
      const text = info.get(frames[i].number) ?? '';
      const expected = s.messages.flatMap((m) =>
        m.note === 'retransmit'
          ? [`${RETRANSMIT_MARK}${m.transmission}]`]
          : m.note === 'dead-zone-ack'
            ? [DEAD_ZONE_MARK]
            : [],
      );
      expect(text.match(/ \[(RETRANSMIT #\d+|DEAD-ZONE ACK, pass 2)\]/g) ?? [], text).toEqual(expected);
    });
    const texts = [...info.values()];
    expect(texts.filter((t) => / \[DEAD-ZONE ACK, pass 2\]/.test(t)).length).toBeGreaterThan(0);
    // Pass 1's repeats are ACK repeats; an ACK is never called a retransmit.
    expect(texts.filter((t) => /ack seq=\d+[^,]* \[ACK REPEAT, send [23]\]/.test(t)).length).toBeGreaterThan(0);
    expect(texts.filter((t) => /ack seq=[^,]*\[RETRANSMIT/.test(t))).toEqual([]);
  });

  it('a plaintext capture (`bcsim run --pcap --pcap-plaintext`) decodes, shown as the plaintext reading', async () => {
    const file = join(work, 'run-plain.pcapng');
    const run = await cli(['run', 'fragment-ack-bug', '--mode', 'stock', '--pcap', file, '--pcap-plaintext']);
    expect(run.code, run.stderr).toBe(0);
    const sends = await traceSends(['fragment-ack-bug', '--mode', 'stock']);
    checkCapture(sends, packetsOf(sends, false), dissect(file, options), 'plaintext');
  });

  it('the reading preference forces decryption: -o bc.reading:Encrypted on a plaintext capture', async () => {
    const sends = await traceSends(['fragment-ack-bug', '--mode', 'stock', '--until', '5s']);
    const file = writeCapture(work, 'forced', packetsOf(sends, false));
    const frames = dissect(file, { ...options, prefs: ['bc.reading:Encrypted'] });
    expect(frames.map((f) => f.bc!.fields['bc.reading'][0])).toEqual(frames.map(() => 'encrypted'));
    expect(frames.map((f) => f.bc!.fields['bc.other_reading_parses'][0])).toEqual(frames.map(() => '1'));
  });

  it('three clients (valentines): retransmissions are tracked per sender, each connection its own', async () => {
    const sends = await traceSends(['valentines', '--mode', 'stock', '--until', '20s']);
    expect(new Set(sends.map((s) => s.client))).toEqual(new Set([1, 2, 3]));
    const packets = packetsOf(sends, true);
    const frames = dissect(writeCapture(work, 'valentines', packets), options);
    const marks = checkCapture(sends, packets, frames, 'encrypted');
    // Every client re-sends its own 3 fragments of seq 2: the same seq on three connections.
    for (const client of [1, 2, 3]) {
      const fragmentMarks = sends.flatMap((s, i) =>
        s.client === client ? marks[i].filter((m) => m?.kind === 'fragment') : [],
      );
      expect(fragmentMarks.length, `client ${client}`).toBeGreaterThan(0);
    }
  });

  it('retransmission marks: per category, per fragment, and a seq used again for a new message (after a wrap) is new', () => {
    const game = (seq: number, payload: number[], fragment?: [number, number | null]): Message => ({
      type: 0x32,
      reliable: true,
      ordered: false,
      fragment: fragment !== undefined,
      seq,
      fragIndex: fragment ? fragment[0] : null,
      fragCount: fragment ? fragment[1] : null,
      payload: Uint8Array.from(payload),
    });
    const ack = (seq: number, flags: number, fragIndex: number | null = null): Message => ({
      type: 0x01,
      seq,
      flags,
      fragIndex,
    });
    const keepalive: Message = {
      type: 0x00,
      reliable: true,
      ordered: true,
      fragment: false,
      seq: 5,
      fragIndex: null,
      fragCount: null,
      payload: Uint8Array.of(2),
    };
    const script: Array<[fromServer: boolean, messages: Message[], marks: Array<Mark | undefined>]> = [
      [false, [game(5, [0x07, 1])], []], // 1
      [true, [ack(5, 0)], []], // 2
      [true, [ack(5, 0)], [{ kind: 'ack', first: 2, sends: 2, deadZone: false }]], // 3: the same ACK again
      [false, [keepalive], []], // 4: seq 5 of the low category is another message
      [true, [ack(5, 2)], []], // 5: so is its ACK
      [false, [game(5, [0x07, 2])], []], // 6: seq 5 again with another payload: a new message (after a u16 wrap)
      [true, [ack(5, 0)], []], // 7: a new ACK, not a re-send of frame 2's
      [
        false,
        [game(5, [0x07, 2]), keepalive],
        [
          { kind: 'reliable', first: 6, number: 1 },
          { kind: 'reliable', first: 4, number: 1 },
        ],
      ], // 8
      [
        true,
        [ack(5, 0), ack(5, 2)],
        [
          { kind: 'ack', first: 7, sends: 2, deadZone: false },
          { kind: 'ack', first: 5, sends: 2, deadZone: false },
        ],
      ], // 9
      [false, [game(6, [0x21, 1], [0, 2]), game(6, [2], [1, null])], []], // 10: two fragments of seq 6
      [true, [ack(6, 1, 0), ack(6, 1, 1)], []], // 11
      [false, [game(6, [2], [1, null])], [{ kind: 'fragment', first: 10, number: 1 }]], // 12: fragment 1 again
      [
        true,
        [ack(6, 1, 1), ack(6, 1, 0)],
        [
          { kind: 'ack', first: 11, sends: 2, deadZone: false },
          { kind: 'ack', first: 11, sends: 2, deadZone: false },
        ],
      ], // 13
      [false, [game(6, [0x21, 1], [0, 2])], [{ kind: 'fragment', first: 10, number: 1 }]], // 14
      [false, [game(6, [2], [1, null])], [{ kind: 'fragment', first: 10, number: 2 }]], // 15
      // 16-25: one ACK sent 10 times: pass 1's 3 sends, pass 2's 4th to 9th (dead zone), then a new entry's first.
      ...Array.from({ length: 10 }, (_, k): [boolean, Message[], Array<Mark | undefined>] => [
        true,
        [ack(7, 0)],
        [{ kind: 'ack', first: 16, sends: k + 1, deadZone: k >= 3 && k < 9 }],
      ]),
    ];
    const plains = script.map(([fromServer, messages]) => {
      const encoded = encodeDatagram({ peerId: fromServer ? 1 : 2, messages });
      if (!encoded.ok) throw new Error(encoded.error.reason);
      return encoded.bytes;
    });
    const packets = plains.map((plain, i) => ({
      t: i / 10,
      fromServer: script[i][0],
      client: 1,
      bytes: encrypt(plain),
    }));
    const frames = dissect(writeCapture(work, 'marks', packets), options);
    expect(frames.length).toBe(script.length);
    script.forEach(([, , marks], i) => checkFrame(frames[i], packets[i].bytes, plains[i], 'encrypted', marks));
    // Another conversation (a second client) has marks of its own: its first seq 5 is new.
    const other = dissect(
      writeCapture(work, 'marks-two', [...packets.slice(0, 2), { ...packets[0], t: 0.5, client: 2 }]),
      options,
    );
    expect(other.map((f) => f.bc!.messages[0].fields['bc.retransmit'])).toEqual([undefined, undefined, undefined]);
    expect(other.map((f) => f.bc!.messages[0].fields['bc.ack.sends'])).toEqual([undefined, ['1'], undefined]);
  });

  it('AlbyRules vectors: the "Decrypted BC" data source holds the plaintext, with every XOR implementation this Lua has', () => {
    const vectors = [
      ['01 00 00 00 00 00', '01 D6 FE 17 F1 86'],
      ['01 01 01 02 00 02', '01 D7 31 78 DB 58'],
      ['02 01 32 07 80 05 00 2A 20', '02 D7 02 D4 22 78 8A B6 03'],
    ].map(([plain, wire]) => ({ plain: hexBytes(plain), wire: hexBytes(wire) }));
    for (const v of vectors) expect(encrypt(v.plain)).toEqual(v.wire);
    const file = writeCapture(
      work,
      'vectors',
      vectors.map((v, i) => ({ t: i / 10, fromServer: v.plain[0] === 1, client: 1, bytes: v.wire })),
    );
    const lua53 = Number(wireshark.lua.split('.')[1]) >= 3 || Number(wireshark.lua.split('.')[0]) > 5;
    const libraries = [[], ['bitlib=bit32'], ['bitlib=bit'], ['bitlib=arith'], ...(lua53 ? [['bitlib=native']] : [])];
    for (const scriptArgs of libraries) {
      const sources = dataSources(file, { ...options, scriptArgs });
      expect(
        sources.map((s) => [...s.keys()]),
        scriptArgs.join(),
      ).toEqual(vectors.map(() => ['Frame', 'Decrypted BC']));
      expect(
        sources.map((s) => s.get('Decrypted BC')),
        scriptArgs.join(),
      ).toEqual(vectors.map((v) => v.plain));
    }
    const frames = dissect(file, options);
    vectors.forEach((v, i) => checkFrame(frames[i], v.wire, v.plain, 'encrypted', []));
  });

  it('on Lua before 5.3, bitlib=native is refused with a clear error instead of a syntax error', () => {
    const file = writeCapture(work, 'native', [
      { t: 0, fromServer: true, client: 1, bytes: hexBytes('01 D7 31 78 DB 58') },
    ]);
    const lua53 = Number(wireshark.lua.split('.')[1]) >= 3;
    if (lua53) {
      expect(dissect(file, { ...options, scriptArgs: ['bitlib=native'] })[0].bc!.fields['bc.ok']).toEqual(['1']);
    } else {
      expect(() => dissect(file, { ...options, scriptArgs: ['bitlib=native'] })).toThrow(
        `bitlib=native is not available in Lua ${wireshark.lua.split('.').slice(0, 2).join('.')}`,
      );
    }
  });

  it("malformed datagrams: expert info with bcsim's offset and reason, what decoded before it, no Lua error", () => {
    const cases = [
      '02', // truncated-header
      '02 02 01 05 00 00', // missing-messages
      '02 01 07 00 00', // unknown-type
      '02 01 01 05 00', // truncated-message: ack
      '02 01 01 05 00 01', // truncated-message: fragment ack
      '02 01 32 05', // truncated-message: header
      '02 01 32 30 80 05 00 2A 20', // length-past-end
      '02 01 32 04 80 05 00', // length-below-header
      '02 01 32 06 A0 05 00 00 03', // length-below-header, fragment 0
      '02 01 00 02 00', // length-below-header, generic type
      '02 01 01 05 00 00 FF', // trailing-bytes
      '01 02 01 05 00 00 32 30 80 05 00', // one ack, then a length past the end
    ].map(hexBytes);
    const codes = new Set(cases.map((plain) => (decodeDatagram(plain) as { error: { code: string } }).error.code));
    expect(codes).toEqual(
      new Set([
        'truncated-header',
        'missing-messages',
        'unknown-type',
        'truncated-message',
        'length-past-end',
        'length-below-header',
        'trailing-bytes',
      ]),
    );
    const packets = cases.map((plain, i) => ({
      t: i / 10,
      fromServer: plain[0] === 1,
      client: 1,
      bytes: encrypt(plain),
    }));
    // Precondition: the wire bytes do not parse as plaintext either, so the automatic reading decrypts.
    for (const p of packets) expect(decodeDatagram(p.bytes).ok).toBe(false);
    const frames = dissect(writeCapture(work, 'malformed', packets), options);
    expect(frames.length).toBe(cases.length);
    cases.forEach((plain, i) => checkFrame(frames[i], packets[i].bytes, plain, 'encrypted', []));
    expect(frames[11].bc!.messages.length).toBe(1);
  });

  it('a malformed datagram in a plaintext conversation is read as plaintext, like the datagrams before it', () => {
    const good = hexBytes('02 01 32 07 80 05 00 2A 20');
    const bad = hexBytes('02 01 32 30 80 05 00 2A 20');
    expect(decodeDatagram(decrypt(bad)).ok).toBe(false);
    const packets = [good, bad].map((bytes, i) => ({ t: i, fromServer: false, client: 1, bytes }));
    const frames = dissect(writeCapture(work, 'plain-malformed', packets), options);
    checkFrame(frames[0], good, good, 'plaintext', []);
    checkFrame(frames[1], bad, bad, 'plaintext', []);
  });

  it('a datagram over 512 bytes decodes on port 22101 with a warning (the heuristic never takes one)', () => {
    const size = 598; // one unreliable game message: flags_len 0x0256
    const plain = Uint8Array.from({ length: size + 2 }, (_, i) => (i * 7) & 0xff);
    plain.set([0x02, 0x01, 0x32, size & 0xff, size >> 8, 0x1c]);
    expect(decodeDatagram(plain).ok).toBe(true);
    const wire = encrypt(plain);
    const frames = dissect(
      writeCapture(work, 'oversize', [{ t: 0, fromServer: false, client: 1, bytes: wire }]),
      options,
    );
    checkFrame(frames[0], wire, plain, 'encrypted', []);
    const elsewhere = dissect(
      writeCapture(
        work,
        'oversize-heuristic',
        [{ t: 0, fromServer: false, client: 1, bytes: wire }],
        UNREGISTERED_ADDRESSING,
      ),
      options,
    );
    expect(elsewhere[0].bc).toBeUndefined();
  });

  it('GameSpy queries on port 22101 (they start with a backslash) are not claimed', () => {
    const queries = ['\\status\\', '\\basic\\', '\\info\\xserverquery\\', '\\echo\\abc'].map((q) =>
      new TextEncoder().encode(q),
    );
    const packets = [...queries, hexBytes('02 D7 02 D4 22 78 8A B6 03')].map((bytes, i) => ({
      t: i,
      fromServer: false,
      client: 1,
      bytes,
    }));
    const frames = dissect(writeCapture(work, 'gamespy', packets), options);
    for (const frame of frames.slice(0, queries.length)) {
      expect(frame.protocols).toBe('eth:ethertype:ip:udp:data');
      expect(frame.bc).toBeUndefined();
    }
    expect(frames[queries.length].bc!.fields['bc.ok']).toEqual(['1']);
  });

  it('heuristic: a BC conversation on other UDP ports is recognised and decoded', async () => {
    const sends = await traceSends(['fragment-ack-bug', '--mode', 'stock', '--until', '10s']);
    const packets = packetsOf(sends, true);
    const frames = dissect(writeCapture(work, 'heuristic', packets, UNREGISTERED_ADDRESSING), options);
    checkCapture(sends, packets, frames, 'encrypted', UNREGISTERED_ADDRESSING);
  });

  it('heuristic: random datagrams that parse in neither reading, and GameSpy queries, are not claimed', () => {
    const random = seedrandom('bcsim-dissector-noise');
    const noise: Uint8Array[] = [];
    const firstBytes = [0x01, 0x02, 0x03, 0xff, 0x5c];
    while (noise.length < 400) {
      const length = 1 + Math.floor(random() * (random() < 0.5 ? 24 : 512));
      const bytes = Uint8Array.from({ length }, () => Math.floor(random() * 256));
      if (random() < 0.8) bytes[0] = firstBytes[Math.floor(random() * firstBytes.length)];
      // Now and then a plausible start: msg_count 1 and a known type, encrypted.
      if (random() < 0.3 && length > 3) {
        bytes[1] = 1;
        bytes[2] = [0x00, 0x01, 0x32][Math.floor(random() * 3)];
        noise.push(encrypt(bytes));
      } else {
        noise.push(bytes);
      }
      const last = noise[noise.length - 1];
      if (decodeDatagram(last).ok || decodeDatagram(decrypt(last)).ok) noise.pop();
    }
    const queries = ['\\status\\', '\\basic\\\\secure\\ABCDEF'].map((q) => new TextEncoder().encode(q));
    const packets = [...noise, ...queries].map((bytes, i) => ({
      t: i / 100,
      fromServer: i % 2 === 0,
      client: 7,
      bytes,
    }));
    const frames = dissect(writeCapture(work, 'noise', packets, UNREGISTERED_ADDRESSING), options);
    expect(frames.length).toBe(packets.length);
    const claimed = frames.filter((f) => f.bc !== undefined || f.protocols.includes(':bc'));
    expect(claimed.map((f) => f.number)).toEqual([]);
  });

  it('installs as a personal plugin: tshark finds it in ~/.local/lib/wireshark/plugins without -X', () => {
    const pluginHome = join(work, 'plugin-home');
    const folder = join(pluginHome, '.local', 'lib', 'wireshark', 'plugins');
    mkdirSync(folder, { recursive: true });
    copyFileSync(DISSECTOR, join(folder, 'bcsim.lua'));
    const file = writeCapture(work, 'plugin', [
      { t: 0, fromServer: false, client: 1, bytes: hexBytes('02 D7 02 D4 22 78 8A B6 03') },
    ]);
    const frames = dissect(file, { home: pluginHome, load: 'plugin' });
    checkFrame(
      frames[0],
      hexBytes('02 D7 02 D4 22 78 8A B6 03'),
      hexBytes('02 01 32 07 80 05 00 2A 20'),
      'encrypted',
      [],
    );
  });
});

function hexBytes(text: string): Uint8Array {
  const parsed = parseHex(text);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.bytes;
}
