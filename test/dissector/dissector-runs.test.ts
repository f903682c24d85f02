// The Wireshark dissector dissector/bcsim.lua, run for real in tshark on bcsim's runs.
// Captures are built with text2pcap from `bcsim trace --json`
// lines (AlbyRules-encrypted with bcsim's codec, or left plaintext), and every
// field tshark shows for every message is compared with bcsim's own decode of
// the same datagram. Never skipped: without tshark every test fails and says so.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeDatagram, decodeResultToJson, decrypt, encrypt, parseHex } from '../../src/core/codec/index.js';
import type { AckJson, DataJson } from '../../src/core/codec/index.js';
import { DEAD_ZONE_MARK, RETRANSMIT_MARK } from '../../src/model/trace/index.js';
import { cli } from '../support/cli.js';
import { checkFrame } from './expect-frame.js';
import type { Mark, TraceSend } from './expect-frame.js';
import { BCSIM_ADDRESSING, UNREGISTERED_ADDRESSING, dissect, matchFrames, tshark, writeCapture } from './tshark.js';
import type { Addressing, Frame, WirePacket } from './tshark.js';
import { tsharkWorkspace } from './workspace.js';

const space = tsharkWorkspace('bcsim-dissector-');

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

describe('the Wireshark dissector in tshark', () => {
  it('`bcsim run fragment-ack-bug --mode stock --pcap` (120 s, encrypted) decodes exactly as bcsim decodes it', async () => {
    const file = join(space.work, 'run-stock.pcapng');
    const run = await cli(['run', 'fragment-ack-bug', '--mode', 'stock', '--seed', '1', '--pcap', file]);
    expect(run.code, run.stderr).toBe(0);
    const sends = await traceSends(['fragment-ack-bug', '--mode', 'stock', '--seed', '1']);
    checkStockCapture(sends, packetsOf(sends, true), dissect(file, space.options));
  });

  it('the same run captured with text2pcap from `bcsim trace --json` (independent of the pcapng export)', async () => {
    const sends = await traceSends(['fragment-ack-bug', '--mode', 'stock', '--seed', '1', '--until', '120s']);
    const packets = packetsOf(sends, true);
    checkStockCapture(sends, packets, dissect(writeCapture(space.work, 'fragment-ack-bug', packets), space.options));
  });

  it('two-pass dissection (-2) shows the same fields and marks as one pass', async () => {
    const sends = await traceSends(['fragment-ack-bug', '--mode', 'stock', '--until', '30s']);
    const file = writeCapture(space.work, 'two-pass', packetsOf(sends, true));
    const one = dissect(file, space.options).map((f) => f.bc);
    const two = dissect(file, { ...space.options, twoPass: true }).map((f) => f.bc);
    expect(two).toEqual(one);
    expect(one.flatMap((bc) => bc!.messages).filter((n) => n.fields['bc.retransmit']).length).toBeGreaterThan(0);
    expect(one.flatMap((bc) => bc!.messages).filter((n) => n.fields['bc.ack.repeat']).length).toBeGreaterThan(0);
  });

  it("the Info column speaks the trace's words: [RETRANSMIT #n] on data, ACK REPEAT or DEAD-ZONE ACK on ACKs", async () => {
    const sends = await traceSends(['fragment-ack-bug', '--mode', 'stock', '--until', '60s']);
    const packets = packetsOf(sends, true);
    const file = writeCapture(space.work, 'info', packets);
    const frames = matchFrames(dissect(file, space.options), packets);
    const rows = tshark(file, ['-T', 'fields', '-e', 'frame.number', '-e', '_ws.col.Info'], space.options)
      .trim()
      .split('\n');
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
    const file = join(space.work, 'run-plain.pcapng');
    const run = await cli(['run', 'fragment-ack-bug', '--mode', 'stock', '--pcap', file, '--pcap-plaintext']);
    expect(run.code, run.stderr).toBe(0);
    const sends = await traceSends(['fragment-ack-bug', '--mode', 'stock']);
    checkCapture(sends, packetsOf(sends, false), dissect(file, space.options), 'plaintext');
  });

  it('the reading preference forces decryption: -o bc.reading:Encrypted on a plaintext capture', async () => {
    const sends = await traceSends(['fragment-ack-bug', '--mode', 'stock', '--until', '5s']);
    const file = writeCapture(space.work, 'forced', packetsOf(sends, false));
    const frames = dissect(file, { ...space.options, prefs: ['bc.reading:Encrypted'] });
    expect(frames.map((f) => f.bc!.fields['bc.reading'][0])).toEqual(frames.map(() => 'encrypted'));
    expect(frames.map((f) => f.bc!.fields['bc.other_reading_parses'][0])).toEqual(frames.map(() => '1'));
  });

  it('three clients (valentines): retransmissions are tracked per sender, each connection its own', async () => {
    const sends = await traceSends(['valentines', '--mode', 'stock', '--until', '20s']);
    expect(new Set(sends.map((s) => s.client))).toEqual(new Set([1, 2, 3]));
    const packets = packetsOf(sends, true);
    const frames = dissect(writeCapture(space.work, 'valentines', packets), space.options);
    const marks = checkCapture(sends, packets, frames, 'encrypted');
    // Every client re-sends its own 3 fragments of seq 2: the same seq on three connections.
    for (const client of [1, 2, 3]) {
      const fragmentMarks = sends.flatMap((s, i) =>
        s.client === client ? marks[i].filter((m) => m?.kind === 'fragment') : [],
      );
      expect(fragmentMarks.length, `client ${client}`).toBeGreaterThan(0);
    }
  });

  it('heuristic: a BC conversation on other UDP ports is recognised and decoded', async () => {
    const sends = await traceSends(['fragment-ack-bug', '--mode', 'stock', '--until', '10s']);
    const packets = packetsOf(sends, true);
    const frames = dissect(writeCapture(space.work, 'heuristic', packets, UNREGISTERED_ADDRESSING), space.options);
    checkCapture(sends, packets, frames, 'encrypted', UNREGISTERED_ADDRESSING);
  });
});
