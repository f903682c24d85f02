// Receive side of one sequence category (low < 0x32, high >= 0x32): drops
// already-seen sequence numbers, reassembles fragments in any arrival order and
// delivers reliable messages in sequence order (transport-layer.md §4–§5).
import type { DataMessage } from '../../core/codec/index.js';
import { LimitError } from '../../core/engine/index.js';
import { dataMessageBytes } from './memory.js';
import { NO_PLANTED_FAULTS } from './planted-bugs.js';
import type { PlantedFaults } from './planted-bugs.js';
import { SEQ_HALF, seqDistance, seqNext } from './seq.js';

/** A message handed to the application. */
export interface Delivery {
  readonly type: number;
  readonly low: boolean;
  readonly reliable: boolean;
  readonly seq: number | null;
  readonly payload: Uint8Array;
  /** Sender's uid for accounting; CORRUPT_UID when fragments of different messages were joined. */
  readonly uid: number;
}

/**
 * Explicit bound on what one category's receive buffer holds: stock
 * keeps incomplete fragment sets for ever, so a run of given-up fragments
 * grew past 1 GB. Whole messages waiting for order count one each, fragments one each.
 */
export const MAX_HELD_PIECES = 1 << 17;

/** Marks a reassembly that mixed fragments of different sent messages (a wraparound hazard). */
export const CORRUPT_UID = -2;

/** Planted delivers-on-arrival: holds the place of a message handed on ahead of its turn, so it goes once. */
const DELIVERED_AHEAD: Delivery = Object.freeze({
  type: 0,
  low: false,
  reliable: true,
  seq: null,
  payload: new Uint8Array(0),
  uid: -3,
});

interface FragmentSet {
  count: number | null;
  readonly pieces: Array<Uint8Array | undefined>;
  readonly uids: number[];
  received: number;
  bytes: number;
}

export type AcceptOutcome = 'accepted' | 'duplicate' | 'invalid';

export class ReceiveChannel {
  /** The next sequence number to deliver (the stock "expected" counter). */
  expected = 0;
  private readonly waiting = new Map<number, Delivery>();
  private readonly fragments = new Map<number, FragmentSet>();
  private bufferedBytes = 0;
  /** Messages waiting for order plus fragments waiting for reassembly. */
  private heldPieces = 0;

  constructor(
    private readonly low: boolean,
    private readonly deliver: (delivery: Delivery) => void,
    /** MAX_HELD_PIECES was reached (counted by the owner, just before the limit error). */
    private readonly onLimitHit: () => void = () => {},
    /** Test-only planted bugs' hooks (planted-bugs.ts); NO_PLANTED_FAULTS in a real run. */
    private readonly planted: PlantedFaults = NO_PLANTED_FAULTS,
  ) {}

  /** Modelled bytes of messages held for ordering or reassembly. */
  get modelledBytes(): number {
    return this.bufferedBytes;
  }

  get bufferedMessages(): number {
    return this.waiting.size + this.fragments.size;
  }

  /**
   * Send window: a windowed sender never sends `window` or more seqs
   * past the receiver's expected one, so such a message is a stale copy (a
   * datagram delayed longer than a sequence wrap) and must not be taken.
   */
  pastWindow(seq: number, window: number): boolean {
    const ahead = seqDistance(this.expected, seq);
    return ahead >= window && ahead < SEQ_HALF;
  }

  /** Would `accept` call this message a duplicate? (No state changes.) */
  seen(message: DataMessage): boolean {
    const seq = message.seq as number;
    // Serial arithmetic: anything "behind" expected by up to half the space was seen already.
    if (seqDistance(this.expected, seq) >= SEQ_HALF || this.waiting.has(seq)) return true;
    return (
      message.fragment &&
      !this.planted.reassemblyByArrivalOrder &&
      this.fragments.get(seq)?.pieces[message.fragIndex as number] !== undefined
    );
  }

  /**
   * Is this seq's slot already held by a different message (a whole message
   * waiting for order, or this fragment index)? After a wrap a stale copy looks
   * like a future seq and lands here (switch wrapReceive).
   */
  heldConflict(message: DataMessage): boolean {
    const seq = message.seq as number;
    const waiting = this.waiting.get(seq);
    // A place held by delivers-on-arrival keeps no bytes to compare: a copy is a duplicate, not a conflict.
    if (waiting === DELIVERED_AHEAD) return false;
    if (waiting !== undefined) return message.fragment || !sameBytes(waiting.payload, message.payload);
    const set = this.fragments.get(seq);
    if (set === undefined) return false;
    // A whole message where fragments are being reassembled takes a held slot too.
    if (!message.fragment) return true;
    if (this.planted.reassemblyByArrivalOrder) return false;
    const piece = set.pieces[message.fragIndex as number];
    return piece !== undefined && !sameBytes(piece, message.payload);
  }

  /** wrapReceive last-wins: frees the held slot so the newcomer takes it. */
  evict(message: DataMessage): void {
    const seq = message.seq as number;
    const waiting = this.waiting.get(seq);
    if (waiting !== undefined) {
      this.waiting.delete(seq);
      this.heldPieces--;
      this.bufferedBytes -= dataMessageBytes(waiting.payload.length);
      return;
    }
    const set = this.fragments.get(seq);
    if (set === undefined) throw new Error(`receive-channel: evict of seq ${seq}, which holds nothing`);
    this.dropFragments(seq, set);
  }

  /** Takes a reliable message; delivers it and anything it unblocks, in order. */
  accept(message: DataMessage, uid: number): AcceptOutcome {
    if (message.seq === null) throw new Error('receive-channel: accept of an unreliable message');
    const seq = message.seq;
    if (this.seen(message)) return 'duplicate';
    let complete: Delivery;
    if (message.fragment) {
      const assembled = this.addFragment(seq, message, uid);
      if (assembled === 'invalid') return assembled;
      if (assembled === null) return 'accepted';
      complete = assembled;
    } else {
      const partial = this.fragments.get(seq);
      if (partial) this.dropFragments(seq, partial); // a whole message supersedes stray fragments
      complete = { type: message.type, low: this.low, reliable: true, seq, payload: message.payload, uid };
    }
    if (seq === this.expected) {
      this.deliver(complete);
      this.expected = seqNext(this.expected);
      this.drain();
    } else {
      this.hold(1);
      // A held payload is copied: a view would pin the sender's whole 64 KiB slab. The planted
      // delivers-on-arrival hands it on now instead, and holds only its place.
      if (this.planted.deliverOnArrival) {
        this.deliver(complete);
        complete = DELIVERED_AHEAD;
      } else complete = { ...complete, payload: complete.payload.slice() };
      this.waiting.set(seq, complete);
      this.bufferedBytes += dataMessageBytes(complete.payload.length);
    }
    return 'accepted';
  }

  /** Uids of messages held for ordering or reassembly (end-of-run accounting). */
  heldUids(): number[] {
    const uids: number[] = [];
    for (const waiting of this.waiting.values()) if (waiting !== DELIVERED_AHEAD) uids.push(waiting.uid);
    for (const set of this.fragments.values()) for (const uid of set.uids) if (uid !== undefined) uids.push(uid);
    return uids;
  }

  /** Modelled bytes recomputed from the buffers themselves (invariant checks). */
  auditBytes(): number {
    let bytes = 0;
    for (const waiting of this.waiting.values()) bytes += dataMessageBytes(waiting.payload.length);
    for (const set of this.fragments.values())
      for (const piece of set.pieces) if (piece !== undefined) bytes += dataMessageBytes(piece.length);
    return bytes;
  }

  /** Forgets all buffered state (peer gone). */
  clear(): void {
    this.waiting.clear();
    this.fragments.clear();
    this.bufferedBytes = 0;
    this.heldPieces = 0;
  }

  private hold(pieces: number): void {
    this.heldPieces += pieces;
    if (this.heldPieces > MAX_HELD_PIECES) {
      this.onLimitHit();
      throw new LimitError(
        `a receive buffer holds more than ${MAX_HELD_PIECES.toLocaleString('en-US')} messages and fragments (incomplete or out of order); lower the loss or the rates`,
      );
    }
  }

  private drain(): void {
    for (;;) {
      const next = this.waiting.get(this.expected);
      if (next === undefined) return;
      this.waiting.delete(this.expected);
      if (--this.heldPieces < 0) throw new Error('receive-channel: held pieces below zero');
      this.bufferedBytes -= dataMessageBytes(next.payload.length);
      if (next !== DELIVERED_AHEAD) this.deliver(next);
      this.expected = seqNext(this.expected);
    }
  }

  /** Returns the reassembled message, null while incomplete, or invalid (a fragment 0 announcing 0). */
  private addFragment(seq: number, message: DataMessage, uid: number): Delivery | null | 'invalid' {
    const index = message.fragIndex as number;
    if (index === 0 && message.fragCount === 0) return 'invalid';
    let set = this.fragments.get(seq);
    if (!set) {
      set = { count: null, pieces: [], uids: [], received: 0, bytes: 0 };
      this.fragments.set(seq, set);
    }
    if (this.planted.reassemblyByArrivalOrder) return this.addInArrivalOrder(seq, set, message, uid);
    if (set.pieces[index] !== undefined) throw new Error(`receive: fragment ${index} of seq ${seq} taken twice`); // seen() filters them
    if (index === 0) set.count = message.fragCount as number;
    this.hold(1);
    set.pieces[index] = message.payload.slice(); // not a view: it would pin a 64 KiB slab
    set.uids[index] = uid;
    set.received++;
    const pieceBytes = dataMessageBytes(message.payload.length);
    set.bytes += pieceBytes;
    this.bufferedBytes += pieceBytes;
    // No "more fragments" bit: complete when 0..count-1 are all present (docs/sources.md 4).
    if (set.count === null || set.received < set.count) return null;
    for (let i = 0; i < set.count; i++) if (set.pieces[i] === undefined) return null;
    let total = 0;
    for (let i = 0; i < set.count; i++) total += (set.pieces[i] as Uint8Array).length;
    const payload = new Uint8Array(total);
    let offset = 0;
    let joinedUid = set.uids[0];
    for (let i = 0; i < set.count; i++) {
      const piece = set.pieces[i] as Uint8Array;
      payload.set(piece, offset);
      offset += piece.length;
      if (set.uids[i] !== joinedUid) joinedUid = CORRUPT_UID;
    }
    this.dropFragments(seq, set);
    return { type: message.type, low: this.low, reliable: true, seq, payload, uid: joinedUid };
  }

  /** The planted bug: pieces kept by arrival, complete once as many arrived as fragment 0 announced. */
  private addInArrivalOrder(seq: number, set: FragmentSet, message: DataMessage, uid: number): Delivery | null {
    if (message.fragIndex === 0) set.count = message.fragCount as number;
    this.hold(1);
    set.pieces[set.received] = message.payload.slice();
    set.uids[set.received] = uid;
    set.received++;
    const pieceBytes = dataMessageBytes(message.payload.length);
    set.bytes += pieceBytes;
    this.bufferedBytes += pieceBytes;
    if (set.count === null || set.received < set.count) return null;
    const pieces = set.pieces.slice(0, set.received) as Uint8Array[];
    const payload = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
    let offset = 0;
    for (const piece of pieces) {
      payload.set(piece, offset);
      offset += piece.length;
    }
    this.dropFragments(seq, set);
    return { type: message.type, low: this.low, reliable: true, seq, payload, uid: set.uids[0] };
  }

  private dropFragments(seq: number, set: FragmentSet): void {
    if (!this.fragments.delete(seq)) throw new Error(`receive-channel: seq ${seq} has no fragments to drop`);
    this.heldPieces -= set.received;
    if (this.heldPieces < 0) throw new Error('receive-channel: held pieces below zero');
    this.bufferedBytes -= set.bytes;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
