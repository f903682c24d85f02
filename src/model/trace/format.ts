// Trace rendering: one line per event for people, one JSON object per line for
// programs. Lines carry time, direction, what happened and the raw bytes. With
// more than one client the direction names the connection (`C3>S`, `at S3`); with
// one it stays `C>S` / `at S`, so one-client traces read as they always have.
import { describeMessage, formMessageToJson, messageToJson, toHex } from '../../core/codec/index.js';
import type { Located, MessageForm } from '../../core/codec/index.js';
import { formatSeconds, usToSeconds } from '../../core/engine/index.js';
import { SendNote } from '../transport/index.js';
import type { AckOutcome, Role } from '../transport/index.js';
import { eventPeer } from './events.js';
import type { TraceEvent } from './events.js';

const OUTCOME_TEXT: Record<AckOutcome, string> = {
  matched: 'MATCHED, retransmit entry cleared',
  'queue-empty': 'no match: retransmit queue empty (stale ACK)',
  'no-entry': 'no match: no entry with that seq/index',
  'rejected-fragment': 'NO MATCH: the fragment entry is queued but the matcher rejects it',
};

/** The marks a sent message gets, shared with the capture's packet comments: `[RETRANSMIT #n]`. */
export const RETRANSMIT_MARK = ' [RETRANSMIT #';
export const DEAD_ZONE_MARK = ' [DEAD-ZONE ACK, pass 2]';

const TRACE_HEADER = '    time  dir   event        messages | bytes';
/** Width of the direction column, its spacing included: one client, and more (`at S:c16` fits). */
const DIR_WIDTH = { one: 6, many: 9 };

/**
 * How much of each datagram's raw bytes a trace shows: none, the first 16 then `…`, as many as
 * keep the line within FIT_COLUMNS then `… +N B` (text only), or all.
 */
export type BytesMode = 'none' | 'short' | 'fit' | 'full';
export const BYTES_MODES: readonly BytesMode[] = ['none', 'short', 'fit', 'full'];
/** Bytes shown by `short`. */
const SHORT_BYTES = 16;
/** The width a `fit` line keeps to: a common terminal's, with room for its margin. */
const FIT_COLUMNS = 120;

export interface FormatOptions {
  /** Default `full`. */
  readonly bytes?: BytesMode;
  /** Clients in the session (default 1); above 1 the direction column names the connection. */
  readonly clients?: number;
}

/** The column header line for a given bytes mode and number of clients. */
export function traceHeader(bytes: BytesMode = 'full', clients = 1): string {
  const header = clients > 1 ? TRACE_HEADER.replace('dir   ', 'dir'.padEnd(DIR_WIDTH.many)) : TRACE_HEADER;
  return bytes === 'none' ? header.slice(0, header.indexOf(' | ')) : header;
}

export function formatEvent(event: TraceEvent, options: FormatOptions = {}): string {
  const t = formatSeconds(event.timeUs).padStart(8);
  const bytes = options.bytes ?? 'full';
  const many = (options.clients ?? 1) > 1;
  const width = many ? DIR_WIDTH.many : DIR_WIDTH.one;
  const dir = direction(event, many).padEnd(width);
  switch (event.kind) {
    case 'send': {
      const parts = event.messages.map(
        (m, i) => describe(m, event.from, event.forms?.[i] ?? null) + annotation(event.notes[i], event.transmission[i]),
      );
      return withBytes(`${t}  ${dir}send         ${parts.join(' ; ')}`, event.bytes, bytes);
    }
    case 'drop':
      return withBytes(
        `${t}  ${dir}DROP(${event.cause})`.padEnd(27 + width) +
          event.messages.map((m) => describe(m, event.from)).join(' ; '),
        event.bytes,
        bytes,
      );
    case 'dup-arrival':
      return withBytes(
        `${t}  ${dir}LINK-DUP     ${event.messages.map((m) => describe(m, other(event.to))).join(' ; ')}`,
        event.bytes,
        bytes,
      );
    case 'ack':
      return `${t}  ${dir}ack          ${describe(event.message, other(event.at))}: ${OUTCOME_TEXT[event.outcome]}`;
    case 'duplicate':
      return `${t}  ${dir}DUPLICATE    ${describe(event.message, other(event.at))}: seen before, dropped (its ACK entry refreshed)`;
    case 'state':
      return `${t}  ${dir}state        connection ${event.state}`;
  }
}

/**
 * The direction column: `C>S`, `S>C`, `at C`, `at S` with one client. With more, the
 * client end is `C` and the slot the server gave it (`C3>S`, `S>C3`, `at C3`) and the
 * server's end of that connection `S` and the slot (`at S3`). Before the server has
 * accepted the connection there is no slot: lowercase `c` and the client's number
 * in the scenario (`c2>S`, `at c2`, `at S:c2`).
 */
function direction(event: TraceEvent, many: boolean): string {
  const client = !many ? 'C' : event.slot === null ? `c${event.client}` : `C${event.slot}`;
  const server = !many ? 'S' : event.slot === null ? `S:c${event.client}` : `S${event.slot}`;
  switch (event.kind) {
    case 'send':
    case 'drop':
      return event.from === 'client' ? `${client}>S` : `S>${client}`;
    default: {
      const at = eventPeer(event);
      return `at ${at === 'client' ? client : server}`;
    }
  }
}

/**
 * One JSON object per event, with its connection: `client` (the client's number)
 * and `slot` (null before the server accepted it), whatever the number of clients,
 * so programs see one shape. `bytes` (default `full`) governs `hex` as in text:
 * `none` leaves it out, `short` keeps the first 16 bytes and adds `hexTruncated: true` when it cut.
 */
export function eventToJson(event: TraceEvent, options: FormatOptions = {}): object {
  const base = { t: usToSeconds(event.timeUs), event: event.kind, client: event.client, slot: event.slot };
  const bytes = options.bytes ?? 'full';
  switch (event.kind) {
    case 'send':
      return {
        ...base,
        from: event.from,
        ...jsonHex(event.bytes, bytes),
        messages: event.messages.map((m, i) => ({
          ...formMessageToJson(m, event.forms?.[i] ?? null, sentBy(event.from)),
          note: NOTE_NAMES[event.notes[i]],
          transmission: event.transmission[i],
        })),
      };
    case 'drop':
      return {
        ...base,
        from: event.from,
        cause: event.cause,
        ...jsonHex(event.bytes, bytes),
        messages: event.messages.map((m) => messageToJson(m, sentBy(event.from))),
      };
    case 'dup-arrival':
      return {
        ...base,
        to: event.to,
        ...jsonHex(event.bytes, bytes),
        messages: event.messages.map((m) => messageToJson(m, sentBy(other(event.to)))),
      };
    case 'ack':
      return { ...base, at: event.at, outcome: event.outcome, ack: messageToJson(event.message) };
    case 'duplicate':
      return { ...base, at: event.at, message: messageToJson(event.message, sentBy(other(event.at))) };
    case 'state':
      return { ...base, role: event.role, state: event.state };
  }
}

const NOTE_NAMES = ['first-send', 'retransmit', 'ack', 'dead-zone-ack'];

/** Who put a message on the wire, as messageToJson takes it: the client's type 0x03 is its connect request. */
function sentBy(sender: Role): { sentByClient: boolean } {
  return { sentByClient: sender === 'client' };
}

/** `sender` is the peer that put the message on the wire: the client's type 0x03 is its connect request. */
function describe(m: Located, sender: Role, form: MessageForm | null = null): string {
  return describeMessage(m, m.size, { sentByClient: sender === 'client', form });
}

function other(role: Role): Role {
  return role === 'client' ? 'server' : 'client';
}

/** A line and its ` | bytes` column. */
function withBytes(line: string, bytes: Uint8Array, mode: BytesMode): string {
  if (mode === 'none') return line;
  if (mode === 'short' && bytes.length > SHORT_BYTES) return `${line} | ${toHex(bytes.subarray(0, SHORT_BYTES))} …`;
  if (mode === 'fit') return `${line} | ${fittedHex(bytes, FIT_COLUMNS - line.length - 3)}`;
  return `${line} | ${toHex(bytes)}`;
}

/**
 * The hex of `bytes` within `room` characters: all of it if it fits, else the most leading
 * bytes that fit beside `… +N B` (N the bytes cut; never fewer than none, so a line whose
 * text alone is too wide still says how many bytes it left out).
 */
function fittedHex(bytes: Uint8Array, room: number): string {
  if (bytes.length * 3 - 1 <= room) return toHex(bytes);
  // k bytes of hex take 3k - 1 characters, ` … +N B` takes 6 and N's digits.
  let shown = Math.min(bytes.length - 1, Math.floor((room + 1) / 3));
  while (shown > 0 && shown * 3 - 1 + 6 + String(bytes.length - shown).length > room) shown--;
  if (shown <= 0) return `… +${bytes.length} B`;
  return `${toHex(bytes.subarray(0, shown))} … +${bytes.length - shown} B`;
}

/** `fit` is a width of text: JSON takes it as `full`. */
function jsonHex(bytes: Uint8Array, mode: BytesMode): { hex?: string; hexTruncated?: true } {
  if (mode === 'none') return {};
  if (mode === 'short' && bytes.length > SHORT_BYTES)
    return { hex: toHex(bytes.subarray(0, SHORT_BYTES), ''), hexTruncated: true };
  return { hex: toHex(bytes, '') };
}

function annotation(note: number, transmission: number): string {
  if (note === SendNote.Retransmit) return `${RETRANSMIT_MARK}${transmission}]`;
  if (note === SendNote.StaleAck) return DEAD_ZONE_MARK;
  return '';
}
