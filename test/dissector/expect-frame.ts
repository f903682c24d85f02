// What tshark must show for one datagram, from bcsim's own decode of the same
// bytes (the codec's dialect reader, docs/sources.md 30: the stock form, or a
// reimplementation's form with its deviations): the datagram fields, every
// message field by field, retransmission marks and expert info. Shared by the
// dissector tests (not a test file itself).
import { expect } from 'vitest';
import { decodeDatagram, decodeDialect, decrypt, dialectResultToJson } from '../../src/core/codec/index.js';
import type { AckJson, DataJson, Deviation } from '../../src/core/codec/index.js';
import type { Expert, Frame, Node } from './tshark.js';

const SEVERITY = { chat: 0x00200000, note: 0x00400000, warn: 0x00600000, error: 0x00800000 };
const GROUP = { sequence: 0x02000000, malformed: 0x07000000, protocol: 0x09000000 };

type TraceMessage = (AckJson | DataJson) & { note: string; transmission: number };
export interface TraceSend {
  t: number;
  event: 'send';
  client: number;
  from: 'server' | 'client';
  hex: string;
  messages: TraceMessage[];
}

const bool = (value: boolean): string => (value ? '1' : '0');
const hexField = (value: number, digits: number): string => `0x${value.toString(16).padStart(digits, '0')}`;
const colonHex = (hex: string): string => (hex.toLowerCase().match(/../g) ?? []).join(':');

/**
 * What the dissector should say of a message sent before. A data message sent
 * again is a retransmit (`number` is the trace's `#n`: the sends before this one);
 * every ACK carries its send count, and one sent again is an ACK repeat, a
 * dead-zone one when it is an entry's 4th to 9th send (the stock pass 2).
 */
export type Mark =
  | { kind: 'fragment' | 'reliable'; first: number; number: number }
  | { kind: 'ack'; first: number; sends: number; deadZone: boolean };

/** bc.* fields tshark must show for one message of bcsim's decode JSON (nothing more, nothing less). */
function expectedMessageFields(
  m: AckJson | DataJson,
  mark: Mark | undefined,
  deviations: readonly Deviation[] = [],
): Record<string, string[]> {
  const f: Record<string, string[]> = {
    'bc.offset': [String(m.offset)],
    'bc.type': [hexField(m.type, 2)],
    'bc.name': [m.name],
    'bc.len': [String(m.size)],
  };
  if (m.type === 1) {
    const ack = m as AckJson;
    f['bc.ack.seq'] = [String(ack.seq)];
    f['bc.ack.flags'] = [hexField(ack.flags, 2)];
    f['bc.ack.fragment'] = [bool(ack.fragment)];
    f['bc.ack.low_type'] = [bool(ack.lowType)];
    if (ack.fragIndex !== null) f['bc.ack.frag_index'] = [String(ack.fragIndex)];
  } else {
    const data = m as DataJson;
    if (data.wireForm === undefined) {
      const flagsLen =
        (data.reliable ? 0x8000 : 0) | (data.ordered ? 0x4000 : 0) | (data.fragment ? 0x2000 : 0) | data.size;
      f['bc.flags_len'] = [hexField(flagsLen, 4)];
    } else {
      // docs/sources.md 30: the type byte as sent, the one-byte length and the flags byte (if any).
      f['bc.type'] = [hexField(data.wireForm.typeByte, 2)];
      f['bc.length_u8'] = [String(data.wireForm.lengthByte)];
      if (data.wireForm.flagsByte !== null) f['bc.flags_u8'] = [hexField(data.wireForm.flagsByte, 2)];
    }
    f['bc.reliable'] = [bool(data.reliable)];
    f['bc.ordered'] = [bool(data.ordered)];
    f['bc.fragment'] = [bool(data.fragment)];
    if (data.seq !== null) f['bc.seq'] = [String(data.seq)];
    if (data.fragIndex !== null) f['bc.frag_index'] = [String(data.fragIndex)];
    if (data.fragCount !== null) f['bc.frag_count'] = [String(data.fragCount)];
    f['bc.payload'] = [colonHex(data.payloadHex)];
    f['bc.payload_len'] = [String(data.payloadHex.length / 2)];
    if (data.type === 0x32 && data.payloadHex.length > 0 && (data.fragIndex === null || data.fragIndex === 0)) {
      f['bc.opcode'] = [`0x${data.payloadHex.slice(0, 2).toLowerCase()}`];
    }
  }
  if (mark?.kind === 'ack') {
    f['bc.ack.sends'] = [String(mark.sends)];
    if (mark.sends > 1) {
      f['bc.ack.repeat'] = ['1'];
      f['bc.ack.first_frame'] = [String(mark.first)];
    }
    if (mark.deadZone) f['bc.ack.dead_zone'] = ['1'];
  } else if (mark) {
    f['bc.retransmit'] = ['1'];
    f['bc.retransmit.kind'] = [mark.kind];
    f['bc.retransmit.first_frame'] = [String(mark.first)];
    f['bc.retransmit.number'] = [String(mark.number)];
  }
  if (deviations.length > 0) {
    f['bc.deviation'] = deviations.map((d) => d.note);
    f['bc.deviation.code'] = deviations.map((d) => d.code);
    f['bc.deviation.offset'] = deviations.map((d) => String(d.offset));
  }
  return f;
}

/** The expert a mark brings, and its summary; none for an ACK's first send. */
function expertOf(mark: Mark | undefined): { field: string; text: string } | null {
  if (mark === undefined) return null;
  if (mark.kind !== 'ack')
    return mark.kind === 'fragment'
      ? { field: 'bc.fragment_retransmission', text: 'Fragment retransmission' }
      : { field: 'bc.reliable_retransmission', text: 'Reliable message retransmission' };
  if (mark.deadZone) return { field: 'bc.ack_dead_zone', text: 'Dead-zone ACK (pass 2)' };
  if (mark.sends > 1) return { field: 'bc.ack_repeat', text: 'ACK repeat' };
  return null;
}

/**
 * Checks one frame against bcsim's decode of the datagram's `plain` bytes: the
 * datagram fields, then every message field by field, its retransmission mark,
 * its deviations and expert info.
 */
export function checkFrame(
  frame: Frame,
  wire: Uint8Array,
  plain: Uint8Array,
  reading: 'encrypted' | 'plaintext',
  marks: Array<Mark | undefined>,
): void {
  const where = `frame ${frame.number}`;
  const dialect = decodeDialect(plain);
  const decoded = dialectResultToJson(plain, dialect);
  const result = decodeDatagram(plain);
  expect(frame.protocols, where).toMatch(/:udp:bc$/);
  expect(frame.raw, `${where}: Lua error`).not.toContain('_ws.lua.error');
  // Wireshark's "Malformed Packet" mark (filter _ws.malformed): exactly when bcsim's decoder rejects the datagram.
  expect(frame.raw.includes('"_ws.malformed"'), `${where}: _ws.malformed`).toBe(!decoded.ok);
  const bc = frame.bc!;
  const otherBytes = reading === 'encrypted' ? wire : decrypt(wire);
  const datagram: Record<string, string[]> = {
    'bc.reading': [reading],
    'bc.other_reading_parses': [bool(decodeDialect(otherBytes).ok)],
    'bc.ok': [bool(decoded.ok)],
    'bc.length': [String(decoded.length)],
  };
  if (decoded.ok) datagram['bc.strict'] = [bool(result.ok)];
  if (decoded.peerId !== null) datagram['bc.peer_id'] = [hexField(decoded.peerId, 2)];
  if (decoded.messageCount !== null) datagram['bc.msg_count'] = [String(decoded.messageCount)];
  if (!dialect.ok) {
    datagram['bc.error.code'] = [dialect.error.code];
    datagram['bc.error.offset'] = [String(dialect.error.offset)];
    datagram['bc.error.reason'] = [dialect.error.reason];
  }
  expect(bc.fields, where).toEqual(datagram);

  const rootExperts: Array<Pick<Expert, 'field' | 'severity' | 'group'> & { message?: string }> = [];
  if (reading === 'plaintext')
    rootExperts.push({ field: 'bc.plaintext', severity: SEVERITY.chat, group: GROUP.protocol });
  if (plain.length > 512) rootExperts.push({ field: 'bc.oversize', severity: SEVERITY.warn, group: GROUP.protocol });
  if (!dialect.ok) {
    rootExperts.push({
      field: 'bc.malformed',
      severity: SEVERITY.error,
      group: GROUP.malformed,
      // One summary per code, so Wireshark groups them; the offset and reason are the bc.error.* fields above.
      message: `Malformed BC datagram (${dialect.error.code})`,
    });
  }
  expect(
    bc.experts.map((e) => ({
      field: e.field,
      severity: e.severity,
      group: e.group,
      ...(e.field === 'bc.malformed' ? { message: e.message } : {}),
    })),
    where,
  ).toEqual(rootExperts);

  expect(bc.messages.length, where).toBe(decoded.messages.length);
  decoded.messages.forEach((m, i) => {
    const node: Node = bc.messages[i];
    const at = `${where}, message ${i + 1}`;
    const deviations = decoded.deviations.filter((d) => d.offset >= m.offset && d.offset < m.offset + m.size);
    // An ACK of a datagram that parses always has its send count; unless told otherwise, its first.
    const firstSend: Mark | undefined =
      decoded.ok && m.type === 1 ? { kind: 'ack', first: frame.number, sends: 1, deadZone: false } : undefined;
    const mark = marks[i] ?? firstSend;
    expect(node.fields, at).toEqual(expectedMessageFields(m, mark, deviations));
    const expert = expertOf(mark);
    const experts: Array<[string, number, number, string | null]> = [];
    if (expert) experts.push([expert.field, GROUP.sequence, -1, null]);
    // One note per deviation, summarised by its code so Wireshark groups them (the bc.deviation item has decode's words).
    for (const d of deviations)
      experts.push([
        'bc.deviation.expert',
        GROUP.protocol,
        SEVERITY.note,
        `Wire form of a reimplementation (docs/sources.md 30): ${d.code}`,
      ]);
    expect(
      node.experts.map((e): [string, number, number, string | null] => [
        e.field,
        e.group,
        e.field === 'bc.deviation.expert' ? e.severity : -1,
        e.field === 'bc.deviation.expert' ? e.message : null,
      ]),
      at,
    ).toEqual(experts);
    // The summary names the kind only, so Wireshark groups them; the frame and count are fields.
    if (expert) expect(node.experts[0].message, at).toBe(expert.text);
  });
}
