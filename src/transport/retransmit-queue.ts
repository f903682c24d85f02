// The retransmit queue: reliable messages sent and awaiting their ACK
// (fragmented-reliable-ack-bug-analysis.md, "Retransmit Timer" and "HandleACK").
// Candidate fragment-ACK causes (c), (d) and (e) of DECISIONS.md 14 live here.
import { messageSize } from '../codec/index.js';
import { retransmitIntervalUs } from './backoff.js';
import type { PeerCounters } from './counters.js';
import { SendNote } from './datagram-builder.js';
import type { DatagramBuilder } from './datagram-builder.js';
import { dataMessageBytes } from './memory.js';
import { cloneOutgoing } from './outgoing.js';
import type { OutgoingMessage } from './outgoing.js';
import type { RetransmitPolicy, TransportParams, TransportSwitches } from './switches.js';

/** What the queue reports back to its owner. */
export interface RetransmitEvents {
  /** The sender stopped retrying this message (retry or age limit). */
  gaveUp(message: OutgoingMessage): void;
}

/** Why an ACK did or did not clear an entry; traces print it. */
export type AckOutcome = 'matched' | 'queue-empty' | 'no-entry' | 'rejected-fragment';

export class RetransmitQueue {
  /** Outcome of the last onAck call. */
  lastAckOutcome: AckOutcome = 'matched';
  /** Queue order = Map insertion order; removal is O(1). */
  private readonly entries = new Map<number, OutgoingMessage>();
  /** Match key -> queue ids holding it, oldest first (several with re-entry). */
  private readonly byMatchKey = new Map<number, number[]>();
  private nextId = 0;
  private bytes = 0;
  /** No entry is due before this; lets quiet updates skip the walk. */
  private earliestDueUs = Number.POSITIVE_INFINITY;
  private readonly policy: RetransmitPolicy;
  private readonly reentry: boolean;
  private readonly sendAllWhenAnyDue: boolean;
  private readonly rejectFragmentAcks: boolean;
  private readonly maxAgeUs: number;

  constructor(
    switches: TransportSwitches,
    private readonly params: TransportParams,
    private readonly counters: PeerCounters,
    private readonly events: RetransmitEvents,
  ) {
    this.policy = switches.retransmit;
    this.reentry = switches.fragmentAckCause === 'retransmit-reentry';
    this.sendAllWhenAnyDue = switches.fragmentAckCause === 'retransmit-all';
    this.rejectFragmentAcks = switches.fragmentAckCause === 'matcher-rejects-fragments';
    this.maxAgeUs = params.maxMessageAgeMs === null ? Number.POSITIVE_INFINITY : params.maxMessageAgeMs * 1000;
  }

  get size(): number {
    return this.entries.size;
  }

  get modelledBytes(): number {
    return this.bytes;
  }

  /** After a first send (DECISIONS.md 8.3): reliable messages move here. */
  add(message: OutgoingMessage, nowUs: number): boolean {
    message.firstSendUs = nowUs;
    message.lastSendUs = nowUs;
    message.retransmitCount = 0;
    message.intervalUs = retransmitIntervalUs(this.policy, 0);
    return this.insert(message);
  }

  private insert(message: OutgoingMessage): boolean {
    if (this.entries.size >= this.params.retransmitQueueLimit) {
      this.counters.sendRejected++;
      return false;
    }
    const id = this.nextId++;
    this.entries.set(id, message);
    const key = matchKey(message.low, message.seq as number, message.fragment, message.fragIndex ?? 0);
    const ids = this.byMatchKey.get(key);
    if (ids) ids.push(id);
    else this.byMatchKey.set(key, [id]);
    this.bytes += dataMessageBytes(message.payload.length);
    const due = Math.min(message.lastSendUs + message.intervalUs, message.firstSendUs + this.maxAgeUs);
    if (due < this.earliestDueUs) this.earliestDueUs = due;
    if (this.entries.size > this.counters.retransmitQueueMax) this.counters.retransmitQueueMax = this.entries.size;
    return true;
  }

  /**
   * Send-cycle step 2: entries whose timer expired (now - lastSend > interval),
   * in queue order, until one does not fit.
   */
  sendDue(nowUs: number, out: DatagramBuilder): void {
    if (nowUs <= this.earliestDueUs) return;
    let earliest = Number.POSITIVE_INFINITY;
    // Cause (d): any expiry makes the loop send every entry.
    const sendAll = this.sendAllWhenAnyDue && this.anyDue(nowUs);
    let full = false;
    const clones: OutgoingMessage[] = [];
    for (const [id, message] of this.entries) {
      if (nowUs - message.firstSendUs > this.maxAgeUs) {
        this.removeId(id, message);
        this.counters.gaveUp++;
        this.events.gaveUp(message);
        continue;
      }
      const due = nowUs - message.lastSendUs > message.intervalUs;
      if (!full && (due || sendAll)) {
        if (this.policy.retryLimit !== null && message.retransmitCount >= this.policy.retryLimit) {
          this.removeId(id, message);
          this.counters.gaveUp++;
          this.events.gaveUp(message);
          continue;
        }
        if (!out.tryAdd(message, messageSize(message), message.uid, SendNote.Retransmit)) {
          full = true;
        } else {
          message.retransmitCount++;
          message.lastSendUs = nowUs;
          message.intervalUs = retransmitIntervalUs(this.policy, message.retransmitCount);
          this.counters.retransmits++;
          if (message.fragment) {
            this.counters.fragmentRetransmits++;
            // Cause (c): the retransmitted fragment is appended to the queue again.
            if (this.reentry) clones.push(cloneOutgoing(message));
          }
        }
      }
      // The next look is due at the next retransmit or at the age limit, whichever comes first.
      const nextDue = Math.min(message.lastSendUs + message.intervalUs, message.firstSendUs + this.maxAgeUs);
      if (nextDue < earliest) earliest = nextDue;
    }
    this.earliestDueUs = earliest;
    for (const clone of clones) {
      if (this.insert(clone)) this.counters.retransmitReentries++;
    }
  }

  /**
   * HandleACK: remove the first entry matching category, seq and fragment status
   * (and index when both are fragments), then stop. Returns the removed entry.
   */
  onAck(low: boolean, seq: number, fragment: boolean, fragIndex: number): OutgoingMessage | null {
    const c = this.counters;
    c.acksReceived++;
    const key = matchKey(low, seq, fragment, fragIndex);
    if (this.entries.size === 0) {
      c.acksOnEmptyQueue++;
      return this.miss('queue-empty');
    }
    // Cause (e): the matcher never accepts a fragmented entry, whatever the ACK says.
    if (fragment && this.rejectFragmentAcks) return this.miss(this.byMatchKey.has(key) ? 'rejected-fragment' : 'no-entry');
    const ids = this.byMatchKey.get(key);
    if (!ids) return this.miss('no-entry');
    const id = ids[0];
    const message = this.entries.get(id) as OutgoingMessage;
    this.removeId(id, message);
    c.acksMatched++;
    this.lastAckOutcome = 'matched';
    return message;
  }

  private miss(outcome: AckOutcome): null {
    this.counters.acksUnmatched++;
    this.lastAckOutcome = outcome;
    return null;
  }

  /** True while any copy of (category, seq) is still queued: the message is unacknowledged. */
  hasSeq(low: boolean, seq: number, fragment: boolean, fragIndex: number): boolean {
    return this.byMatchKey.has(matchKey(low, seq, fragment, fragIndex));
  }

  /** Everything still queued, in queue order. */
  *messages(): IterableIterator<OutgoingMessage> {
    yield* this.entries.values();
  }

  /** Drops everything (peer gone); each message is reported as given up. */
  clear(): void {
    for (const [id, message] of this.entries) {
      this.removeId(id, message);
      this.counters.gaveUp++;
      this.events.gaveUp(message);
    }
    this.earliestDueUs = Number.POSITIVE_INFINITY;
  }

  private anyDue(nowUs: number): boolean {
    for (const message of this.entries.values()) if (nowUs - message.lastSendUs > message.intervalUs) return true;
    return false;
  }

  private removeId(id: number, message: OutgoingMessage): void {
    this.entries.delete(id);
    const key = matchKey(message.low, message.seq as number, message.fragment, message.fragIndex ?? 0);
    const ids = this.byMatchKey.get(key) as number[];
    const at = ids.indexOf(id);
    ids.splice(at, 1);
    if (ids.length === 0) this.byMatchKey.delete(key);
    this.bytes -= dataMessageBytes(message.payload.length);
  }
}

function matchKey(low: boolean, seq: number, fragment: boolean, fragIndex: number): number {
  return seq | (low ? 1 << 16 : 0) | (fragment ? (1 << 17) | (fragIndex << 18) : 0);
}
