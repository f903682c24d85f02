// What the live peer saw on its socket: every datagram either end
// sent, decrypted, with its wall time. Conformance rules and the counterpart's
// analysis read it. Bounded in bytes: records are kept in arrival order until
// their estimated memory reaches the budget, and later ones are only counted,
// so the rules and the analysis judge a complete prefix of the session.
// Datagrams of the counterpart that do not decode may take at most an eighth
// of the budget: a flood of garbage cannot crowd out the session's traffic
// (the live summary counts every one of them by source, unreadable.ts).
import type { Deviation } from '../core/codec/index.js';
import { datagramMessages } from '../analysis/capture/index.js';

export type WireSide = 'local' | 'remote';

export interface WireRecord {
  /** Microseconds since the live run started (the WallClock's time). */
  readonly timeUs: number;
  /**
   * Set on a datagram read just after our process stalled: the earliest it may
   * have arrived (it may have waited in the socket's queue since then).
   */
  readonly arrivedFromUs?: number;
  /** 'local' = bcsim sent it; 'remote' = the counterpart (the real server or client) sent it. */
  readonly from: WireSide;
  /** The connection's live index: the k-th connection opened (a reused place opens a new one), or 1 for a client. */
  readonly connection: number;
  /** Decrypted datagram as the transport read it: peer id byte, then messages (transport-layer.md §2); a reimplementation's wire forms in their stock form (docs/sources.md 30). */
  readonly bytes: Uint8Array;
  /** The decrypted datagram as sent, when its stock form differs. */
  readonly wire?: Uint8Array;
  /** The deviations from the stock form named in it (docs/sources.md 30), when there were any. */
  readonly deviations?: readonly Deviation[];
}

/** A mebibyte: the unit of --wire-log-mb. */
export const BYTES_PER_MIB = 1_048_576;
/** The wire log's budget unless --wire-log-mb says otherwise. */
export const DEFAULT_WIRE_LOG_MIB = 64;
/**
 * The most --wire-log-mb takes: a record's object stays on the V8 heap (capped at 896 MB
 * in the bcsim binary), about half its cost for a typical datagram of 100 bytes.
 */
export const MAX_WIRE_LOG_MIB = 1024;

/**
 * Memory a record costs beyond its bytes, measured on Node 20 (RSS over 200,000 records of
 * 100 bytes): 722 bytes for a record with one array, 1,162 with a wire copy, 1,376 with a
 * wire copy and one deviation. The estimate: the record, plus each array, plus each deviation.
 */
const RECORD_BYTES = 300;
/** A Uint8Array with its own ArrayBuffer (view, buffer, backing store), beyond its bytes. */
const BYTE_ARRAY_BYTES = 330;
/** A Deviation with its note. */
const DEVIATION_BYTES = 200;
/** The share of the budget the counterpart's undecodable datagrams may take (1/8). */
const UNREADABLE_SHARE_DIVISOR = 8;

/** The estimated memory of one record, in bytes. */
export function wireRecordBytes(record: WireRecord): number {
  let bytes = RECORD_BYTES + BYTE_ARRAY_BYTES + record.bytes.length;
  if (record.wire !== undefined && record.wire !== record.bytes) bytes += BYTE_ARRAY_BYTES + record.wire.length;
  if (record.deviations !== undefined) bytes += DEVIATION_BYTES * record.deviations.length;
  return bytes;
}

export class WireLog {
  readonly records: WireRecord[] = [];
  /** Estimated bytes the kept records hold. */
  bytes = 0;
  /** Of those, the counterpart's records that do not decode. */
  unreadableBytes = 0;
  /** Records not kept because the budget was spent, and their estimated bytes. */
  dropped = 0;
  droppedBytes = 0;
  /** Of the records not kept, the counterpart's that do not decode (their share was spent). */
  droppedUnreadable = 0;
  /**
   * When the first decodable record was not kept (µs), or null: the log is complete
   * up to this time, and rules judged on it should end there.
   */
  completeUntilUs: number | null = null;
  readonly budgetBytes: number;

  constructor(budgetBytes: number = DEFAULT_WIRE_LOG_MIB * BYTES_PER_MIB) {
    if (!(Number.isSafeInteger(budgetBytes) && budgetBytes > 0))
      throw new Error(`wire log: the budget must be a positive whole number of bytes, not ${budgetBytes}`);
    this.budgetBytes = budgetBytes;
  }

  /** `unreadable`: the counterpart's datagram does not decode; a caller that already read it says so. */
  add(record: WireRecord, unreadable = record.from === 'remote' && datagramMessages(record.bytes) < 0): void {
    const cost = wireRecordBytes(record);
    const fits =
      this.bytes + cost <= this.budgetBytes &&
      !(unreadable && this.unreadableBytes + cost > this.budgetBytes / UNREADABLE_SHARE_DIVISOR);
    if (!fits) {
      this.dropped++;
      this.droppedBytes += cost;
      if (unreadable) this.droppedUnreadable++;
      else this.completeUntilUs ??= record.timeUs;
      return;
    }
    this.records.push(record);
    this.bytes += cost;
    if (unreadable) this.unreadableBytes += cost;
  }
}
