// SendHelper (fragmented-reliable-ack-bug-analysis.md, "Send Path"): everything that
// waits for its first send. It gives a message its category's next seq, fragments an
// oversize 0x32 payload, checks the first-send queue's limits, and keeps that queue, the
// one out-of-band keepalive slot and their modelled bytes. The peer decides whether the
// connection may send at all; this decides whether the message fits.
import { MAX_FRAGMENTS_PER_MESSAGE, MAX_UNFRAGMENTED_PAYLOAD_BYTES } from '../../core/codec/index.js';
import { TYPE_ACK, TYPE_GAME, isKnownType, isLowType } from '../../core/codec/index.js';
import type { DataType } from '../../core/codec/index.js';
import type { PeerCounters } from './counters.js';
import { SendNote } from './datagram-builder.js';
import type { DatagramBuilder } from './datagram-builder.js';
import { Fifo } from '../../core/containers/index.js';
import type { TransportHooks } from './hooks.js';
import type { KeepaliveShape } from './keepalive.js';
import { dataMessageBytes } from './memory.js';
import { OutgoingPool, newOutgoing } from './outgoing.js';
import type { OutgoingMessage } from './outgoing.js';
import { seqNext } from './seq.js';
import type { TransportParams } from './switches.js';

/** Would a payload of this type and size be split into fragments (and so forced reliable)? */
export function needsFragments(type: number, payloadBytes: number, fragmentChunkBytes: number): boolean {
  return type === TYPE_GAME && payloadBytes > fragmentChunkBytes;
}

/** How many fragments a payload is split into at this chunk size. */
export function fragmentCount(payloadBytes: number, chunkBytes: number): number {
  return Math.ceil(payloadBytes / chunkBytes);
}

/** Fragment `index`'s bytes: a view of the payload, the last one short. */
export function fragmentSlice(payload: Uint8Array, chunkBytes: number, index: number): Uint8Array {
  return payload.subarray(index * chunkBytes, Math.min(payload.length, (index + 1) * chunkBytes));
}

export class SendHelper {
  readonly firstSendQueue = new Fifo<OutgoingMessage>();
  /** A keepalive sent outside the queues (switch keepalive.path): it waits for room at a datagram's end. */
  readonly outOfBand: { message: OutgoingMessage | null } = { message: null };
  /** Send counters per category: [high, low] (peer+0x2A / +0x26). */
  readonly sendSeq = [0, 0];
  /** Modelled bytes of the first-send queue and the out-of-band slot (docs/sources.md 15). */
  modelledBytes = 0;
  private readonly outgoingPool = new OutgoingPool();

  constructor(
    private readonly params: TransportParams,
    private readonly counters: PeerCounters,
    private readonly hooks: TransportHooks,
  ) {}

  /** Queues the message, or its fragments under one seq; false (counted) if a limit refuses it. */
  queue(type: DataType, payload: Uint8Array, requestedReliable: boolean, ordered: boolean, uid: number): boolean {
    const chunk = this.params.fragmentChunkBytes;
    const fragmentIt = needsFragments(type, payload.length, chunk);
    const pieces = fragmentIt ? fragmentCount(payload.length, chunk) : 1;
    if (pieces > MAX_FRAGMENTS_PER_MESSAGE) return this.refuseAtLimit('unsendableRefused');
    if (this.firstSendQueue.length + pieces > this.params.firstSendQueueLimit)
      return this.refuseAtLimit('firstSendQueueFull');
    const reliable = requestedReliable || fragmentIt;
    if (reliable && !requestedReliable) this.counters.forcedReliable++;
    const category = isLowType(type) ? 1 : 0;
    const seq = reliable ? this.sendSeq[category] : null;
    if (!fragmentIt) {
      // Refuse what can never be encoded or fit a datagram, before a seq is spent.
      if (!isKnownType(type) || (type as number) === TYPE_ACK) return this.refuse();
      if (payload.length > MAX_UNFRAGMENTED_PAYLOAD_BYTES) return this.refuseAtLimit('unsendableRefused');
      this.enqueue(
        reliable
          ? newOutgoing(type, reliable, ordered, seq, payload, uid)
          : this.outgoingPool.unreliable(type, ordered, payload, uid),
      );
    } else {
      for (let i = 0; i < pieces; i++) {
        const slice = fragmentSlice(payload, chunk, i);
        this.enqueue(newOutgoing(type, reliable, ordered, seq, slice, uid, i, i === 0 ? pieces : null));
      }
    }
    if (reliable) this.sendSeq[category] = seqNext(this.sendSeq[category]);
    return true;
  }

  /** Puts a keepalive in the out-of-band slot; false (counted) while one still waits there. */
  holdOutOfBand(shape: KeepaliveShape, uid: number): boolean {
    if (this.outOfBand.message !== null) {
      this.counters.keepaliveSlotBusy++;
      return false;
    }
    const seq = shape.reliable ? this.sendSeq[1] : null;
    this.outOfBand.message = newOutgoing(shape.type, shape.reliable, shape.ordered, seq, shape.payload, uid);
    this.modelledBytes += dataMessageBytes(shape.payload.length); // waiting to be sent, like a queued message
    if (shape.reliable) this.sendSeq[1] = seqNext(this.sendSeq[1]);
    return true;
  }

  /** The datagram is on the wire: its unreliable first sends are done with (docs/sources.md 8.3). */
  recycleUnreliable(out: DatagramBuilder): void {
    const { messages, notes } = out;
    for (let i = 0; i < out.count; i++) {
      const message = messages[i];
      if (notes[i] === SendNote.FirstSend && message.type !== TYPE_ACK && !message.reliable && !message.fragment)
        this.outgoingPool.give(message as OutgoingMessage);
    }
  }

  refuse(): false {
    this.counters.sendRejected++;
    return false;
  }

  /** Walks the queue and the slot: the audit's count of what `modelledBytes` keeps incrementally. */
  auditBytes(): number {
    let bytes = 0;
    for (const message of this.firstSendQueue.values()) bytes += dataMessageBytes(message.payload.length);
    if (this.outOfBand.message !== null) bytes += dataMessageBytes(this.outOfBand.message.payload.length);
    return bytes;
  }

  /** The connection ended: every reliable message still waiting is given up, in queue order, then the slot's. */
  giveUpWaiting(): void {
    for (const message of this.firstSendQueue.clear()) {
      if (message.reliable) {
        this.counters.gaveUp++;
        this.hooks.gaveUp(message.uid);
      }
    }
    this.modelledBytes = 0;
    const pending = this.outOfBand.message;
    this.outOfBand.message = null;
    if (pending !== null && pending.reliable) {
      this.counters.gaveUp++;
      this.hooks.gaveUp(pending.uid);
    }
  }

  private enqueue(message: OutgoingMessage): void {
    this.firstSendQueue.push(message);
    this.modelledBytes += dataMessageBytes(message.payload.length);
    if (this.firstSendQueue.length > this.counters.firstSendQueueMax)
      this.counters.firstSendQueueMax = this.firstSendQueue.length;
  }

  /** A refusal at one of the explicit limits: counted as a rejection and as a hit of that limit. */
  private refuseAtLimit(limit: 'unsendableRefused' | 'firstSendQueueFull'): false {
    this.counters[limit]++;
    return this.refuse();
  }
}
