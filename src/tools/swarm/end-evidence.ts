// What the link did to each message, recorded from the wire so that an end the link forced can be
// told from one the transport caused (docs/stock-and-fixed.md#the-fixed-mode-promise). Per connection and sending
// side, one record per message key (category, seq, fragment index): its copies sent and arrived,
// and the ACKs of it the other side sent and that arrived back. A first send starts a new record,
// so a record covers exactly one message's life: within it the key names that message alone (a
// fixed sender never reuses a seq while it is unACKed, docs/switches.md: sendWindow).
import {
  TYPE_ACK,
  TYPE_CONNECT_ACK,
  newMessageHeader,
  packedAckKeyAt,
  packedDataKeyAt,
  walkDatagram,
} from '../../core/codec/index.js';
import type { MessageHeader } from '../../core/codec/index.js';
import { LimitError } from '../../core/engine/index.js';
import type { Micros } from '../../core/engine/index.js';
import type { SessionObserver } from '../../model/session/index.js';
import { SendNote } from '../../model/transport/index.js';
import type { Role } from '../../model/transport/index.js';

/** Explicit bound on records per connection and side: two categories of u16 seqs, a few fragments each. */
const MAX_KEY_RECORDS = 1 << 20;

/** One message's life on the wire, from its first send. */
export interface KeyRecord {
  firstSentUs: number;
  copiesSent: number;
  copiesArrived: number;
  lastCopyArrivedUs: number;
  /** The earliest copy that reached the receiver with no ACK of it sent since (NaN: none). */
  unansweredSinceUs: number;
  acksSent: number;
  acksArrived: number;
  /** The first ACK (or, for a Connect, connect reply) that reached the sender (NaN: none). */
  firstAckArrivedUs: number;
}

/** The datagrams of one side of one connection. */
export interface SideRecords {
  readonly byKey: Map<number, KeyRecord>;
  /** Datagrams this side sent while the other side lived, the last one's time, and when the last reached it. */
  datagramsSent: number;
  lastSentUs: number;
  lastArrivedUs: number;
  /** The key of this side's Connect (a client's type-0x03 message before it has a slot), answered by the connect reply. */
  connectKey: number | null;
}

const other = (role: Role): Role => (role === 'server' ? 'client' : 'server');

function newSide(): SideRecords {
  return { byKey: new Map(), datagramsSent: 0, lastSentUs: -1, lastArrivedUs: -1, connectKey: null };
}

function newRecord(firstSentUs: number): KeyRecord {
  return {
    firstSentUs,
    copiesSent: 1,
    copiesArrived: 0,
    lastCopyArrivedUs: -1,
    unansweredSinceUs: Number.NaN,
    acksSent: 0,
    acksArrived: 0,
    firstAckArrivedUs: Number.NaN,
  };
}

export class EndEvidence {
  /** Per client: the records of the messages each side sent. */
  private readonly connections = new Map<number, Record<Role, SideRecords>>();
  /** Per client and role: when that end left a live state (first time only). */
  private readonly endedAt = new Map<string, number>();
  private readonly header: MessageHeader = newMessageHeader();

  sides(client: number): Record<Role, SideRecords> {
    let sides = this.connections.get(client);
    if (sides === undefined) {
      sides = { server: newSide(), client: newSide() };
      this.connections.set(client, sides);
    }
    return sides;
  }

  /** When `role` of client `client`'s connection ended (Infinity: it did not). */
  endOf(client: number, role: Role): number {
    return this.endedAt.get(`${client}:${role}`) ?? Number.POSITIVE_INFINITY;
  }

  /** The observer that feeds it: datagrams sent and arrived, and the ends. */
  observer(isEnded: (state: string) => boolean): SessionObserver {
    return {
      datagramSent: (timeUs, from, bytes, _uids, notes, client) => this.sent(timeUs, from, bytes, notes, client),
      datagramArrived: (timeUs, to, bytes, _duplicate, client) => this.arrived(timeUs, to, bytes, client),
      stateChanged: (timeUs, role, state, client) => {
        const key = `${client}:${role}`;
        if (isEnded(state) && !this.endedAt.has(key)) this.endedAt.set(key, timeUs);
      },
    };
  }

  private sent(timeUs: Micros, from: Role, bytes: Uint8Array, notes: readonly number[], client: number): void {
    const sides = this.sides(client);
    const own = sides[from];
    const remote = sides[other(from)];
    if (this.endOf(client, other(from)) > timeUs) {
      own.datagramsSent++;
      own.lastSentUs = timeUs;
    }
    let i = 0;
    walkDatagram(bytes, this.header, (h) => {
      const note = notes[i++];
      if (h.type === TYPE_ACK) {
        // An ACK of a message the other side sent.
        const record = remote.byKey.get(packedAckKeyAt(bytes, h.offset));
        if (record !== undefined) this.answered(record);
        return;
      }
      // The connect reply answers the client's Connect (no ACK ever does: the server has no peer for it yet).
      if (h.type === TYPE_CONNECT_ACK && from === 'server' && remote.connectKey !== null) {
        const record = remote.byKey.get(remote.connectKey);
        if (record !== undefined) this.answered(record);
      }
      if (!h.reliable) return;
      const key = packedDataKeyAt(bytes, h.offset);
      if (note === SendNote.FirstSend) {
        if (!own.byKey.has(key) && own.byKey.size >= MAX_KEY_RECORDS)
          throw new LimitError(`swarm evidence: more than ${MAX_KEY_RECORDS} message keys on one side of a connection`);
        own.byKey.set(key, newRecord(timeUs));
        if (h.type === TYPE_CONNECT_ACK && from === 'client' && bytes[0] === 0xff) own.connectKey = key;
      } else {
        const record = own.byKey.get(key);
        if (record !== undefined) record.copiesSent++;
      }
    });
  }

  private answered(record: KeyRecord): void {
    record.acksSent++;
    record.unansweredSinceUs = Number.NaN;
  }

  private arrived(timeUs: Micros, to: Role, bytes: Uint8Array, client: number): void {
    // What reaches an ended peer is read by no one: it is neither an answer nor a copy received.
    if (this.endOf(client, to) <= timeUs) return;
    const sides = this.sides(client);
    const own = sides[to];
    const remote = sides[other(to)];
    remote.lastArrivedUs = timeUs;
    walkDatagram(bytes, this.header, (h) => {
      if (h.type === TYPE_ACK) {
        // An ACK of a message `to` sent.
        const record = own.byKey.get(packedAckKeyAt(bytes, h.offset));
        if (record !== undefined) this.ackArrived(record, timeUs);
        return;
      }
      if (h.type === TYPE_CONNECT_ACK && to === 'client' && own.connectKey !== null) {
        const record = own.byKey.get(own.connectKey);
        if (record !== undefined) this.ackArrived(record, timeUs);
      }
      if (!h.reliable) return;
      const record = remote.byKey.get(packedDataKeyAt(bytes, h.offset));
      if (record === undefined) return;
      record.copiesArrived++;
      record.lastCopyArrivedUs = timeUs;
      if (Number.isNaN(record.unansweredSinceUs)) record.unansweredSinceUs = timeUs;
    });
  }

  private ackArrived(record: KeyRecord, timeUs: Micros): void {
    record.acksArrived++;
    if (Number.isNaN(record.firstAckArrivedUs)) record.firstAckArrivedUs = timeUs;
  }
}
