// Wire logs for the conformance tests, built with the real codec, and a
// strict little XML reader for their JUnit files.
import { encodeDatagram } from '../../src/core/codec/index.js';
import type { Message } from '../../src/core/codec/index.js';
import { evaluateConformance } from '../../src/live/conformance/index.js';
import type { ConformanceResult, ConformanceRule } from '../../src/live/conformance/index.js';
import type { WireRecord } from '../../src/live/wire-log.js';
import { Opcode, filledPayload } from '../../src/model/traffic/payloads.js';
import { ackMsg, dataMsg, filler, okBytes } from '../codec/helpers.js';

export const CLIENT = 0x02;
export const SERVER = 0x01;

/** A datagram `from` sent at `ms`, on connection 1 unless told. */
export function rec(
  from: 'local' | 'remote',
  ms: number,
  messages: Message[],
  peerId = from === 'local' ? CLIENT : SERVER,
  connection = 1,
): WireRecord {
  return { timeUs: ms * 1000, from, connection, bytes: okBytes(encodeDatagram({ peerId, messages })) };
}
export const local = (ms: number, ...messages: Message[]) => rec('local', ms, messages);
export const remote = (ms: number, ...messages: Message[]) => rec('remote', ms, messages);
/** An unreliable StateUpdate of the counterpart: it is there, and it answers nothing (a log without it is a silent counterpart). */
export const heard = (ms: number) => remote(ms, dataMsg({ payload: filledPayload(Opcode.StateUpdate, 12, ms) }));

/** Fragment `index` of a 3-fragment reliable 0x32 message. */
export function frag(seq: number, index: number, count = 3): Message {
  return dataMsg({
    reliable: true,
    fragment: true,
    seq,
    fragIndex: index,
    fragCount: index === 0 ? count : null,
    payload: filler(100, index),
  });
}
/** A reliable 0x32 message; `opcode` leads its payload. */
export function reliable(seq: number, opcode = 0x06, salt = seq): Message {
  return dataMsg({ reliable: true, seq, payload: filledPayload(opcode, 20, salt) });
}
export const fragAck = (seq: number, index: number) => ackMsg(seq, 0x01, index);
export const ack = (seq: number, flags = 0x00) => ackMsg(seq, flags);

export function judge(log: WireRecord[], rule: ConformanceRule, endMs = 10_000): ConformanceResult {
  return evaluateConformance(log, [rule], { endUs: endMs * 1000 })[0];
}

// ---- a strict little XML reader (elements, attributes, text; no DTD) -------

export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

export function parseXml(xml: string): XmlElement {
  let pos = 0;
  const fail = (why: string): never => {
    throw new Error(`XML: ${why} at ${pos}`);
  };
  const decode = (raw: string): string => {
    if (/[<]|&(?!(amp|lt|gt|quot|apos);)/.test(raw)) fail(`bad character data ${JSON.stringify(raw.slice(0, 40))}`);
    if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/.test(raw)) fail('a control character');
    return raw
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&amp;/g, '&');
  };
  const skipSpace = () => {
    while (/\s/.test(xml[pos] ?? '')) pos++;
  };
  const element = (): XmlElement => {
    const open = /^<([A-Za-z][\w-]*)/.exec(xml.slice(pos)) ?? fail('expected an element');
    pos += open[0].length;
    const node: XmlElement = { name: open[1], attributes: {}, children: [], text: '' };
    for (;;) {
      skipSpace();
      if (xml.startsWith('/>', pos)) {
        pos += 2;
        return node;
      }
      if (xml[pos] === '>') break;
      const attr = /^([A-Za-z][\w-]*)="([^"]*)"/.exec(xml.slice(pos)) ?? fail('expected an attribute');
      if (attr[1] in node.attributes) fail(`duplicate attribute ${attr[1]}`);
      node.attributes[attr[1]] = decode(attr[2]);
      pos += attr[0].length;
    }
    pos++;
    for (;;) {
      const lt = xml.indexOf('<', pos);
      if (lt < 0) fail(`unclosed <${node.name}>`);
      node.text += decode(xml.slice(pos, lt));
      pos = lt;
      if (xml.startsWith(`</${node.name}>`, pos)) {
        pos += node.name.length + 3;
        return node;
      }
      if (xml.startsWith('</', pos)) fail(`mismatched close of <${node.name}>`);
      node.children.push(element());
    }
  };
  if (!xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')) fail('no XML declaration');
  pos = xml.indexOf('?>') + 2;
  skipSpace();
  const root = element();
  skipSpace();
  if (pos !== xml.length) fail('content after the root element');
  return root;
}
