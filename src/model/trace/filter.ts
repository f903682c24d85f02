// `--filter EXPR` for traces: terms joined by commas or spaces, all of which must
// hold. `key=value`, bare `key` (true) or `!key` (false). Message terms match when
// some message of the event satisfies all of them.
import { TYPE_ACK, TYPE_NAMES, ackFlagsFragment, ackFlagsLowType, isLowType } from '../../core/codec/index.js';
import type { Located } from '../../core/codec/index.js';
import { SendNote } from '../transport/index.js';
import type { TraceEvent } from './events.js';
import { eventMessages } from './events.js';

type MessageTest = (m: Located, note: number | undefined) => boolean;
type EventTest = (e: TraceEvent) => boolean;

export interface TraceFilter {
  readonly events: EventTest[];
  readonly messages: MessageTest[];
}

export class FilterError extends Error {
  override readonly name = 'FilterError';
}

const EVENT_KINDS = ['send', 'drop', 'dup-arrival', 'ack', 'duplicate', 'state'];
const TYPE_BY_NAME = new Map(Object.entries(TYPE_NAMES).map(([byte, name]) => [name, Number(byte)]));
const BOOLEAN_KEYS: Record<string, MessageTest> = {
  fragment: (m) => (m.type === TYPE_ACK ? ackFlagsFragment(m.flags) : m.fragment),
  reliable: (m) => m.type !== TYPE_ACK && m.reliable,
  lowType: (m) => (m.type === TYPE_ACK ? ackFlagsLowType(m.flags) : isLowType(m.type)),
  retransmit: (_m, note) => note === SendNote.Retransmit,
  deadZone: (_m, note) => note === SendNote.StaleAck,
};
const KEYS = ['event', 'type', 'seq', 'frag', 'fragIndex', ...Object.keys(BOOLEAN_KEYS)];

export function parseFilter(expression: string): TraceFilter {
  const filter: TraceFilter = { events: [], messages: [] };
  for (const term of expression.split(/[\s,]+/).filter(Boolean)) {
    const eq = term.indexOf('=');
    if (eq < 0) {
      const negate = term.startsWith('!');
      const key = negate ? term.slice(1) : term;
      const test = BOOLEAN_KEYS[key];
      if (!test)
        throw new FilterError(`"${term}": ${KEYS.includes(key) ? `${key} needs a value (${key}=…)` : unknownKey(key)}`);
      filter.messages.push(negate ? (m, n) => !test(m, n) : test);
      continue;
    }
    const key = term.slice(0, eq);
    const value = term.slice(eq + 1);
    switch (key) {
      case 'event':
        if (!EVENT_KINDS.includes(value)) throw new FilterError(`"${term}": event is one of ${EVENT_KINDS.join(', ')}`);
        filter.events.push((e) => e.kind === value);
        break;
      case 'type': {
        const byte = TYPE_BY_NAME.get(value) ?? (/^(0x[0-9a-f]+|\d+)$/i.test(value) ? Number(value) : undefined);
        if (byte === undefined || !(byte in TYPE_NAMES))
          throw new FilterError(`"${term}": type is one of ${[...TYPE_BY_NAME.keys()].join(', ')} or a type byte`);
        filter.messages.push((m) => m.type === byte);
        break;
      }
      case 'seq': {
        const seq = wholeNumber(term, value, 0xffff);
        filter.messages.push((m) => m.seq === seq);
        break;
      }
      case 'frag':
      case 'fragIndex': {
        const index = wholeNumber(term, value, 0xff);
        filter.messages.push((m) => m.fragIndex === index);
        break;
      }
      default:
        if (key in BOOLEAN_KEYS) {
          if (value !== 'true' && value !== 'false') throw new FilterError(`"${term}": ${key} is true or false`);
          const test = BOOLEAN_KEYS[key];
          filter.messages.push(value === 'true' ? test : (m, n) => !test(m, n));
          break;
        }
        throw new FilterError(`"${term}": ${unknownKey(key)}`);
    }
  }
  return filter;
}

export function matches(filter: TraceFilter, event: TraceEvent): boolean {
  if (!filter.events.every((test) => test(event))) return false;
  if (filter.messages.length === 0) return true;
  const notes = event.kind === 'send' ? event.notes : [];
  return eventMessages(event).some((m, i) => filter.messages.every((test) => test(m, notes[i])));
}

function wholeNumber(term: string, value: string, max: number): number {
  if (!/^\d+$/.test(value) || Number(value) > max)
    throw new FilterError(`"${term}": expected a whole number 0..${max}`);
  return Number(value);
}

function unknownKey(key: string): string {
  return `unknown field "${key}" (known: ${KEYS.join(', ')})`;
}
