// Trace rendering: one line per event for people, one JSON object per line for
// programs. Lines carry time, direction, what happened and the raw bytes.
import { describeMessage, messageToJson, toHex } from '../codec/index.js';
import type { Located } from '../codec/index.js';
import { formatSeconds } from '../engine/index.js';
import { SendNote } from '../transport/datagram-builder.js';
import type { AckOutcome } from '../transport/retransmit-queue.js';
import type { Role } from '../transport/roles.js';
import type { TraceEvent } from './events.js';

const ARROW: Record<Role, string> = { client: 'C>S', server: 'S>C' };
const AT: Record<Role, string> = { client: 'at C', server: 'at S' };

const OUTCOME_TEXT: Record<AckOutcome, string> = {
  matched: 'MATCHED, retransmit entry cleared',
  'queue-empty': 'no match: retransmit queue empty (stale ACK)',
  'no-entry': 'no match: no entry with that seq/index',
  'rejected-fragment': 'NO MATCH: the fragment entry is queued but the matcher rejects it',
};

export const TRACE_HEADER = '    time  dir   event        messages | bytes';

/** How much of each datagram's raw bytes a trace shows: none, the first 16 then `…`, or all. */
export type BytesMode = 'none' | 'short' | 'full';
export const BYTES_MODES: readonly BytesMode[] = ['none', 'short', 'full'];
/** Bytes shown by `short`. */
export const SHORT_BYTES = 16;

export interface FormatOptions {
  /** Default `full`. */
  readonly bytes?: BytesMode;
}

/** The column header line for a given bytes mode. */
export function traceHeader(bytes: BytesMode = 'full'): string {
  return bytes === 'none' ? TRACE_HEADER.slice(0, TRACE_HEADER.indexOf(' | ')) : TRACE_HEADER;
}

export function formatEvent(event: TraceEvent, options: FormatOptions = {}): string {
  const t = formatSeconds(event.timeUs).padStart(8);
  const bytes = options.bytes ?? 'full';
  switch (event.kind) {
    case 'send': {
      const parts = event.messages.map((m, i) => describe(m, event.from) + annotation(event.notes[i], event.transmission[i]));
      return `${t}  ${ARROW[event.from]}   send         ${parts.join(' ; ')}${rawBytes(event.bytes, bytes)}`;
    }
    case 'drop':
      return `${t}  ${ARROW[event.from]}   DROP(${event.cause})`.padEnd(33) + `${event.messages.map((m) => describe(m, event.from)).join(' ; ')}${rawBytes(event.bytes, bytes)}`;
    case 'dup-arrival':
      return `${t}  ${AT[event.to]}  LINK-DUP     ${event.messages.map((m) => describe(m, other(event.to))).join(' ; ')}${rawBytes(event.bytes, bytes)}`;
    case 'ack':
      return `${t}  ${AT[event.at]}  ack          ${describe(event.message, other(event.at))}: ${OUTCOME_TEXT[event.outcome]}`;
    case 'duplicate':
      return `${t}  ${AT[event.at]}  DUPLICATE    ${describe(event.message, other(event.at))}: seen before, dropped (its ACK entry refreshed)`;
    case 'state':
      return `${t}  ${AT[event.role]}  state        connection ${event.state}`;
  }
}

/**
 * One JSON object per event. `bytes` (default `full`) governs `hex` as in text:
 * `none` leaves it out, `short` keeps the first 16 bytes and adds `hexTruncated: true` when it cut.
 */
export function eventToJson(event: TraceEvent, options: FormatOptions = {}): object {
  const base = { t: event.timeUs / 1e6, event: event.kind };
  const bytes = options.bytes ?? 'full';
  switch (event.kind) {
    case 'send':
      return {
        ...base,
        from: event.from,
        ...jsonHex(event.bytes, bytes),
        messages: event.messages.map((m, i) => ({ ...messageToJson(m), note: NOTE_NAMES[event.notes[i]], transmission: event.transmission[i] })),
      };
    case 'drop':
      return { ...base, from: event.from, cause: event.cause, ...jsonHex(event.bytes, bytes), messages: event.messages.map(messageToJson) };
    case 'dup-arrival':
      return { ...base, to: event.to, ...jsonHex(event.bytes, bytes), messages: event.messages.map(messageToJson) };
    case 'ack':
      return { ...base, at: event.at, outcome: event.outcome, ack: messageToJson(event.message) };
    case 'duplicate':
      return { ...base, at: event.at, message: messageToJson(event.message) };
    case 'state':
      return { ...base, role: event.role, state: event.state };
  }
}

const NOTE_NAMES = ['first-send', 'retransmit', 'ack', 'dead-zone-ack'];

/** `sender` is the peer that put the message on the wire: the client's type 0x03 is its connect request. */
function describe(m: Located, sender: Role): string {
  return describeMessage(m, m.size, { sentByClient: sender === 'client' });
}

function other(role: Role): Role {
  return role === 'client' ? 'server' : 'client';
}

/** The ` | bytes` column of a line. */
function rawBytes(bytes: Uint8Array, mode: BytesMode): string {
  if (mode === 'none') return '';
  if (mode === 'short' && bytes.length > SHORT_BYTES) return ` | ${toHex(bytes.subarray(0, SHORT_BYTES))} …`;
  return ` | ${toHex(bytes)}`;
}

function jsonHex(bytes: Uint8Array, mode: BytesMode): { hex?: string; hexTruncated?: true } {
  if (mode === 'none') return {};
  if (mode === 'short' && bytes.length > SHORT_BYTES) return { hex: toHex(bytes.subarray(0, SHORT_BYTES), ''), hexTruncated: true };
  return { hex: toHex(bytes, '') };
}

function annotation(note: number, transmission: number): string {
  if (note === SendNote.Retransmit) return ` [RETRANSMIT #${transmission}]`;
  if (note === SendNote.StaleAck) return ' [DEAD-ZONE ACK, pass 2]';
  return '';
}
