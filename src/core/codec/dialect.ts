// Wire forms that real reimplementations send (docs/sources.md 30): read them,
// name every deviation from the stock form, and re-encode to the stock form.
// The strict decoder (datagram.ts) and the transport's hot path are untouched:
// this reader runs where a datagram is shown, counted or handed to the model,
// and reads a datagram tolerantly only when the strict reading fails.
//
// The tolerant form of the generic types (0x00, 0x02-0x05, and 0x06) is
// [type][total length u8][flags u8][seq u16 LE if flags bit 7][payload]: for
// lengths below 256 with a flags byte of 0x00/0x40/0x80/0xC0 it is byte for
// byte the stock [type][flags_len u16 LE], so it is only needed for
// - a two-byte message [type][02] (no flags byte: OpenBC's minimal keepalive `00 02`);
// - a flags byte with bits the stock form reads as length bits 8-13 (a Connect `03 08 01 …`);
// - type 0x06, a client's Disconnect.
// ACK flags with bits outside 0-1 (0x80) are stock-readable and only named.
// Some sources read the two seq bytes big-endian ("seqHi"); the bytes are the
// stock ones (docs/sources.md 1), so nothing here changes for them.
import {
  DATAGRAM_HEADER_BYTES,
  FLAG_ORDERED,
  FLAG_RELIABLE,
  PEER_ID_UNASSIGNED,
  TYPE_ACK,
  TYPE_CONNECT,
  TYPE_CONNECT_ACK,
  TYPE_DATA,
  TYPE_DISCONNECT,
} from './constants.js';
import { decodeDatagram } from './datagram.js';
import { hex2, messageOf, messageSize, newMessageHeader, readHeader, writeMessage } from './message.js';
import type { DataMessage, DecodeError, DecodedDatagram, Located } from './types.js';
import { RELIABLE_HEADER_BYTES, DATA_HEADER_BYTES, ackFlagsOther } from './wire.js';

/** Type 0x06: a client's Disconnect in some reimplementations; read as the stock Disconnect 0x05. */
export const TYPE_DISCONNECT_ALT = 0x06;

export type DeviationCode =
  | 'two-byte-message'
  | 'one-byte-length'
  | 'disconnect-type-06'
  | 'ack-flag-bits'
  | 'connect-without-seq';

/** Every code, in the order the docs list them. */
export const DEVIATION_CODES: readonly DeviationCode[] = [
  'two-byte-message',
  'one-byte-length',
  'disconnect-type-06',
  'ack-flag-bits',
  'connect-without-seq',
];

/**
 * One departure from the stock wire form. `offset` is the byte that deviates:
 * the length byte of a two-byte message, the flags byte of a one-byte-length
 * message or of a Connect without a seq, the type byte 0x06, an ACK's flags byte.
 */
export interface Deviation {
  readonly offset: number;
  readonly code: DeviationCode;
  /** "deviation: …; stock …". */
  readonly note: string;
}

/** How a message read with the tolerant rules sat on the wire. */
export interface MessageForm {
  /** The type byte as sent (0x06 for a Disconnect the message reads as type 0x05). */
  readonly typeByte: number;
  /** The one-byte total length. */
  readonly lengthByte: number;
  /** Null for a two-byte message. */
  readonly flagsByte: number | null;
}

export type DialectResult =
  | {
      readonly ok: true;
      /** The messages as read, at their offset and wire size; a type-0x06 message reads as type 0x05. */
      readonly datagram: DecodedDatagram;
      /** Per message, its form when read tolerantly (null: the stock form); empty when every message is stock. */
      readonly forms: readonly (MessageForm | null)[];
      readonly deviations: readonly Deviation[];
      /** The datagram in the stock form the model reads: the same array when no message needed the tolerant rules. */
      readonly stock: Uint8Array;
    }
  | {
      readonly ok: false;
      /** Exactly the strict decoder's error and partial reading. */
      readonly error: DecodeError;
      readonly partial: {
        readonly peerId: number | null;
        readonly messageCount: number | null;
        readonly messages: readonly Located[];
      };
      readonly deviations: readonly Deviation[];
    };

const NO_FORMS: readonly (MessageForm | null)[] = [];
const NO_DEVIATIONS: readonly Deviation[] = [];
/** Reading steps one tolerant read may take: a bound on the backtracking over hostile bytes. */
export const MAX_DIALECT_STEPS = 4096;
/** The stock reading's length bits in the flags_len high byte (bits 8-13). */
const STOCK_LENGTH_BITS_HIGH = 0x3f;
const FLAGS_RELIABLE = FLAG_RELIABLE >>> 8;
const FLAGS_ORDERED = FLAG_ORDERED >>> 8;
const TWO_BYTE_LENGTH = 2;

/** The form of message `i` of a reading (null: stock). */
export function formOf(result: { readonly forms: readonly (MessageForm | null)[] }, i: number): MessageForm | null {
  return result.forms[i] ?? null;
}

/**
 * Decodes a datagram in the stock form or in the forms of docs/sources.md 30.
 * Never throws. Strict first; only when that fails, the tolerant reading. When
 * neither reads, the strict error comes back unchanged.
 */
export function decodeDialect(bytes: Uint8Array): DialectResult {
  const strict = decodeDatagram(bytes);
  if (strict.ok)
    return {
      ok: true,
      datagram: strict.datagram,
      forms: NO_FORMS,
      deviations: ackDeviations(strict.datagram.messages),
      stock: bytes,
    };
  const read = readTolerant(bytes);
  if (read === null) return { ok: false, error: strict.error, partial: strict.partial, deviations: NO_DEVIATIONS };
  const datagram: DecodedDatagram = { peerId: bytes[0], messageCount: bytes[1], messages: read.messages };
  return {
    ok: true,
    datagram,
    forms: read.forms,
    deviations: deviationsOf(datagram, read.forms),
    stock: encodeStock(datagram, read.forms),
  };
}

/** The stock form of a datagram `decodeDialect` reads, or null when it reads neither way. */
export function normalizeToStock(bytes: Uint8Array): Uint8Array | null {
  const result = decodeDialect(bytes);
  return result.ok ? result.stock : null;
}

/** The deviations named in a stock-readable datagram: ACK flags with bits outside 0-1. */
function ackDeviations(messages: readonly Located[]): readonly Deviation[] {
  let out: Deviation[] | null = null;
  for (const m of messages) {
    if (m.type === TYPE_ACK && ackFlagsOther(m.flags) !== 0) (out ??= []).push(ackBitsDeviation(m.offset, m.flags));
  }
  return out ?? NO_DEVIATIONS;
}

function ackBitsDeviation(offset: number, flags: number): Deviation {
  return {
    offset: offset + 3,
    code: 'ack-flag-bits',
    note: `deviation: ACK flags 0x${hex2(flags)} set bits outside 0-1; stock uses bit 0 (fragment) and bit 1 (low type) only`,
  };
}

function deviationsOf(datagram: DecodedDatagram, forms: readonly (MessageForm | null)[]): readonly Deviation[] {
  const out: Deviation[] = [];
  datagram.messages.forEach((m, i) => {
    const form = forms[i];
    if (m.type === TYPE_ACK) {
      if (ackFlagsOther(m.flags) !== 0) out.push(ackBitsDeviation(m.offset, m.flags));
      return;
    }
    if (form === null) return;
    if (form.typeByte === TYPE_DISCONNECT_ALT) {
      out.push({
        offset: m.offset,
        code: 'disconnect-type-06',
        note: "deviation: type 0x06 Disconnect; stock's Disconnect is type 0x05",
      });
    }
    if (form.flagsByte === null) {
      out.push({
        offset: m.offset + 1,
        code: 'two-byte-message',
        note: "deviation: two-byte message (one-byte length 2, no flags byte); stock's smallest message is 3 bytes, [type][flags_len u16]",
      });
    } else if ((form.flagsByte & STOCK_LENGTH_BITS_HIGH) !== 0) {
      const stockLength = ((form.flagsByte & STOCK_LENGTH_BITS_HIGH) << 8) | form.lengthByte;
      out.push({
        offset: m.offset + 2,
        code: 'one-byte-length',
        note: `deviation: one-byte length ${form.lengthByte} and flags byte 0x${hex2(form.flagsByte)}; stock reads flags_len 0x${hex2(form.flagsByte)}${hex2(form.lengthByte)} as length ${stockLength}`,
      });
    }
    if (needsConnectSeq(datagram.peerId, m, form)) {
      out.push({
        offset: m.offset + (form.flagsByte === null ? 1 : 2),
        code: 'connect-without-seq',
        note: "deviation: Connect without the reliable bit or a seq; stock's is reliable+ordered, seq 0 on a new connection (read as that)",
      });
    }
  });
  return out;
}

/**
 * A client's Connect (type 0x03 from peer id 0xFF, docs/sources.md 3) read in a
 * tolerant form without the reliable bit: the stock client's Connect is
 * reliable+ordered with seq 0 (its first low message; the stock server ACKs it
 * `01 00 00 02`, docs/sources.md 26), and the model opens a connection only on that.
 */
function needsConnectSeq(peerId: number, m: Located, form: MessageForm | null): boolean {
  return form !== null && peerId === PEER_ID_UNASSIGNED && m.type === TYPE_CONNECT_ACK && !m.reliable;
}

interface TolerantRead {
  readonly messages: Located[];
  readonly forms: (MessageForm | null)[];
}

/**
 * Reads msg_count messages that end exactly with the bytes, each in the stock
 * form or, failing that, in the one-byte-length form; backtracks (strict
 * first) within MAX_DIALECT_STEPS steps. Null when no reading fits.
 */
function readTolerant(bytes: Uint8Array): TolerantRead | null {
  const end = bytes.length;
  if (end < DATAGRAM_HEADER_BYTES) return null;
  const count = bytes[1];
  const messages: Located[] = [];
  const forms: (MessageForm | null)[] = [];
  const header = newMessageHeader();
  let steps = 0;
  const walk = (pos: number, i: number): boolean => {
    if (++steps > MAX_DIALECT_STEPS) return false;
    if (i === count) return pos === end;
    if (pos >= end) return false;
    if (readHeader(bytes, pos, end, header) === null) {
      const m = messageOf(bytes, header);
      messages.push(m);
      forms.push(null);
      if (walk(pos + m.size, i + 1)) return true;
      messages.pop();
      forms.pop();
    }
    const t = readOneByteForm(bytes, pos, end);
    if (t !== null) {
      messages.push(t.message);
      forms.push(t.form);
      if (walk(pos + t.message.size, i + 1)) return true;
      messages.pop();
      forms.pop();
    }
    return false;
  };
  return walk(DATAGRAM_HEADER_BYTES, 0) ? { messages, forms } : null;
}

function isOneByteType(type: number): boolean {
  return type === TYPE_DATA || (type >= TYPE_CONNECT && type <= TYPE_DISCONNECT_ALT);
}

/**
 * The message at `offset` in the one-byte-length form, when that form differs
 * from the stock reading of the same bytes (else null: the strict reading
 * already covers it, or the bytes do not fit).
 */
function readOneByteForm(
  bytes: Uint8Array,
  offset: number,
  end: number,
): { message: Located<DataMessage>; form: MessageForm } | null {
  const typeByte = bytes[offset];
  if (!isOneByteType(typeByte) || end - offset < TWO_BYTE_LENGTH) return null;
  const size = bytes[offset + 1];
  if (size < TWO_BYTE_LENGTH || size > end - offset) return null;
  const type = (typeByte === TYPE_DISCONNECT_ALT ? TYPE_DISCONNECT : typeByte) as DataMessage['type'];
  if (size === TWO_BYTE_LENGTH) {
    const message: Located<DataMessage> = {
      ...unreliable(type, bytes.subarray(offset + size, offset + size)),
      offset,
      size,
    };
    return { message, form: { typeByte, lengthByte: size, flagsByte: null } };
  }
  const flagsByte = bytes[offset + 2];
  // The same bytes in the stock form: nothing to add.
  if ((flagsByte & STOCK_LENGTH_BITS_HIGH) === 0 && typeByte !== TYPE_DISCONNECT_ALT) return null;
  const reliable = (flagsByte & FLAGS_RELIABLE) !== 0;
  const headerBytes = reliable ? RELIABLE_HEADER_BYTES : DATA_HEADER_BYTES;
  if (size < headerBytes) return null;
  const seq = reliable ? bytes[offset + 3] | (bytes[offset + 4] << 8) : null;
  const message: Located<DataMessage> = {
    type,
    reliable,
    ordered: (flagsByte & FLAGS_ORDERED) !== 0,
    fragment: false,
    seq,
    fragIndex: null,
    fragCount: null,
    payload: bytes.subarray(offset + headerBytes, offset + size),
    offset,
    size,
  };
  return { message, form: { typeByte, lengthByte: size, flagsByte } };
}

function unreliable(type: DataMessage['type'], payload: Uint8Array): DataMessage {
  return {
    type,
    reliable: false,
    ordered: false,
    fragment: false,
    seq: null,
    fragIndex: null,
    fragCount: null,
    payload,
  };
}

/**
 * The stock bytes of a tolerant reading: each message re-encoded (a stock one
 * keeps its meaning and bytes), a client's Connect without a seq made the stock
 * reliable+ordered seq 0. No 512-byte check: the strict decoder reads larger
 * datagrams too, and this only re-frames what arrived.
 */
function encodeStock(datagram: DecodedDatagram, forms: readonly (MessageForm | null)[]): Uint8Array {
  const messages = datagram.messages.map((m, i) => {
    const form = forms[i] ?? null;
    if (m.type === TYPE_ACK || !needsConnectSeq(datagram.peerId, m, form)) return m;
    return { ...m, reliable: true, ordered: true, seq: 0 };
  });
  const total = messages.reduce((n, m) => n + messageSize(m), DATAGRAM_HEADER_BYTES);
  const out = new Uint8Array(total);
  out[0] = datagram.peerId;
  out[1] = datagram.messageCount;
  let pos = DATAGRAM_HEADER_BYTES;
  for (const m of messages) pos = writeMessage(out, pos, m);
  return out;
}

/** Deviations counted over many datagrams (an end of a connection, a capture). */
export interface DeviationCounts {
  /** Datagrams with at least one deviation. */
  datagrams: number;
  /** Deviations by code; a code never seen is absent. */
  byCode: Partial<Record<DeviationCode, number>>;
}

export function newDeviationCounts(): DeviationCounts {
  return { datagrams: 0, byCode: {} };
}

/** Counts one datagram's deviations (nothing for an empty list). */
export function countDeviations(counts: DeviationCounts, deviations: readonly Deviation[]): void {
  if (deviations.length === 0) return;
  counts.datagrams++;
  for (const d of deviations) counts.byCode[d.code] = (counts.byCode[d.code] ?? 0) + 1;
}

/** "two-byte-message 3, ack-flag-bits 12" (codes in DEVIATION_CODES order), or "" for none. */
export function deviationCountsText(counts: DeviationCounts): string {
  return DEVIATION_CODES.filter((c) => (counts.byCode[c] ?? 0) > 0)
    .map((c) => `${c} ${counts.byCode[c]}`)
    .join(', ');
}
