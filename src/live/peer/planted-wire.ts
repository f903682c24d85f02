// Planted bugs of `bcsim peer server` that live on the wire rather than in the
// modelled transport (switches.ts PlantedBug): each rewrites a datagram the way a
// server with that bug would send or read it. Test-only: `bcsim conform` must
// catch each, and only its own cases.
import { TYPE_ACK, ackFlagsFragment, newMessageHeader, readHeaders } from '../../core/codec/index.js';
import type { MessageHeader } from '../../core/codec/index.js';

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
