// Delivery accounting: an oracle outside the protocol. Every application message
// gets a uid when it is sent; the transport carries uids beside (never inside) the
// bytes, and the receiver reports what it delivered. The ledger then says what
// was delivered once, twice, out of order, given up on, or still in flight.
import { LimitError } from '../engine/index.js';
import { CORRUPT_UID } from '../transport/receive-channel.js';
import type { Role } from '../transport/roles.js';

const RELIABLE = 1;
const DELIVERED = 2;
const GAVE_UP = 4;
const LOW = 8;
const FROM_CLIENT = 16;
const REFUSED = 32;
const ACKED = 64;

/** Explicit bound on messages per run; a run that needs more is misconfigured. */
export const MAX_LEDGER_MESSAGES = 50_000_000;

export interface DeliveryStats {
  reliableSent: number;
  reliableDelivered: number;
  /** Not delivered yet, but still held by the sender or the receiver's buffers. */
  reliableInFlight: number;
  /** Never delivered and no longer held anywhere: given up, or ACKed and then swallowed. */
  reliableLost: number;
  /** Of the lost: ACKed by the receiver yet never delivered (dropped from its buffers at a timeout, or displaced by a stale message with the same u16 seq). */
  reliableSwallowed: number;
  /** Refused by the transport before sending (queue limits, closed connection). */
  reliableRefused: number;
  duplicateDeliveries: number;
  outOfOrderDeliveries: number;
  /** Reassemblies that joined fragments of different messages (seq wraparound hazard). */
  corruptDeliveries: number;
  unreliableSent: number;
  unreliableDelivered: number;
}

export class DeliveryLedger {
  private flags = new Uint8Array(1 << 12);
  private count = 0;
  private duplicates = 0;
  private outOfOrder = 0;
  private corrupt = 0;
  private unreliableSent = 0;
  private unreliableDelivered = 0;
  /** Highest delivered uid per (direction, category): [c->s high, c->s low, s->c high, s->c low]. */
  private readonly lastDelivered = [-1, -1, -1, -1];

  /** An unreliable message was sent; they carry no uid (nothing to match up). */
  sentUnreliable(): void {
    this.unreliableSent++;
  }

  deliveredUnreliable(): void {
    this.unreliableDelivered++;
  }

  /** A new message from `from`; returns its uid. */
  register(from: Role, reliable: boolean, low: boolean): number {
    if (this.count >= MAX_LEDGER_MESSAGES) throw new LimitError(`more than ${MAX_LEDGER_MESSAGES.toLocaleString('en-US')} reliable messages in one run; shorten the run or lower the rates`);
    if (this.count === this.flags.length) {
      const grown = new Uint8Array(this.flags.length * 2);
      grown.set(this.flags);
      this.flags = grown;
    }
    const uid = this.count++;
    this.flags[uid] = (reliable ? RELIABLE : 0) | (low ? LOW : 0) | (from === 'client' ? FROM_CLIENT : 0);
    return uid;
  }

  /** The transport refused the message (queue limit, closed connection): it was never sent. */
  refused(uid: number): void {
    this.flags[uid] |= REFUSED;
  }

  /** A reliable message reached the application. */
  delivered(uid: number): void {
    if (uid < 0) {
      if (uid === CORRUPT_UID) this.corrupt++;
      return;
    }
    const f = this.flags[uid];
    if (f & DELIVERED) {
      this.duplicates++;
      return;
    }
    this.flags[uid] = f | DELIVERED;
    const lane = ((f & FROM_CLIENT) !== 0 ? 0 : 2) + ((f & LOW) !== 0 ? 1 : 0);
    if (uid < this.lastDelivered[lane]) this.outOfOrder++;
    else this.lastDelivered[lane] = uid;
  }

  gaveUp(uid: number): void {
    if (uid >= 0) this.flags[uid] |= GAVE_UP;
  }

  /** The sender saw an ACK clear (a piece of) this message. */
  acknowledged(uid: number): void {
    if (uid >= 0) this.flags[uid] |= ACKED;
  }

  wasDelivered(uid: number): boolean {
    return (this.flags[uid] & DELIVERED) !== 0;
  }

  /** `held`: uids still buffered at a receiver (waiting for order or reassembly). */
  stats(held: ReadonlySet<number> = new Set()): DeliveryStats {
    let sent = 0;
    let delivered = 0;
    let lost = 0;
    let swallowed = 0;
    let inFlight = 0;
    let refused = 0;
    const flags = this.flags;
    for (let uid = 0; uid < this.count; uid++) {
      const f = flags[uid];
      if ((f & RELIABLE) === 0) continue;
      if (f & REFUSED) {
        refused++;
        continue;
      }
      sent++;
      if (f & DELIVERED) delivered++;
      else if (f & GAVE_UP) lost++;
      else if (f & ACKED && !held.has(uid)) {
        lost++;
        swallowed++;
      } else inFlight++;
    }
    return {
      reliableSent: sent,
      reliableDelivered: delivered,
      reliableInFlight: inFlight,
      reliableLost: lost,
      reliableSwallowed: swallowed,
      reliableRefused: refused,
      duplicateDeliveries: this.duplicates,
      outOfOrderDeliveries: this.outOfOrder,
      corruptDeliveries: this.corrupt,
      unreliableSent: this.unreliableSent,
      unreliableDelivered: this.unreliableDelivered,
    };
  }
}
