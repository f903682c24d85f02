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

export function formatEvent(event: TraceEvent): string {
  const t = formatSeconds(event.timeUs).padStart(8);
  switch (event.kind) {
    case 'send': {
      const parts = event.messages.map((m, i) => describe(m) + annotation(event.notes[i], event.transmission[i]));
      return `${t}  ${ARROW[event.from]}   send         ${parts.join(' ; ')} | ${toHex(event.bytes)}`;
    }
    case 'drop':
      return `${t}  ${ARROW[event.from]}   DROP(${event.cause})`.padEnd(33) + `${event.messages.map(describe).join(' ; ')} | ${toHex(event.bytes)}`;
    case 'dup-arrival':
      return `${t}  ${AT[event.to]}  LINK-DUP     ${event.messages.map(describe).join(' ; ')} | ${toHex(event.bytes)}`;
    case 'ack':
      return `${t}  ${AT[event.at]}  ack          ${describe(event.message)}: ${OUTCOME_TEXT[event.outcome]}`;
    case 'duplicate':
      return `${t}  ${AT[event.at]}  DUPLICATE    ${describe(event.message)}: seen before, dropped (its ACK entry refreshed)`;
    case 'state':
      return `${t}  ${AT[event.role]}  state        connection ${event.state}`;
  }
}

export function eventToJson(event: TraceEvent): object {
  const base = { t: event.timeUs / 1e6, event: event.kind };
  switch (event.kind) {
    case 'send':
      return {
        ...base,
        from: event.from,
        hex: toHex(event.bytes, ''),
        messages: event.messages.map((m, i) => ({ ...messageToJson(m), note: NOTE_NAMES[event.notes[i]], transmission: event.transmission[i] })),
      };
    case 'drop':
      return { ...base, from: event.from, cause: event.cause, hex: toHex(event.bytes, ''), messages: event.messages.map(messageToJson) };
    case 'dup-arrival':
      return { ...base, to: event.to, hex: toHex(event.bytes, ''), messages: event.messages.map(messageToJson) };
    case 'ack':
      return { ...base, at: event.at, outcome: event.outcome, ack: messageToJson(event.message) };
    case 'duplicate':
      return { ...base, at: event.at, message: messageToJson(event.message) };
    case 'state':
      return { ...base, role: event.role, state: event.state };
  }
}

const NOTE_NAMES = ['first-send', 'retransmit', 'ack', 'dead-zone-ack'];

function describe(m: Located): string {
  return describeMessage(m, m.size);
}

function annotation(note: number, transmission: number): string {
  if (note === SendNote.Retransmit) return ` [RETRANSMIT #${transmission}]`;
  if (note === SendNote.StaleAck) return ' [DEAD-ZONE ACK, pass 2]';
  return '';
}
