// Modelled memory of the R-Type scheme, to stand beside BC's modelled transport
// memory (docs/sources.md 15). From the document's data structures
// (rtype-ack-system.md "Data Structures"): the store is a
// std::vector<std::pair<Packet, u_int32_t>>, so a stored packet costs its wire
// bytes plus a 4-byte tick; a pending list is a std::vector<u_int32_t>, 4 bytes an
// entry. The repaired design's per-packet timer adds a 4-byte next-send time to an
// entry. Container and Packet object overheads are left out: a lower bound, like
// BC's model, which counts objects and queue nodes but no allocator overhead.
import { DEATH_DATAGRAM_BYTES } from '../transport/index.js';
import type { RtypeSwitches } from '../transport/index.js';
import type { RtypeSeries, RtypeSummary } from '../session/index.js';

export const TICK_BYTES = 4;
export const PENDING_ID_BYTES = 4;
export const TIMER_BYTES = 4;

/** Bytes of one stored critical packet: a death notification and its tick. */
export const STORE_ENTRY_BYTES = DEATH_DATAGRAM_BYTES + TICK_BYTES;

export function pendingEntryBytes(switches: Pick<RtypeSwitches, 'resendTimer'>): number {
  return PENDING_ID_BYTES + (switches.resendTimer === 'per-packet' ? TIMER_BYTES : 0);
}

/** The server's modelled bytes at each sample of `series`. */
export function rtypeMemorySeries(series: RtypeSeries, switches: Pick<RtypeSwitches, 'resendTimer'>): number[] {
  const entry = pendingEntryBytes(switches);
  return series.storeSize.map((store, i) => store * STORE_ENTRY_BYTES + series.pendingTotal[i] * entry);
}

/** The server's modelled bytes at the end and at their peak (the samples and the final state). */
export function rtypeMemory(summary: RtypeSummary): { peak: number; final: number } {
  const final =
    summary.store.final * STORE_ENTRY_BYTES + summary.pending.finalTotal * pendingEntryBytes(summary.switches);
  return { final, peak: rtypeMemorySeries(summary.series, summary.switches).reduce((a, b) => Math.max(a, b), final) };
}
