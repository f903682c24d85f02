// The retransmit queue: reliable messages sent and awaiting their ACK
// (fragmented-reliable-ack-bug-analysis.md, "Retransmit Timer" and "HandleACK").
// Candidate fragment-ACK causes (c), (d) and (e) of docs/sources.md 14 live here.
//
// Entries wait in a heap keyed by the time they fall due; a due entry moves to a
// heap keyed by queue order. An update therefore visits only due entries, in
// queue order, and stops at the first that does not fit, as the stock loop does;
// entries that are not due cost nothing however long the queue.
import { messageSize, packKeyOf } from '../../core/codec/index.js';
import { micros, msToUs } from '../../core/engine/index.js';
import type { Micros } from '../../core/engine/index.js';
import { retransmitIntervalUs } from './backoff.js';
import type { PeerCounters } from './counters.js';
import { IntervalPeaks } from './interval-peaks.js';
import type { GiveUpLimit } from './end-cause.js';
import { SendNote } from './datagram-builder.js';
import type { DatagramBuilder } from './datagram-builder.js';
import { IntMap, KeyedHeap, heapNode } from '../../core/containers/index.js';
import type { HeapNode } from '../../core/containers/index.js';
import { dataMessageBytes } from './memory.js';
import { cloneOutgoing } from './outgoing.js';
import type { OutgoingMessage } from './outgoing.js';
import { OutstandingSeqs } from './outstanding.js';
import { seqDistance } from './seq.js';
import { NO_PLANTED_FAULTS, plantedPolicy } from './planted-bugs.js';
import type { PlantedFaults } from './planted-bugs.js';
import type { RetransmitPolicy, TransportParams, TransportSwitches } from './switches.js';

/** What the queue reports back to its owner. */
export interface RetransmitEvents {
  /** The sender stopped retrying this message: at a limit, or (null) because the queue was cleared. */
  gaveUp(message: OutgoingMessage, limit: GiveUpLimit | null): void;
}

/** Why an ACK did or did not clear an entry; traces print it. */
export type AckOutcome = 'matched' | 'queue-empty' | 'no-entry' | 'rejected-fragment';

/**
 * A queued message. The slot is itself its timer's heap node: in `waiting` (key:
 * first instant it is due) or, once due, in `due` (key: queue order). One object
 * per message: the timer heaps add no garbage to the hot path.
 */
interface Slot extends HeapNode<Slot> {
  readonly id: number;
  readonly message: OutgoingMessage;
  inDue: boolean;
  /** In `expiring` (key: first instant past the age limit) only when an age limit is set. */
  readonly expiry: HeapNode<Slot> | null;
  /** Queue order: a doubly linked list, so removal is O(1) and allocates nothing. */
  prev: Slot | null;
  next: Slot | null;
  /** The next queued slot with the same match key (several only with re-entry). */
  sameKeyNext: Slot | null;
}

export class RetransmitQueue {
  /** Outcome of the last onAck call. */
  lastAckOutcome: AckOutcome = 'matched';
  /** Entries looked at by sendDue so far: proves an update visits only due entries. */
  visits = 0;
  /** Queue order, oldest first. */
  private head: Slot | null = null;
  private tail: Slot | null = null;
  private count = 0;
  /** Packed message key (codec packKeyOf) -> the oldest slot holding it; the rest follow by sameKeyNext. */
  private readonly byMatchKey = new IntMap<Slot>();
  private readonly waiting = new KeyedHeap<Slot>();
  private readonly due = new KeyedHeap<Slot>();
  private readonly expiring = new KeyedHeap<Slot>();
  /** Send window bases per category [high, low]; only kept when a window is set. */
  private readonly outstanding: [OutstandingSeqs, OutstandingSeqs] | null;
  private nextId = 0;
  private bytes = 0;
  private readonly policy: RetransmitPolicy;
  private readonly reentry: boolean;
  private readonly sendAllWhenAnyDue: boolean;
  private readonly rejectFragmentAcks: boolean;
  private readonly maxAgeUs: Micros;
  private readonly plantedFragmentsOnce: boolean;
  private readonly plantedSlots: number;
  private readonly plantedSentOnce: boolean;

  constructor(
    switches: TransportSwitches,
    private readonly params: TransportParams,
    private readonly counters: PeerCounters,
    private readonly events: RetransmitEvents,
    /** Raised beside the running maximum: the charts' per-second peaks (interval-peaks.ts). */
    private readonly peaks: IntervalPeaks = new IntervalPeaks(),
    /** The planted bug's hooks (planted-bugs.ts), resolved when the peer was built. */
    planted: PlantedFaults = NO_PLANTED_FAULTS,
  ) {
    this.policy = plantedPolicy(switches.retransmit, planted);
    this.reentry = switches.fragmentAckCause === 'retransmit-reentry';
    this.sendAllWhenAnyDue = switches.fragmentAckCause === 'retransmit-all';
    this.rejectFragmentAcks = switches.fragmentAckCause === 'matcher-rejects-fragments';
    this.maxAgeUs = maxMessageAgeUs(switches, params);
    this.plantedFragmentsOnce = planted.fragmentsSentOnce;
    this.plantedSlots = planted.retransmitSlots;
    // One flag on the add path: a run without these planted bugs pays one boolean test per message.
    this.plantedSentOnce = this.plantedFragmentsOnce || this.plantedSlots !== Number.POSITIVE_INFINITY;
    this.window = switches.sendWindow;
    this.outstanding = switches.sendWindow === null ? null : [new OutstandingSeqs(), new OutstandingSeqs()];
  }

  private readonly window: number | null;

  get size(): number {
    return this.count;
  }

  get modelledBytes(): number {
    return this.bytes;
  }

  /**
   * Send window: may a first send of `seq` go out now? True
   * unless it is `sendWindow` or more seqs past the oldest unacknowledged one.
   */
  inWindow(low: boolean, seq: number): boolean {
    if (this.outstanding === null || this.window === null) return true;
    const oldest = this.outstanding[low ? 1 : 0].oldest();
    return oldest === null || seqDistance(oldest, seq) < this.window;
  }

  /** After a first send (docs/sources.md 8.3): reliable messages move here. */
  add(message: OutgoingMessage, nowUs: Micros): boolean {
    if (!this.inWindow(message.low, message.seq as number))
      throw new Error(`retransmit: seq ${message.seq} sent outside the send window`);
    message.firstSendUs = nowUs;
    message.lastSendUs = nowUs;
    message.retransmitCount = 0;
    message.intervalUs = retransmitIntervalUs(this.policy, 0);
    if (this.plantedSentOnce && this.sentOnce(message)) return true;
    return this.insert(message);
  }

  /** Planted fragment-sent-once and retransmit-queue-16 (test-only): sent once, never kept for re-sending. */
  private sentOnce(message: OutgoingMessage): boolean {
    return (message.fragment && this.plantedFragmentsOnce) || this.count >= this.plantedSlots;
  }

  private insert(message: OutgoingMessage): boolean {
    if (message.seq === null) throw new Error('retransmit: an unreliable message cannot wait for an ACK');
    if (this.count >= this.params.retransmitQueueLimit) {
      this.counters.sendRejected++;
      this.counters.retransmitQueueFull++;
      return false;
    }
    const id = this.nextId++;
    const hasAgeLimit = this.maxAgeUs !== Number.POSITIVE_INFINITY;
    const slot = {
      key: 0,
      tie: 0,
      pos: -1,
      id,
      message,
      inDue: false,
      expiry: null,
      prev: this.tail,
      next: null,
      sameKeyNext: null,
    } as { -readonly [K in keyof Slot]: Slot[K] };
    slot.item = slot;
    if (hasAgeLimit) slot.expiry = heapNode<Slot>(slot);
    if (this.tail === null) this.head = slot;
    else this.tail.next = slot;
    this.tail = slot;
    this.count++;
    const key = matchKeyOf(message);
    let same = this.byMatchKey.get(key);
    if (same === undefined) this.byMatchKey.set(key, slot);
    else {
      while (same.sameKeyNext !== null) same = same.sameKeyNext;
      same.sameKeyNext = slot;
    }
    this.outstanding?.[message.low ? 1 : 0].add(message.seq as number);
    this.bytes += dataMessageBytes(message.payload.length);
    this.wait(slot);
    if (slot.expiry !== null) this.expiring.push(slot.expiry, message.firstSendUs + this.maxAgeUs + 1, id);
    if (this.count > this.counters.retransmitQueueMax) this.counters.retransmitQueueMax = this.count;
    if (this.count > this.peaks.retransmitQueue) this.peaks.retransmitQueue = this.count;
    return true;
  }

  /** Timers are strict (FUN_006b8700: now - lastSend > interval), so an entry is due one µs after. */
  private wait(slot: Slot): void {
    const message = slot.message;
    this.waiting.push(slot, message.lastSendUs + message.intervalUs + 1, slot.id);
    slot.inDue = false;
  }

  /**
   * Send-cycle step 2: entries whose timer expired, in queue order, until one
   * does not fit. Entries past the age limit are dropped first.
   */
  sendDue(nowUs: Micros, out: DatagramBuilder): void {
    for (let node = this.expiring.peek(); node !== undefined && node.key <= nowUs; node = this.expiring.peek()) {
      this.giveUp(node.item, 'message-age');
    }
    for (let node = this.waiting.peek(); node !== undefined && node.key <= nowUs; node = this.waiting.peek()) {
      this.waiting.remove(node);
      this.due.push(node, node.item.id, 0);
      node.item.inDue = true;
    }
    if (this.due.size === 0) return;
    // Cause (d): any expiry makes the loop send every entry, due or not.
    if (this.sendAllWhenAnyDue) return this.sendEvery(nowUs, out);
    const clones: OutgoingMessage[] = [];
    for (let node = this.due.peek(); node !== undefined; node = this.due.peek()) {
      const slot = node.item;
      this.visits++;
      if (this.atRetryLimit(slot)) {
        this.giveUp(slot, 'retry-limit');
        continue;
      }
      if (!out.tryAdd(slot.message, messageSize(slot.message), slot.message.uid, SendNote.Retransmit)) break;
      this.due.remove(node);
      this.retransmitted(slot, nowUs, clones);
    }
    this.insertClones(clones);
  }

  private sendEvery(nowUs: Micros, out: DatagramBuilder): void {
    const clones: OutgoingMessage[] = [];
    for (const slot of this.slotsInOrder()) {
      this.visits++;
      if (this.atRetryLimit(slot)) {
        this.giveUp(slot, 'retry-limit');
        continue;
      }
      if (!out.tryAdd(slot.message, messageSize(slot.message), slot.message.uid, SendNote.Retransmit)) break;
      (slot.inDue ? this.due : this.waiting).remove(slot);
      this.retransmitted(slot, nowUs, clones);
    }
    this.insertClones(clones);
  }

  private atRetryLimit(slot: Slot): boolean {
    return this.policy.retryLimit !== null && slot.message.retransmitCount >= this.policy.retryLimit;
  }

  /** The entry went out again: new timer, counters, and cause (c)'s re-entry copy. */
  private retransmitted(slot: Slot, nowUs: Micros, clones: OutgoingMessage[]): void {
    const message = slot.message;
    message.retransmitCount++;
    message.lastSendUs = nowUs;
    message.intervalUs = retransmitIntervalUs(this.policy, message.retransmitCount);
    this.wait(slot);
    this.counters.retransmits++;
    if (message.fragment) {
      this.counters.fragmentRetransmits++;
      // Cause (c): the retransmitted fragment is appended to the queue again.
      if (this.reentry) clones.push(cloneOutgoing(message));
    }
  }

  private insertClones(clones: OutgoingMessage[]): void {
    for (const clone of clones) {
      if (this.insert(clone)) this.counters.retransmitReentries++;
    }
  }

  private giveUp(slot: Slot, limit: GiveUpLimit | null): void {
    this.removeSlot(slot);
    this.counters.gaveUp++;
    this.events.gaveUp(slot.message, limit);
  }

  /**
   * HandleACK: remove the first entry matching category, seq and fragment status
   * (and index when both are fragments), then stop. Returns the removed entry.
   */
  onAck(low: boolean, seq: number, fragment: boolean, fragIndex: number): OutgoingMessage | null {
    const c = this.counters;
    c.acksReceived++;
    const key = packKeyOf(low, seq, fragment, fragIndex);
    if (this.count === 0) {
      c.acksOnEmptyQueue++;
      return this.miss('queue-empty');
    }
    // Cause (e): the matcher never accepts a fragmented entry, whatever the ACK says.
    if (fragment && this.rejectFragmentAcks)
      return this.miss(this.byMatchKey.has(key) ? 'rejected-fragment' : 'no-entry');
    const slot = this.byMatchKey.get(key);
    if (slot === undefined) return this.miss('no-entry');
    this.removeSlot(slot);
    c.acksMatched++;
    this.lastAckOutcome = 'matched';
    return slot.message;
  }

  /** Planted stale-ack-clears-oldest: an unmatched ACK takes the oldest entry (test-only). */
  clearOldest(): OutgoingMessage | null {
    const slot = this.head;
    if (slot === null) return null;
    this.removeSlot(slot);
    return slot.message;
  }

  /** Removes a non-fragment entry answered by something other than an ACK (the Connect, by the connect reply). */
  answered(low: boolean, seq: number): OutgoingMessage | null {
    const slot = this.byMatchKey.get(packKeyOf(low, seq, false, 0));
    if (slot === undefined) return null;
    this.removeSlot(slot);
    return slot.message;
  }

  private miss(outcome: AckOutcome): null {
    this.counters.acksUnmatched++;
    this.lastAckOutcome = outcome;
    return null;
  }

  /** True while any copy of (category, seq) is still queued: the message is unacknowledged. */
  hasSeq(low: boolean, seq: number, fragment: boolean, fragIndex: number): boolean {
    return this.byMatchKey.has(packKeyOf(low, seq, fragment, fragIndex));
  }

  /** The oldest message still queued (null: none). */
  oldest(): OutgoingMessage | null {
    return this.head === null ? null : this.head.message;
  }

  /** Everything still queued, in queue order. */
  *messages(): IterableIterator<OutgoingMessage> {
    for (let slot = this.head; slot !== null; slot = slot.next) yield slot.message;
  }

  /** Drops everything (peer gone); each message is reported as given up. */
  clear(): void {
    for (const slot of this.slotsInOrder()) this.giveUp(slot, null);
  }

  private unlinkMatchKey(slot: Slot): void {
    const key = matchKeyOf(slot.message);
    const first = this.byMatchKey.get(key);
    if (first === slot) {
      if (slot.sameKeyNext === null) this.byMatchKey.delete(key);
      else this.byMatchKey.set(key, slot.sameKeyNext);
    } else {
      let before: Slot | null = first ?? null;
      while (before !== null && before.sameKeyNext !== slot) before = before.sameKeyNext;
      if (before === null) throw new Error(`retransmit: entry ${slot.id} missing from its match key`);
      before.sameKeyNext = slot.sameKeyNext;
    }
    slot.sameKeyNext = null;
  }

  /** A snapshot, for walks that remove as they go (rare switches and shutdown). */
  private slotsInOrder(): Slot[] {
    const slots: Slot[] = [];
    for (let slot = this.head; slot !== null; slot = slot.next) slots.push(slot);
    return slots;
  }

  private removeSlot(slot: Slot): void {
    const { id, message } = slot;
    if (slot.prev === null ? this.head !== slot : slot.prev.next !== slot)
      throw new Error(`retransmit: entry ${id} is not queued`);
    if (slot.prev === null) this.head = slot.next;
    else slot.prev.next = slot.next;
    if (slot.next === null) this.tail = slot.prev;
    else slot.next.prev = slot.prev;
    slot.prev = null;
    slot.next = null;
    this.count--;
    (slot.inDue ? this.due : this.waiting).remove(slot);
    if (slot.expiry !== null && slot.expiry.pos !== -1) this.expiring.remove(slot.expiry);
    this.unlinkMatchKey(slot);
    this.outstanding?.[message.low ? 1 : 0].remove(message.seq as number);
    this.bytes -= dataMessageBytes(message.payload.length);
    if (this.bytes < 0) throw new Error('retransmit: modelled bytes below zero');
  }
}

function matchKeyOf(message: OutgoingMessage): number {
  return packKeyOf(message.low, message.seq as number, message.fragment, message.fragIndex ?? 0);
}

/**
 * The age past which an unACKed message is dropped: the explicit maxMessageAgeMs,
 * and the peer timeout when messageLifetime is peer-timeout
 * (fragmented-reliable-ack-bug-analysis.md; docs/sources.md 20). Infinity = never.
 */
export function maxMessageAgeUs(switches: TransportSwitches, params: TransportParams): Micros {
  const explicit = params.maxMessageAgeMs === null ? Number.POSITIVE_INFINITY : params.maxMessageAgeMs;
  const lifetime = switches.messageLifetime === 'peer-timeout' ? params.peerTimeoutMs : Number.POSITIVE_INFINITY;
  const ms = Math.min(explicit, lifetime);
  return ms === Number.POSITIVE_INFINITY ? micros(ms) : msToUs(ms);
}
