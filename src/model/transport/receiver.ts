// The receive side of one peer's update (docs/sources.md 16): ProcessIncomingMessages
// reads every datagram waiting on the socket, makes or refreshes an ACK entry for
// each reliable message and routes ACKs to the retransmit queue; then
// DispatchReceivedMessages hands what was taken to its handlers, in order.
import {
  PEER_ID_UNASSIGNED,
  TYPE_ACK,
  TYPE_CONNECT_ACK,
  TYPE_DISCONNECT,
  ackFlagsFragment,
  ackFlagsLowType,
  isLowType,
  messageCountOf,
  messageOf,
  readHeaders,
} from '../../core/codec/index.js';
import type { AckMessage, DataMessage, Located, MessageHeader } from '../../core/codec/index.js';
import { DOUBLE_SEED_US, ZERO_US } from '../../core/engine/index.js';
import type { Micros } from '../../core/engine/index.js';
import type { AckOutbox } from './ack-outbox.js';
import type { PeerCounters } from './counters.js';
import type { TransportHooks } from './hooks.js';
import { Inbox } from './inbox.js';
import { ReceiveChannel } from './receive-channel.js';
import type { Delivery } from './receive-channel.js';
import type { RetransmitQueue } from './retransmit-queue.js';
import type { Role } from './roles.js';
import type { PlantedFaults } from './planted-bugs.js';
import type { TransportSwitches } from './switches.js';

export interface ReceiverParts {
  readonly role: Role;
  readonly switches: TransportSwitches;
  /** The planted bug's hooks (planted-bugs.ts), resolved when the peer was built. */
  readonly planted: PlantedFaults;
  readonly counters: PeerCounters;
  readonly ackOutbox: AckOutbox;
  readonly retransmitQueue: RetransmitQueue;
  readonly hooks: Pick<TransportHooks, 'acknowledged' | 'ackProcessed' | 'duplicateReceived'>;
  /** The peer's own handlers, then the game: a reliable message in order (dispatch step). */
  readonly dispatch: (delivery: Delivery) => void;
  /** An unreliable message, handed on at once: its type and where its payload lies (hot path: no object per message). */
  readonly unreliable: (type: number, datagram: Uint8Array, payloadStart: number, payloadEnd: number) => void;
}

export class Receiver {
  /** When the last datagram was read: the peer timeout counts from here. */
  lastActivityUs: Micros = DOUBLE_SEED_US;
  private readonly inbox = new Inbox();
  /** Taken in this update's receive step, handed on in its dispatch step. */
  private taken: Delivery[] = [];
  private readonly channels: [ReceiveChannel, ReceiveChannel];
  private readonly window: number | null;
  /** Test-only planted bugs' hooks (planted-bugs.ts); NO_PLANTED_FAULTS in a real run. */
  private readonly planted: PlantedFaults;
  /** One header per message of the datagram being read, reused: ACKs and unreliable messages cost no object. */
  private readonly headers: MessageHeader[] = [];
  /** The update time readAll reads at, for receiveWaiting (made once, not per update). */
  private readingUs: Micros = DOUBLE_SEED_US;
  private readonly receiveWaiting = (bytes: Uint8Array, uids: readonly number[]) =>
    this.receive(bytes, uids, this.readingUs);
  /** connectAck after-reply: the low seq of a Connect read without an ACK entry, ACKed one update later. */
  private connectToAck: number | null = null;
  private connectToAckUs: Micros = DOUBLE_SEED_US;

  constructor(private readonly parts: ReceiverParts) {
    // The time fields hold a double from their first store (time.ts), then start at zero.
    this.lastActivityUs = ZERO_US;
    this.readingUs = ZERO_US;
    this.connectToAckUs = ZERO_US;
    const take = (delivery: Delivery) => this.taken.push(delivery);
    const limitHit = () => parts.counters.receiveBufferLimitHits++;
    this.planted = parts.planted;
    this.channels = [
      new ReceiveChannel(false, take, limitHit, parts.planted),
      new ReceiveChannel(true, take, limitHit, parts.planted),
    ];
    this.window = parts.switches.sendWindow;
  }

  /** Puts an arrived datagram on the socket; false when the socket buffer is full (counted). */
  enqueue(bytes: Uint8Array, uids: readonly number[]): boolean {
    if (this.inbox.push(bytes, uids)) return true;
    this.parts.counters.inboxOverflows++;
    return false;
  }

  get waiting(): number {
    return this.inbox.length;
  }

  /**
   * connectAck after-reply (docs/sources.md 26: the server ACKs the Connect `01 00 00 02`,
   * though not in its connect reply): the entry is made in the update after the one
   * that read the Connect, so it leaves one datagram after the reply.
   */
  ackConnectLater(nowUs: Micros): void {
    if (this.connectToAck === null || nowUs <= this.connectToAckUs) return;
    this.parts.ackOutbox.onReliableReceived(this.connectToAck, true, false, 0, nowUs);
    this.connectToAck = null;
  }

  /** Receive step then dispatch step over everything waiting. */
  readAll(nowUs: Micros): void {
    this.readingUs = nowUs;
    this.inbox.drain(this.receiveWaiting);
    this.dispatch();
  }

  /** receiveTiming on-arrival: one datagram, received and dispatched at once. */
  readNow(bytes: Uint8Array, uids: readonly number[], nowUs: Micros): void {
    this.receive(bytes, uids, nowUs);
    this.dispatch();
  }

  /** ProcessIncomingMessages for one datagram: decode the real bytes, ACK every reliable message, route ACKs. */
  private receive(bytes: Uint8Array, uids: readonly number[], nowUs: Micros): void {
    const c = this.parts.counters;
    c.packetsReceived++;
    c.bytesReceived += bytes.length;
    // A malformed datagram is dropped whole: check it all before acting on any message.
    const headers = this.headers;
    if (readHeaders(bytes, headers) !== null) {
      c.malformedReceived++;
      return;
    }
    this.lastActivityUs = nowUs;
    const count = Math.min(messageCountOf(bytes), this.planted.messagesRead);
    for (let i = 0; i < count; i++) this.receiveMessage(headers[i], bytes, uids, i, nowUs);
  }

  private receiveMessage(
    header: MessageHeader,
    bytes: Uint8Array,
    uids: readonly number[],
    i: number,
    nowUs: Micros,
  ): void {
    if (header.type === TYPE_ACK) {
      const queue = this.parts.retransmitQueue;
      const flags = header.flags;
      let cleared = queue.onAck(
        ackFlagsLowType(flags),
        header.seq as number,
        ackFlagsFragment(flags),
        header.fragIndex ?? 0,
      );
      if (cleared === null && this.planted.ackAnyCategory)
        cleared = queue.onAck(
          !ackFlagsLowType(flags),
          header.seq as number,
          ackFlagsFragment(flags),
          header.fragIndex ?? 0,
        );
      if (cleared === null && this.planted.staleAckClearsOldest) cleared = queue.clearOldest();
      if (cleared) this.parts.hooks.acknowledged(cleared.uid);
      if (this.parts.hooks.ackProcessed)
        this.parts.hooks.ackProcessed(messageOf(bytes, header) as Located<AckMessage>, cleared, queue.lastAckOutcome);
      return;
    }
    if (!header.reliable) {
      if (header.fragment) return; // fragments are always reliable; a stray one is ignored
      this.parts.counters.deliveredUnreliable++;
      this.parts.unreliable(header.type, bytes, header.payloadStart, header.offset + header.size);
      return;
    }
    this.receiveReliable(
      messageOf(bytes, header) as Located<DataMessage>,
      i < uids.length ? uids[i] : -1,
      bytes[0],
      nowUs,
    );
  }

  private receiveReliable(message: Located<DataMessage>, uid: number, fromPeerId: number, nowUs: Micros): void {
    const { counters: c, switches } = this.parts;
    const low = isLowType(message.type);
    const channel = this.channels[low ? 1 : 0];
    c.reliableReceived++;
    if (this.window !== null && channel.pastWindow(message.seq as number, this.window)) {
      c.outOfWindow++; // a stale copy: taking or ACKing it would alias a future message
      return;
    }
    const conflict = channel.heldConflict(message);
    if (conflict) {
      c.wrapConflicts++;
      if (switches.wrapReceive === 'reject') return; // neither taken nor ACKed
      if (switches.wrapReceive === 'last-wins') channel.evict(message);
    }
    // The Connect comes from an address with no peer yet: the peer is made when it is
    // dispatched, so no ACK entry exists for it; the connect reply answers it (join capture).
    const connect =
      this.parts.role === 'server' && message.type === TYPE_CONNECT_ACK && fromPeerId === PEER_ID_UNASSIGNED;
    const unanswered = connect || (this.planted.ignoreDisconnect && message.type === TYPE_DISCONNECT);
    if (connect && switches.connectAck === 'after-reply' && this.connectToAck === null) {
      this.connectToAck = message.seq as number;
      this.connectToAckUs = nowUs;
    }
    // HandleReliableReceived runs for every reliable message, duplicates and fragments included.
    if (!unanswered && !(this.planted.skipDuplicateAck && channel.seen(message))) {
      const seq = this.planted.ackSeqLowByte ? (message.seq as number) & 0xff : (message.seq as number);
      this.parts.ackOutbox.onReliableReceived(
        seq,
        low,
        message.fragment,
        this.planted.ackFragmentsAsZero ? 0 : (message.fragIndex ?? 0),
        nowUs,
      );
    }
    if (this.planted.ignoreDisconnect && message.type === TYPE_DISCONNECT) return;
    // first-wins: the held message stays; the newcomer was ACKed and is dropped.
    const outcome = conflict && switches.wrapReceive === 'first-wins' ? 'duplicate' : channel.accept(message, uid);
    if (this.window !== null && channel.bufferedMessages > this.window)
      throw new Error(`transport: ${channel.bufferedMessages} messages buffered past the send window ${this.window}`);
    if (outcome === 'invalid') c.invalidFragments++;
    if (outcome === 'duplicate') {
      c.duplicatesReceived++;
      if (this.planted.redeliverDuplicates && !message.fragment)
        this.taken.push({
          type: message.type,
          low,
          reliable: true,
          seq: message.seq,
          payload: message.payload.slice(),
          uid,
        });
      if (this.parts.hooks.duplicateReceived) this.parts.hooks.duplicateReceived(message);
    }
  }

  /** DispatchReceivedMessages: hand this update's messages on, in the order they were taken. */
  private dispatch(): void {
    if (this.taken.length === 0) return;
    const batch = this.taken;
    this.taken = [];
    for (const delivery of batch) this.parts.dispatch(delivery);
  }

  /** Modelled bytes held for ordering or reassembly. */
  get modelledBytes(): number {
    return this.channels[0].modelledBytes + this.channels[1].modelledBytes;
  }

  auditBytes(): number {
    return this.channels[0].auditBytes() + this.channels[1].auditBytes();
  }

  /** Uids held in the receive buffers (not yet deliverable). */
  heldUids(): number[] {
    return [...this.channels[0].heldUids(), ...this.channels[1].heldUids()];
  }

  /** The expected (next to deliver) seq of a category. */
  expectedSeq(low: boolean): number {
    return this.channels[low ? 1 : 0].expected;
  }

  /** Peer gone: the socket, the dispatch list and both receive buffers are emptied. */
  clear(): void {
    this.inbox.clear();
    this.taken = [];
    this.channels[0].clear();
    this.channels[1].clear();
  }
}
