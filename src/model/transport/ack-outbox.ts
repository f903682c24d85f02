// The ACK-outbox: ACKs waiting to go back to the remote peer.
// Stock: two passes with a gate (ack-outbox-deadlock.md §1–§2, docs/sources.md 8–10).
// Fixed: one pass that frees each entry after N sends (ack-outbox-deadlock.md §6).
//
// Entries live in two lists, both in queue (insertion) order: `fresh` holds what
// pass 1 may send, `stale` what only pass 2 may reach. Dead-zone entries are
// never walked while the gate is shut, so a huge stuck outbox costs nothing per
// update; the modelled linear-scan cost is counted through a PositionIndex.
import { ackBytes, ackOfKey, packKeyOf } from '../../core/codec/index.js';
import type { AckMessage } from '../../core/codec/index.js';
import { micros, minUs, msToUs } from '../../core/engine/index.js';
import type { Micros } from '../../core/engine/index.js';
import type { PeerCounters } from './counters.js';
import { IntervalPeaks } from './interval-peaks.js';
import { SendNote } from './datagram-builder.js';
import type { DatagramBuilder } from './datagram-builder.js';
import { ACK_ENTRY_BYTES } from './memory.js';
import { EntryList, IntMap } from '../../core/containers/index.js';
import type { Linked } from '../../core/containers/index.js';
import type { TransportParams, TransportSwitches } from './switches.js';

export interface AckEntry extends Linked<AckEntry> {
  readonly seq: number;
  readonly low: boolean;
  readonly fragment: boolean;
  readonly fragIndex: number;
  /** What goes on the wire; built once. */
  readonly wire: AckMessage;
  readonly wireBytes: number;
  sendCount: number;
  /** -Infinity until first sent, and after a refresh: the timer has expired. */
  lastSendUs: Micros;
  /** Insertion id: queue order, and the key into the position indexes. */
  order: number;
  inStale: boolean;
  /** ackCarriage every-datagram: the update in which it last rode along, so no datagram of one update carries it twice. */
  rodeUs: Micros;
}

const NEVER = micros(Number.NEGATIVE_INFINITY);
const NOT_YET = micros(Number.POSITIVE_INFINITY);

/**
 * Where a pass may skip work (an accepted run walked every entry not
 * yet due, once per datagram). `smallestLastSendUs` is a lower bound on the
 * lastSendUs of the list's entries, so nothing is due while now - it <= the
 * resend interval; `resume` is the entry that did not fit in the
 * last datagram of this update: the next datagram of the same update starts
 * there, since every entry before it is not due or was just sent.
 */
interface ListScan {
  smallestLastSendUs: Micros;
  resume: AckEntry | null;
  resumeAtUs: Micros;
}

const newScan = (): ListScan => ({ smallestLastSendUs: NEVER, resume: null, resumeAtUs: NEVER });

export class AckOutbox {
  private capacity = 1 << 12;
  /** Live entries by order, for the lists' k-th lookups. */
  private byOrder: Array<AckEntry | undefined> = [];
  private readonly fresh: EntryList<AckEntry>;
  private readonly stale: EntryList<AckEntry>;
  private readonly byKey = new IntMap<AckEntry>();
  private readonly freshScan = newScan();
  private readonly staleScan = newScan();
  private nextOrder = 0;
  private readonly twoPass: boolean;
  private readonly hashed: boolean;
  private readonly resetOnRefresh: boolean;
  private readonly restartOnRefresh: boolean;
  private readonly coalesceFragments: boolean;
  private readonly wireDropsFragmentFlag: boolean;
  private readonly passOneLimit: number;
  private readonly freeAt: number;
  private readonly resendIntervalUs: Micros;

  constructor(
    switches: TransportSwitches,
    params: TransportParams,
    private readonly counters: PeerCounters,
    /** Raised beside the running maxima: the charts' per-second peaks (interval-peaks.ts). */
    private readonly peaks: IntervalPeaks = new IntervalPeaks(),
  ) {
    this.twoPass = switches.ackOutbox === 'two-pass-gated';
    this.hashed = switches.dedup === 'hashed-index';
    this.resetOnRefresh = switches.ackRefresh === 'reset-count';
    this.restartOnRefresh = switches.duplicateAckTimer === 'restart';
    // docs/sources.md 14 (b): fragment ACKs coalesce into one entry per seq.
    this.coalesceFragments = switches.fragmentAckCause === 'partial-ack';
    // docs/sources.md 14 (a): the ACK of a fragment goes out without bit 0.
    this.wireDropsFragmentFlag = switches.fragmentAckCause === 'ack-format-mismatch';
    this.passOneLimit = this.twoPass ? params.ackPassOneLimit : switches.ackSendLimit;
    this.freeAt = params.ackFreeAtCount;
    this.resendIntervalUs = msToUs(params.ackResendIntervalMs);
    if (!(this.passOneLimit >= 1 && (!this.twoPass || this.freeAt > this.passOneLimit))) {
      throw new Error(`ack-outbox: need 1 <= pass-one limit (${this.passOneLimit}) < free-at count (${this.freeAt})`);
    }
    this.limit = params.ackOutboxLimit;
    const entryAt = (order: number) => this.byOrder[order] as AckEntry;
    this.fresh = new EntryList(this.capacity, entryAt);
    this.stale = new EntryList(this.capacity, entryAt);
  }

  private readonly limit: number;

  get size(): number {
    return this.fresh.length + this.stale.length;
  }

  /** Entries only pass 2 can reach: send count in [passOneLimit, freeAt). Zero in the single-pass design. */
  get deadZone(): number {
    return this.stale.length;
  }

  get modelledBytes(): number {
    return this.size * ACK_ENTRY_BYTES;
  }

  /**
   * HandleReliableReceived (analysis doc): find an entry equal on all four fields,
   * refresh it or append a new one. Returns the modelled comparisons.
   */
  onReliableReceived(seq: number, low: boolean, fragment: boolean, fragIndex: number, nowUs: Micros): number {
    const key = this.keyOf(seq, low, fragment, fragIndex);
    const existing = this.byKey.get(key);
    const size = this.size;
    // A linear scan stops at the match, or examines every entry on a miss.
    const comparisons = this.hashed
      ? 1
      : existing
        ? this.fresh.countUpTo(existing.order) + this.stale.countUpTo(existing.order)
        : size;
    const c = this.counters;
    c.dedupLookups++;
    // A new or refreshed entry is due now: both passes must look again.
    this.freshScan.smallestLastSendUs = NEVER;
    this.freshScan.resume = null;
    this.staleScan.smallestLastSendUs = NEVER;
    this.staleScan.resume = null;
    c.dedupComparisons += comparisons;
    if (comparisons > c.dedupComparisonsMaxPerMessage) c.dedupComparisonsMaxPerMessage = comparisons;
    if (comparisons > this.peaks.dedupPerMessage) this.peaks.dedupPerMessage = comparisons;

    if (existing) {
      c.ackEntriesRefreshed++;
      // docs/sources.md 10: the timer is refreshed (due now, or restarted: switch duplicateAckTimer)...
      if (existing.sendCount > 0) existing.lastSendUs = this.restartOnRefresh ? nowUs : NEVER;
      if (this.resetOnRefresh && existing.sendCount > 0) {
        // ...and, only with reset-count, the send count too.
        existing.sendCount = 0;
        if (existing.inStale) {
          this.stale.remove(existing);
          existing.inStale = false;
          this.fresh.insertOrdered(existing);
        }
      }
      return comparisons;
    }
    if (size >= this.limit) {
      c.ackEntriesRefused++; // at its explicit bound: this ACK is never sent
      return comparisons;
    }
    const wireFragment = fragment && !this.wireDropsFragmentFlag;
    const wire = ackOfKey(low, seq, wireFragment, fragIndex);
    if (this.nextOrder >= this.capacity) this.compact();
    const entry: AckEntry = {
      seq,
      low,
      fragment,
      fragIndex,
      wire,
      wireBytes: ackBytes(wireFragment),
      sendCount: 0,
      lastSendUs: NEVER,
      order: this.nextOrder++,
      inStale: false,
      rodeUs: NEVER,
      prev: null,
      next: null,
    };
    if (entry.order >= this.capacity)
      throw new Error(`ack-outbox: order ${entry.order} past the capacity ${this.capacity}`);
    this.byOrder[entry.order] = entry;
    this.byKey.set(key, entry);
    this.fresh.append(entry);
    c.ackEntriesCreated++;
    if (this.size > c.ackOutboxMax) c.ackOutboxMax = this.size;
    if (this.size > this.peaks.ackOutbox) this.peaks.ackOutbox = this.size;
    return comparisons;
  }

  /**
   * Stock pass 1, or the fixed design's only pass: due entries in queue order.
   * At the pass-one limit an entry moves out of pass 1's reach (two-pass,
   * ack-outbox-deadlock.md §1) or is freed (single pass, §6).
   */
  passOne(nowUs: Micros, out: DatagramBuilder): void {
    this.sendDue(this.fresh, this.freshScan, this.passOneLimit, SendNote.Ack, nowUs, out, this.leavePassOne);
  }

  /** Made once, not per pass: the send cycle runs a pass per datagram. */
  private readonly leavePassOne = (entry: AckEntry, nowUs: Micros): void => {
    this.fresh.remove(entry);
    if (!this.twoPass) return this.free(entry);
    entry.inStale = true;
    this.stale.insertOrdered(entry);
    // Just sent: due one interval from now.
    this.staleScan.smallestLastSendUs = minUs(this.staleScan.smallestLastSendUs, nowUs);
    if (this.stale.length > this.counters.ackOutboxDeadZoneMax) this.counters.ackOutboxDeadZoneMax = this.stale.length;
    if (this.stale.length > this.peaks.ackOutboxDeadZone) this.peaks.ackOutboxDeadZone = this.stale.length;
  };

  /**
   * ackCarriage every-datagram (docs/sources.md 25): a datagram that goes out anyway
   * also carries each entry pass 1 may still send and did not send in this update;
   * with `stale` (every-datagram-all, pass 2 ran), the dead zone's entries too.
   * Its count and timer stay as they are: only an expired timer advances them.
   * O(entries below the pass-one limit) per datagram, only under that reading.
   */
  rideAlong(nowUs: Micros, out: DatagramBuilder, stale: boolean): void {
    if (!this.ride(this.fresh, SendNote.Ack, nowUs, out) || !stale) return;
    this.ride(this.stale, SendNote.StaleAck, nowUs, out);
  }

  /** False once the datagram is full. */
  private ride(list: EntryList<AckEntry>, note: SendNote, nowUs: Micros, out: DatagramBuilder): boolean {
    for (let entry = list.head; entry !== null; entry = entry.next) {
      if (entry.lastSendUs === nowUs || entry.rodeUs === nowUs) continue;
      if (!out.tryAdd(entry.wire, entry.wireBytes, -1, note)) return false;
      entry.rodeUs = nowUs;
      this.counters.acksSent++;
    }
    return true;
  }

  /** Stock pass 2, which frees entries at count 9; the caller runs it only when the gate is open (docs/sources.md 8.4). */
  passTwo(nowUs: Micros, out: DatagramBuilder): void {
    this.sendDue(this.stale, this.staleScan, this.freeAt, SendNote.StaleAck, nowUs, out, this.leavePassTwo);
  }

  private readonly leavePassTwo = (entry: AckEntry): void => {
    this.stale.remove(entry);
    this.free(entry);
  };

  /** Sends due entries of `list` in queue order; stops at the first that does not fit (§4). */
  private sendDue(
    list: EntryList<AckEntry>,
    scan: ListScan,
    limit: number,
    note: SendNote,
    nowUs: Micros,
    out: DatagramBuilder,
    atLimit: (entry: AckEntry, nowUs: Micros) => void,
  ): void {
    if (nowUs - scan.smallestLastSendUs <= this.resendIntervalUs) return; // nothing is due yet
    const resumed = scan.resumeAtUs === nowUs && scan.resume !== null;
    let entry = resumed ? scan.resume : list.head;
    scan.resume = null;
    // Due = now - lastSend > interval (strict, as the stock timer), so the next
    // look is needed once now passes the smallest lastSend of what stays.
    let smallestLastSendUs = NOT_YET;
    while (entry !== null) {
      const next = entry.next;
      if (nowUs - entry.lastSendUs > this.resendIntervalUs) {
        if (!out.tryAdd(entry.wire, entry.wireBytes, -1, note)) {
          scan.resume = entry;
          scan.resumeAtUs = nowUs;
          scan.smallestLastSendUs = NEVER;
          return;
        }
        this.counters.acksSent++;
        entry.sendCount++;
        entry.lastSendUs = nowUs;
        if (entry.sendCount >= limit) atLimit(entry, nowUs);
        else if (nowUs < smallestLastSendUs) smallestLastSendUs = nowUs;
      } else if (entry.lastSendUs < smallestLastSendUs) {
        smallestLastSendUs = entry.lastSendUs;
      }
      entry = next;
    }
    // A walk from the head saw every entry; a resumed one did not see those before it.
    scan.smallestLastSendUs = resumed ? NEVER : smallestLastSendUs;
  }

  /** Drops every entry (peer gone). */
  clear(): void {
    for (const list of [this.fresh, this.stale]) {
      while (list.head) {
        const entry = list.head;
        list.remove(entry);
        this.free(entry);
      }
    }
  }

  /** Queue order view for tests and traces. O(n). */
  entriesInQueueOrder(): AckEntry[] {
    const out: AckEntry[] = [];
    for (let e = this.fresh.head; e; e = e.next) out.push(e);
    for (let e = this.stale.head; e; e = e.next) out.push(e);
    return out.sort((a, b) => a.order - b.order);
  }

  /** Called once the entry is out of both lists. */
  private free(entry: AckEntry): void {
    if (this.byOrder[entry.order] !== entry)
      throw new Error(`ack-outbox: free of seq ${entry.seq}, which is not at its order ${entry.order}`);
    this.byOrder[entry.order] = undefined;
    if (!this.byKey.delete(this.keyOf(entry.seq, entry.low, entry.fragment, entry.fragIndex)))
      throw new Error(`ack-outbox: free of seq ${entry.seq}, which is not in the key index`);
    this.counters.ackEntriesFreed++;
  }

  /** The entry's packed message key; with partial-ack every fragment of a seq shares index 0. */
  private keyOf(seq: number, low: boolean, fragment: boolean, fragIndex: number): number {
    return packKeyOf(low, seq, fragment, this.coalesceFragments ? 0 : fragIndex);
  }

  /** Renumbers live entries 0..n-1 in queue order once insertion ids run out. Amortised O(1). */
  private compact(): void {
    const live = this.entriesInQueueOrder();
    if (live.length !== this.byKey.size)
      throw new Error(`ack-outbox: ${live.length} entries listed, ${this.byKey.size} indexed`);
    while (live.length * 2 > this.capacity) this.capacity *= 2;
    this.byOrder = [];
    live.forEach((entry, i) => {
      entry.order = i;
      this.byOrder[i] = entry;
    });
    this.nextOrder = live.length;
    this.fresh.reindex(this.capacity);
    this.stale.reindex(this.capacity);
  }
}
