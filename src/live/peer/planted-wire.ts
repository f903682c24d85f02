// Planted bugs of `bcsim peer server` that live on the wire rather than in the
// modelled transport (src/model/transport/planted-bugs.ts has every bug's meaning):
// each rewrites or drops a datagram the way a server with that bug would send or
// read it. Test-only: `bcsim conform` must catch each, and only its own cases. A
// live peer resolves its hooks once; one without such a bug holds NO_LIVE_PLANTED.
import { TYPE_ACK, ackFlagsFragment, newMessageHeader, readHeaders } from '../../core/codec/index.js';
import type { MessageHeader } from '../../core/codec/index.js';
import { MAX_DATAGRAM_BYTES } from '../../core/codec/index.js';
import type { PlantedBug, TransportSwitches } from '../../model/transport/index.js';

/** A seq's two bytes follow [type][flags_len u16] in every data message (transport-layer.md §3). */
const SEQ_AT = 3;

/**
 * own-seq-low-byte: the datagram as a server sends it whose seq counter is one
 * byte: every reliable message's seq keeps its low byte, the high byte is 0.
 */
export function ownSeqLowByte(bytes: Uint8Array): Uint8Array {
  const headers: MessageHeader[] = [];
  if (readHeaders(bytes, headers) !== null) return bytes;
  const out = bytes.slice();
  for (let i = 0; i < bytes[1]; i++) {
    const h = headers[i];
    if (h.type !== TYPE_ACK && h.reliable) out[h.offset + SEQ_AT + 1] = 0;
  }
  return out;
}

/**
 * fragment-ack-ends-datagram: the datagram as a server reads it whose parser takes a
 * 5-byte fragment ACK for the last message: the messages after it are cut off
 * (msg_count and length shortened). Other datagrams are returned as they are.
 */
export function cutAfterFragmentAck(bytes: Uint8Array): Uint8Array {
  const headers: MessageHeader[] = [newMessageHeader()];
  if (readHeaders(bytes, headers) !== null) return bytes;
  const count = bytes[1];
  for (let i = 0; i < count - 1; i++) {
    const h = headers[i];
    if (h.type !== TYPE_ACK || !ackFlagsFragment(h.flags)) continue;
    const out = bytes.slice(0, h.offset + h.size);
    out[1] = i + 1;
    return out;
  }
  return bytes;
}

/** The live peer's hook points for planted bugs. */
export interface LivePlanted {
  /** The datagram as the server reads it. */
  readonly read: (bytes: Uint8Array) => Uint8Array;
  /** The datagram as the server sends it. */
  readonly send: (bytes: Uint8Array) => Uint8Array;
  /** Is everything from this address (key) dropped, now that a datagram of `length` bytes came from it? */
  readonly stalls: (key: string, length: number) => boolean;
  /** A datagram from an address with no connection is read as the connection its peer id names. */
  readonly peerById: boolean;
}

const same = (bytes: Uint8Array): Uint8Array => bytes;

/** The hooks of a live peer with no live planted bug: shared, stateless. */
export const NO_LIVE_PLANTED: LivePlanted = Object.freeze({
  read: same,
  send: same,
  stalls: () => false,
  peerById: false,
});

/** stall-on-oversize: after a datagram over 512 bytes, nothing more from that address is read. */
function stallOnOversize(): LivePlanted {
  const stalled = new Set<string>();
  const stalls = (key: string, length: number): boolean => {
    if (length > MAX_DATAGRAM_BYTES) stalled.add(key);
    return stalled.has(key);
  };
  return { ...NO_LIVE_PLANTED, stalls };
}

/** The live bugs and the hooks each sets (a stateful one gets fresh state per peer). */
const LIVE_PLANTED_TABLE: { readonly [B in PlantedBug]?: () => LivePlanted } = {
  'stall-on-oversize': stallOnOversize,
  'own-seq-low-byte': () => ({ ...NO_LIVE_PLANTED, send: ownSeqLowByte }),
  'fragment-ack-ends-datagram': () => ({ ...NO_LIVE_PLANTED, read: cutAfterFragmentAck }),
  'peer-by-id': () => ({ ...NO_LIVE_PLANTED, peerById: true }),
};

/** The live hooks of the run's planted bug: NO_LIVE_PLANTED unless it is one of the live ones. */
export function livePlanted(switches: TransportSwitches): LivePlanted {
  return LIVE_PLANTED_TABLE[switches.plantedBug]?.() ?? NO_LIVE_PLANTED;
}
