// Datagrams bcsim could not read, counted by source address with the first
// few shown in hex, for every live summary and conform's report. Garbage is
// named as garbage, never counted only as "received". Bounded: a flood from
// many addresses keeps MAX_SOURCES of them and counts the rest together.
import { toHex } from '../core/codec/index.js';

/** Source addresses tracked one by one; the rest are counted in `otherSources`. */
export const MAX_SOURCES = 16;
/** Datagrams shown in hex per source. */
export const SHOWN_PER_SOURCE = 3;
/** Bytes of one shown datagram. */
const SHOWN_BYTES = 48;

export interface UnreadableSource {
  readonly address: string;
  count: number;
  /** The first datagrams, decrypted, in hex, each with why it does not read. */
  readonly first: Array<{ hex: string; bytes: number; reason: string }>;
}

export interface UnreadableFigures {
  /** Every unreadable datagram, from any address. */
  total: number;
  bySource: UnreadableSource[];
  /** Unreadable datagrams from addresses past the first MAX_SOURCES. */
  otherSources: number;
}

export class UnreadableCounter {
  private readonly sources = new Map<string, UnreadableSource>();
  total = 0;
  private other = 0;

  /** One datagram from `address` that does not read: `plain` decrypted, `reason` why. */
  add(address: string, plain: Uint8Array, reason: string): void {
    this.total++;
    let source = this.sources.get(address);
    if (source === undefined) {
      if (this.sources.size >= MAX_SOURCES) {
        this.other++;
        return;
      }
      source = { address, count: 0, first: [] };
      this.sources.set(address, source);
    }
    source.count++;
    if (source.first.length < SHOWN_PER_SOURCE)
      source.first.push({ hex: toHex(plain.subarray(0, SHOWN_BYTES), ''), bytes: plain.length, reason });
  }

  figures(): UnreadableFigures {
    return {
      total: this.total,
      bySource: [...this.sources.values()].map((s) => ({ ...s, first: s.first.map((f) => ({ ...f })) })),
      otherSources: this.other,
    };
  }
}

/** One line for a text summary: "none", or the total and each source's count. */
export function unreadableLine(f: UnreadableFigures): string {
  if (f.total === 0) return 'none';
  const each = f.bySource.map((s) => `${s.count} from ${s.address}`);
  if (f.otherSources > 0) each.push(`${f.otherSources} from other addresses`);
  const first = f.bySource[0]?.first[0];
  const sample =
    first === undefined ? '' : `; first: ${first.hex}${first.bytes > SHOWN_BYTES ? '…' : ''} (${first.reason})`;
  return `${f.total} (${each.join(', ')})${sample}`;
}
