// Turns a run into trace events, as a SessionObserver. Events outside
// [fromUs, untilUs] are not kept, so a short window of a long run stays small.
// Each event names its connection: the client's number and, once the server
// has accepted it, its slot.
import { TYPE_ACK, ackBytes, decodeDatagram, isLowType } from '../../core/codec/index.js';
import type { AckMessage, DataMessage, Located } from '../../core/codec/index.js';
import type { DropCause } from '../link/index.js';
import type { SessionObserver } from '../session/index.js';
import { SendNote } from '../transport/index.js';
import type { ConnectionState, AckOutcome, Role } from '../transport/index.js';
import type { TraceEvent } from './events.js';

export interface CollectorOptions {
  readonly fromUs?: number;
  readonly untilUs?: number;
  /** Receives each event as it happens instead of (or as well as) keeping it. */
  readonly onEvent?: (event: TraceEvent) => void;
  /** Keep events in `events` (default true). */
  readonly keep?: boolean;
}

/** An event as the observer reports it, before the collector names its slot. */
type Unplaced<E> = E extends TraceEvent ? Omit<E, 'slot'> : never;

export class TraceCollector implements SessionObserver {
  readonly events: TraceEvent[] = [];
  /** The slot the server gave each client so far, in or out of the window. */
  private readonly slots = new Map<number, number>();
  /** Wire transmissions so far per connection, sender and message identity, to number retransmissions. */
  private readonly seen: Record<Role, Map<string, number>> = { server: new Map(), client: new Map() };
  private readonly fromUs: number;
  private readonly untilUs: number;

  constructor(private readonly options: CollectorOptions = {}) {
    this.fromUs = options.fromUs ?? 0;
    this.untilUs = options.untilUs ?? Number.POSITIVE_INFINITY;
  }

  datagramSent(
    timeUs: number,
    from: Role,
    bytes: Uint8Array,
    _uids: readonly number[],
    notes: readonly SendNote[],
    client: number,
  ): void {
    const messages = decode(bytes);
    // Count every transmission, inside the window or not, so numbering stays right.
    const transmission = messages.map((m, i) => {
      if (m.type === TYPE_ACK || !m.reliable) return 0;
      // Each connection has its own seq counters: the same seq on two connections is two messages.
      const key = `${client}:${isLowType(m.type) ? 'L' : 'H'}${m.seq}/${m.fragIndex ?? '-'}`;
      // A first send starts the count again: after a u16 wrap the seq belongs to a new message.
      const n = notes[i] === SendNote.FirstSend ? 0 : (this.seen[from].get(key) ?? 0);
      this.seen[from].set(key, n + 1);
      return n;
    });
    this.emit({ kind: 'send', timeUs, client, from, bytes, messages, notes: [...notes], transmission });
  }

  datagramDropped(timeUs: number, from: Role, bytes: Uint8Array, cause: DropCause, client: number): void {
    this.emit({ kind: 'drop', timeUs, client, from, bytes, messages: decode(bytes), cause });
  }

  connectionAccepted(_timeUs: number, client: number, slot: number): void {
    this.slots.set(client, slot);
  }

  /** Client `client`'s slot, or null before the server accepted it. */
  slotOf(client: number): number | null {
    return this.slots.get(client) ?? null;
  }

  datagramArrived(timeUs: number, to: Role, bytes: Uint8Array, duplicate: boolean, client: number): void {
    if (duplicate) this.emit({ kind: 'dup-arrival', timeUs, client, to, bytes, messages: decode(bytes) });
  }

  ackProcessed(
    timeUs: number,
    at: Role,
    ack: AckMessage,
    _cleared: unknown,
    outcome: AckOutcome,
    client: number,
  ): void {
    this.emit({
      kind: 'ack',
      timeUs,
      client,
      at,
      message: { ...ack, offset: -1, size: ackBytes(ack.fragIndex !== null) },
      outcome,
    });
  }

  duplicateReceived(timeUs: number, at: Role, message: Located<DataMessage>, client: number): void {
    this.emit({ kind: 'duplicate', timeUs, client, at, message });
  }

  stateChanged(timeUs: number, role: Role, state: ConnectionState, client: number): void {
    this.emit({ kind: 'state', timeUs, client, role, state });
  }

  private emit(unplaced: Unplaced<TraceEvent>): void {
    if (unplaced.timeUs < this.fromUs || unplaced.timeUs > this.untilUs) return;
    const event = { ...unplaced, slot: this.slotOf(unplaced.client) } as TraceEvent;
    if (this.options.keep !== false) this.events.push(event);
    this.options.onEvent?.(event);
  }
}

function decode(bytes: Uint8Array): readonly Located[] {
  const result = decodeDatagram(bytes);
  return result.ok ? result.datagram.messages : result.partial.messages;
}
