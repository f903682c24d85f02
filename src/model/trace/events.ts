// What a wire trace is made of: datagrams put on the wire or dropped by the
// link, and the receivers' verdicts on them (ACK matched or missed, duplicate).
import type { Located, MessageForm } from '../../core/codec/index.js';
import type { MicrosIn } from '../../core/engine/index.js';
import type { DropCause } from '../link/index.js';
import type { SendNote, ConnectionState, AckOutcome, Role } from '../transport/index.js';

interface Base {
  /** Simulated time in microseconds. */
  readonly timeUs: MicrosIn;
  /** The connection it happened on: the client's number in the scenario (1-based). */
  readonly client: number;
  /** The slot the server had given that client by then; null before it accepted the connection. */
  readonly slot: number | null;
}

/** A datagram leaving `from`; `notes` say why each message is in it. */
export interface SendEvent extends Base {
  readonly kind: 'send';
  readonly from: Role;
  readonly bytes: Uint8Array;
  readonly messages: readonly Located[];
  readonly notes: readonly SendNote[];
  /** Per message: how many times this (seq, fragment) was already on the wire from `from`. */
  readonly transmission: readonly number[];
  /** Per message, read from a capture: its wire form when not the stock one (docs/sources.md 30). */
  readonly forms?: readonly (MessageForm | null)[];
}

export interface DropEvent extends Base {
  readonly kind: 'drop';
  readonly from: Role;
  readonly bytes: Uint8Array;
  readonly messages: readonly Located[];
  readonly cause: DropCause;
}

/** A link-level duplicate copy of a datagram reached `to`. */
interface DuplicateArrivalEvent extends Base {
  readonly kind: 'dup-arrival';
  readonly to: Role;
  readonly bytes: Uint8Array;
  readonly messages: readonly Located[];
}

interface AckEvent extends Base {
  readonly kind: 'ack';
  /** The peer that received the ACK (the original sender of the message). */
  readonly at: Role;
  readonly message: Located;
  readonly outcome: AckOutcome;
}

/** A reliable message (or fragment) that `at` had already taken. */
interface DuplicateEvent extends Base {
  readonly kind: 'duplicate';
  readonly at: Role;
  readonly message: Located;
}

interface StateEvent extends Base {
  readonly kind: 'state';
  readonly role: Role;
  readonly state: ConnectionState;
}

export type TraceEvent = SendEvent | DropEvent | DuplicateArrivalEvent | AckEvent | DuplicateEvent | StateEvent;

/** The peer an event belongs to, for --peer. */
export function eventPeer(event: TraceEvent): Role {
  switch (event.kind) {
    case 'send':
    case 'drop':
      return event.from;
    case 'dup-arrival':
      return event.to;
    case 'ack':
    case 'duplicate':
      return event.at;
    case 'state':
      return event.role;
  }
}

/** The messages an event is about. */
export function eventMessages(event: TraceEvent): readonly Located[] {
  switch (event.kind) {
    case 'send':
    case 'drop':
    case 'dup-arrival':
      return event.messages;
    case 'ack':
    case 'duplicate':
      return [event.message];
    case 'state':
      return [];
  }
}
