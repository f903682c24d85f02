// Delivery accounting: an oracle outside the protocol. Every application message
// gets a uid when it is sent; the transport carries uids beside (never inside) the
// bytes, and the receiver reports what it delivered. The ledger then says what
// was delivered once, twice, out of order, given up on, or still in flight, how
// long delivery took, and which messages went wrong.
import { LimitError, usToMs } from '../../core/engine/index.js';
import type { Millis } from '../../core/engine/index.js';
import { CORRUPT_UID } from '../transport/index.js';
import type { Role } from '../transport/index.js';

const RELIABLE = 1;
const DELIVERED = 2;
const GAVE_UP = 4;
const LOW = 8;
const FROM_CLIENT = 16;
const REFUSED = 32;
const ACKED = 64;

/**
 * Explicit bound on messages per run; a run that needs more is misconfigured.
 * The ledger keeps 8 bytes per message (flags, connection, send time, seq): 400 MB at the bound.
 */
const MAX_LEDGER_MESSAGES = 50_000_000;

/** Anomalies listed per kind (the earliest ones); the counts cover them all. */
export const ANOMALIES_LISTED_PER_KIND = 25;

/**
 * Bound on the give-up and ACK times kept for messages not (yet) delivered: they
 * date a lost or swallowed message. Delivery frees an entry; past the bound a
 * lost message is still counted and listed, with `atMs` null.
 */
const MAX_PENDING_LOSS_TIMES = 1 << 16;

const TWO_32 = 2 ** 32;

export type AnomalyKind = 'lost' | 'swallowed' | 'duplicate' | 'out-of-order';
const KIND_ORDER: Record<AnomalyKind, number> = { lost: 0, swallowed: 1, duplicate: 2, 'out-of-order': 3 };

/** One reliable message that went wrong. Times are simulated milliseconds from the start of the run. */
export interface DeliveryAnomaly {
  /**
   * lost: given up by its sender and never delivered; swallowed: ACKed by the
   * receiver, never delivered, and held nowhere; duplicate: delivered again;
   * out-of-order: delivered after a later message of its direction and category.
   */
  readonly kind: AnomalyKind;
  readonly uid: number;
  readonly from: Role;
  /** The connection it travelled on: client 1, 2, …. */
  readonly client: number;
  /** Sequence category: "low" for types below 0x32, "high" from 0x32 on. */
  readonly category: 'low' | 'high';
  /** Its u16 seq on the wire (fragments of one message share it). */
  readonly seq: number;
  /** When the application handed it to the transport. */
  readonly sentAtMs: Millis;
  /**
   * lost: when the sender gave it up; swallowed: when an ACK cleared it from the
   * sender (from then on only the receiver held it); duplicate and out-of-order:
   * the delivery. null when not recorded (see MAX_PENDING_LOSS_TIMES).
   */
  readonly atMs: Millis | null;
}

export interface DeliveryAnomalies {
  /** Every anomaly, per kind. `lost + swallowed` is reliableLost. */
  readonly counts: { lost: number; swallowed: number; duplicate: number; outOfOrder: number };
  /** Up to ANOMALIES_LISTED_PER_KIND of each kind, the earliest; ordered by atMs (null last), then uid. */
  readonly list: DeliveryAnomaly[];
  /** Some anomalies are counted but not listed. */
  readonly truncated: boolean;
}

/** Send-to-delivery latency of one category, in ms; all zero when count is 0. */
export interface LatencySummary {
  /** First deliveries measured (duplicates are not). */
  count: number;
  /** Nearest-rank percentiles, within 0.4 % (exact below 512 µs); see LatencyHistogram. */
  p50: number;
  p99: number;
  /** Exact. */
  max: number;
}

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
  /**
   * Reliable messages, from the application handing a message to the transport
   * (`send`, which is also when its uid is registered) to its first delivery to
   * the receiving application: first-send queueing, retransmits, the link and the
   * receiver's update all count. Per sequence category, both directions together.
   */
  latencyMs: { low: LatencySummary; high: LatencySummary };
  anomalies: DeliveryAnomalies;
}

/**
 * Fixed-size latency histogram over integer microseconds, so a run of any
 * length costs the same ~110 KB per category. Values below 512 µs get a bucket
 * each; above, every power of two is split into 256 equal buckets, so a bucket
 * is at most 1/256 of its lower bound wide. Each bucket keeps its count and the
 * sum of its values. A percentile is the nearest-rank one (the smallest recorded
 * value with at least q of all values at or below it), reported as the mean of
 * the values in its bucket: within one bucket width, under 1/256 (0.4 %) of the
 * true value, and exact when the bucket holds one distinct value (latencies on
 * an update grid often do) or the rank is the first or the last. Values from
 * 2^43 µs (~100 days) share the last bucket; max stays exact.
 */
export class LatencyHistogram {
  static readonly SUB_BITS = 8;
  private static readonly SUB = 1 << LatencyHistogram.SUB_BITS;
  private static readonly TOP_EXPONENT = 42;
  static readonly BUCKETS =
    LatencyHistogram.SUB + (LatencyHistogram.TOP_EXPONENT - LatencyHistogram.SUB_BITS + 1) * LatencyHistogram.SUB;
  private readonly counts = new Uint32Array(LatencyHistogram.BUCKETS);
  private readonly sums = new Float64Array(LatencyHistogram.BUCKETS);
  private n = 0;
  private lo = Infinity;
  private hi = 0;

  get count(): number {
    return this.n;
  }

  get max(): number {
    return this.hi;
  }

  /** Records one latency in µs (a non-negative integer; fractions are floored). */
  record(us: number): void {
    const v = us > 0 ? Math.floor(us) : 0;
    const i = LatencyHistogram.index(v);
    this.counts[i]++;
    this.sums[i] += v;
    this.n++;
    if (v < this.lo) this.lo = v;
    if (v > this.hi) this.hi = v;
  }

  /** Nearest-rank percentile, 0 < q <= 1, in whole µs (precision: see the class comment); 0 when empty. */
  percentile(q: number): number {
    if (this.n === 0) return 0;
    const rank = Math.min(this.n, Math.max(1, Math.ceil(q * this.n)));
    if (rank === this.n) return this.hi;
    if (rank === 1) return this.lo;
    let seen = 0;
    const counts = this.counts;
    for (let i = 0; i < counts.length; i++) {
      seen += counts[i];
      if (seen >= rank) {
        const [low, width] = LatencyHistogram.bounds(i);
        const mean = Math.round(this.sums[i] / counts[i]);
        return Math.min(this.hi, Math.max(this.lo, low, Math.min(low + width - 1, mean)));
      }
    }
    return this.hi;
  }

  summary(): LatencySummary {
    return {
      count: this.n,
      p50: usToMs(this.percentile(0.5)),
      p99: usToMs(this.percentile(0.99)),
      max: usToMs(this.hi),
    };
  }

  /** Bucket of a non-negative integer value. */
  static index(v: number): number {
    const SUB = LatencyHistogram.SUB;
    if (v < 2 * SUB) return v;
    const e = v < TWO_32 ? 31 - Math.clz32(v) : 63 - Math.clz32(Math.floor(v / TWO_32));
    if (e > LatencyHistogram.TOP_EXPONENT) return LatencyHistogram.BUCKETS - 1;
    const shift = e - LatencyHistogram.SUB_BITS; // >= 1
    const top = v < TWO_32 ? v >>> shift : Math.floor(v / 2 ** shift); // in [SUB, 2·SUB)
    return SUB + shift * SUB + (top - SUB);
  }

  /** [lowest value, width] of a bucket. */
  static bounds(i: number): [number, number] {
    const SUB = LatencyHistogram.SUB;
    if (i < 2 * SUB) return [i, 1];
    const shift = Math.floor((i - SUB) / SUB);
    const top = SUB + ((i - SUB) % SUB);
    return [top * 2 ** shift, 2 ** shift];
  }
}

/** The earliest `limit` anomalies of one kind, by (atUs, uid); cheap to reject once full. */
class EarliestAnomalies {
  readonly items: Array<{ atUs: number; uid: number }> = [];
  constructor(private readonly limit: number) {}

  /** null atUs sorts last. */
  offer(atUs: number | null, uid: number): void {
    const at = atUs ?? Infinity;
    const items = this.items;
    if (items.length === this.limit) {
      const last = items[items.length - 1];
      if (at > last.atUs || (at === last.atUs && uid > last.uid)) return;
    }
    let i = items.length;
    while (i > 0 && (items[i - 1].atUs > at || (items[i - 1].atUs === at && items[i - 1].uid > uid))) i--;
    items.splice(i, 0, { atUs: at, uid });
    if (items.length > this.limit) items.pop();
  }
}

export class DeliveryLedger {
  // Per uid, 8 bytes: flags, the connection, the send time's low 32 bits (µs) and the seq. Grown by doubling, up to MAX_LEDGER_MESSAGES.
  private flags = new Uint8Array(1 << 12);
  private connections = new Uint8Array(1 << 12);
  private sentLow = new Uint32Array(1 << 12);
  private seqs = new Uint16Array(1 << 12);
  /**
   * Send times rise with the uid, so their high bits need no per-uid storage:
   * epochStarts[k] is the first uid registered at or after (k + 1)·2^32 µs.
   */
  private readonly epochStarts: number[] = [];
  private count = 0;
  private duplicates = 0;
  private outOfOrder = 0;
  private corrupt = 0;
  private unreliableSent = 0;
  private unreliableDelivered = 0;
  /** Highest delivered uid per (connection, direction, category): 4 lanes per connection, [c->s high, c->s low, s->c high, s->c low]. */
  private readonly lastDelivered: number[] = [];
  private readonly latencyLow = new LatencyHistogram();
  private readonly latencyHigh = new LatencyHistogram();
  /** Give-up and ACK times of messages not delivered at that moment (bounded; delivery frees them). */
  private readonly gaveUpAt = new Map<number, number>();
  private readonly ackedAt = new Map<number, number>();
  private readonly duplicateLog = new EarliestAnomalies(ANOMALIES_LISTED_PER_KIND);
  private readonly outOfOrderLog = new EarliestAnomalies(ANOMALIES_LISTED_PER_KIND);

  /** `clock`: the simulated time in µs (the session's `sim.now`). */
  constructor(private readonly clock: () => number) {}

  /** An unreliable message was sent; they carry no uid (nothing to match up). */
  sentUnreliable(): void {
    this.unreliableSent++;
  }

  deliveredUnreliable(): void {
    this.unreliableDelivered++;
  }

  /**
   * A new message from `from`, handed to the transport now; `seq` is the one the
   * transport will give it (PeerTransport.nextSendSeq). Returns its uid.
   */
  register(from: Role, reliable: boolean, low: boolean, seq: number, client = 1): number {
    if (!(client >= 1 && client <= 255)) throw new Error(`ledger: client ${client} out of range`);
    if (this.count >= MAX_LEDGER_MESSAGES)
      throw new LimitError(
        `more than ${MAX_LEDGER_MESSAGES.toLocaleString('en-US')} reliable messages in one run; shorten the run or lower the rates`,
      );
    if (this.count === this.flags.length) this.grow();
    const uid = this.count++;
    this.flags[uid] = (reliable ? RELIABLE : 0) | (low ? LOW : 0) | (from === 'client' ? FROM_CLIENT : 0);
    const now = this.clock();
    const epoch = Math.floor(now / TWO_32);
    while (this.epochStarts.length < epoch) this.epochStarts.push(uid);
    this.sentLow[uid] = now >>> 0;
    this.seqs[uid] = seq;
    this.connections[uid] = client;
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
      this.duplicateLog.offer(this.clock(), uid); // deliveries come in time order
      return;
    }
    this.flags[uid] = f | DELIVERED;
    (f & LOW ? this.latencyLow : this.latencyHigh).record(this.clock() - this.sentAtUs(uid));
    if (f & (GAVE_UP | ACKED)) {
      this.gaveUpAt.delete(uid);
      this.ackedAt.delete(uid);
    }
    const lane = this.connections[uid] * 4 + ((f & FROM_CLIENT) !== 0 ? 0 : 2) + ((f & LOW) !== 0 ? 1 : 0);
    while (this.lastDelivered.length <= lane) this.lastDelivered.push(-1);
    if (uid < this.lastDelivered[lane]) {
      this.outOfOrder++;
      this.outOfOrderLog.offer(this.clock(), uid);
    } else this.lastDelivered[lane] = uid;
  }

  gaveUp(uid: number): void {
    if (uid < 0) return;
    const f = this.flags[uid];
    this.flags[uid] = f | GAVE_UP;
    if ((f & (DELIVERED | GAVE_UP)) === 0) this.notePending(this.gaveUpAt, uid);
  }

  /** The sender saw an ACK clear (a piece of) this message. */
  acknowledged(uid: number): void {
    if (uid < 0) return;
    const f = this.flags[uid];
    this.flags[uid] = f | ACKED;
    if ((f & (DELIVERED | ACKED)) === 0) this.notePending(this.ackedAt, uid);
  }

  wasDelivered(uid: number): boolean {
    return (this.flags[uid] & DELIVERED) !== 0;
  }

  /** When `uid` was handed to the transport, in µs. */
  sentAtUs(uid: number): number {
    const starts = this.epochStarts;
    let epoch = starts.length;
    if (epoch > 0 && uid < starts[epoch - 1]) {
      let lo = 0; // the count of epoch starts at or below uid, by binary search
      let hi = epoch - 1;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (starts[mid] <= uid) lo = mid + 1;
        else hi = mid;
      }
      epoch = lo;
    }
    return epoch * TWO_32 + this.sentLow[uid];
  }

  /** One connection's reliable messages, counted as stats() counts them (the swarm checks each connection). */
  connectionCounts(
    client: number,
    held: ReadonlySet<number> = new Set(),
  ): { sent: number; delivered: number; inFlight: number; lost: number; swallowed: number } {
    const out = { sent: 0, delivered: 0, inFlight: 0, lost: 0, swallowed: 0 };
    for (let uid = 0; uid < this.count; uid++) {
      const f = this.flags[uid];
      if ((f & RELIABLE) === 0 || f & REFUSED || this.connections[uid] !== client) continue;
      out.sent++;
      if (f & DELIVERED) out.delivered++;
      else if (f & GAVE_UP) out.lost++;
      else if (f & ACKED && !held.has(uid)) {
        out.lost++;
        out.swallowed++;
      } else out.inFlight++;
    }
    return out;
  }

  /** `held`: uids still buffered at a receiver (waiting for order or reassembly). */
  stats(held: ReadonlySet<number> = new Set()): DeliveryStats {
    let sent = 0;
    let delivered = 0;
    let lost = 0;
    let swallowed = 0;
    let inFlight = 0;
    let refused = 0;
    const lostLog = new EarliestAnomalies(ANOMALIES_LISTED_PER_KIND);
    const swallowedLog = new EarliestAnomalies(ANOMALIES_LISTED_PER_KIND);
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
      else if (f & GAVE_UP) {
        lost++;
        lostLog.offer(this.gaveUpAt.get(uid) ?? null, uid);
      } else if (f & ACKED && !held.has(uid)) {
        lost++;
        swallowed++;
        swallowedLog.offer(this.ackedAt.get(uid) ?? null, uid);
      } else inFlight++;
    }
    const list: DeliveryAnomaly[] = [];
    const add = (kind: AnomalyKind, log: EarliestAnomalies) => {
      for (const { atUs, uid } of log.items) list.push(this.anomaly(kind, uid, Number.isFinite(atUs) ? atUs : null));
    };
    add('lost', lostLog);
    add('swallowed', swallowedLog);
    add('duplicate', this.duplicateLog);
    add('out-of-order', this.outOfOrderLog);
    list.sort(
      (a, b) => (a.atMs ?? Infinity) - (b.atMs ?? Infinity) || a.uid - b.uid || KIND_ORDER[a.kind] - KIND_ORDER[b.kind],
    );
    const counts = { lost: lost - swallowed, swallowed, duplicate: this.duplicates, outOfOrder: this.outOfOrder };
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
      latencyMs: { low: this.latencyLow.summary(), high: this.latencyHigh.summary() },
      anomalies: {
        counts,
        list,
        truncated: list.length < counts.lost + counts.swallowed + counts.duplicate + counts.outOfOrder,
      },
    };
  }

  private anomaly(kind: AnomalyKind, uid: number, atUs: number | null): DeliveryAnomaly {
    const f = this.flags[uid];
    return {
      kind,
      uid,
      from: (f & FROM_CLIENT) !== 0 ? 'client' : 'server',
      client: this.connections[uid],
      category: (f & LOW) !== 0 ? 'low' : 'high',
      seq: this.seqs[uid],
      sentAtMs: usToMs(this.sentAtUs(uid)),
      atMs: atUs === null ? null : usToMs(atUs),
    };
  }

  private notePending(times: Map<number, number>, uid: number): void {
    if (times.size < MAX_PENDING_LOSS_TIMES) times.set(uid, this.clock());
  }

  private grow(): void {
    const size = Math.min(this.flags.length * 2, MAX_LEDGER_MESSAGES);
    const flags = new Uint8Array(size);
    flags.set(this.flags);
    this.flags = flags;
    const sentLow = new Uint32Array(size);
    sentLow.set(this.sentLow);
    this.sentLow = sentLow;
    const seqs = new Uint16Array(size);
    seqs.set(this.seqs);
    this.seqs = seqs;
    const connections = new Uint8Array(size);
    connections.set(this.connections);
    this.connections = connections;
  }
}
