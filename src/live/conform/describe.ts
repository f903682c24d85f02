// How conform's evidence names what was on the wire: a message or a datagram
// of the server in brief, what the server did after a moment, and a datagram's
// hex (cut to the 512 bytes a datagram may hold).
import { MAX_DATAGRAM_BYTES, TYPE_ACK, TYPE_GAME, ackFlagsLowType, isLowType, toHex } from '../../core/codec/index.js';
import type { Located } from '../../core/codec/index.js';
import { msToSeconds } from '../../core/engine/index.js';
import type { Arrival, ConformClient } from './client.js';

export function hexOf(bytes: Uint8Array): string {
  return toHex(bytes.length > MAX_DATAGRAM_BYTES ? bytes.subarray(0, MAX_DATAGRAM_BYTES) : bytes);
}

/** Two hex digits, upper case. */
function hex2(v: number): string {
  return (v & 0xff).toString(16).padStart(2, '0').toUpperCase();
}

/**
 * "game 0x20 seq 3 (high)", "type 0x00 seq 1 (low)", "ACK 4 (high, fragment 1)": one message in brief, for
 * evidence (the codec's describeMessage is the full form `bcsim decode` prints, flags and sizes included).
 */
export function messageInBrief(m: Located): string {
  if (m.type === TYPE_ACK)
    return `ACK ${m.seq} (${ackFlagsLowType(m.flags) ? 'low' : 'high'}${m.fragIndex === null ? '' : `, fragment ${m.fragIndex}`})`;
  const what = m.type === TYPE_GAME ? `game 0x${hex2(m.payload[0] ?? 0)}` : `type 0x${hex2(m.type)}`;
  return `${what}${m.seq === null ? '' : ` seq ${m.seq} (${isLowType(m.type) ? 'low' : 'high'}${m.fragIndex === null ? '' : `, fragment ${m.fragIndex}`})`}`;
}

/** Messages of one datagram named in evidence; the hex beside it has them all. */
const DESCRIBED_MESSAGES = 8;

/** What a datagram of the server held, message by message (the first few). */
export function describeArrival(arrival: Arrival): string {
  if (arrival.messages === null) return `undecodable (${arrival.error})`;
  const shown = arrival.messages.slice(0, DESCRIBED_MESSAGES).map(messageInBrief).join('; ');
  const more = arrival.messages.length - DESCRIBED_MESSAGES;
  return more > 0 ? `${shown}; … ${more} more` : shown;
}

/** What the server did after `sinceMs`: nothing, or its datagrams in brief. */
export function reactionSince(client: ConformClient, sinceMs: number): string {
  const after = client.arrivals.filter((a) => a.timeMs >= sinceMs);
  if (after.length === 0) return 'the server sent nothing more';
  const shown = after.slice(0, 3).map((a) => `+${msToSeconds(a.timeMs - sinceMs).toFixed(3)} s: ${describeArrival(a)}`);
  return `the server sent ${after.length} datagram${after.length === 1 ? '' : 's'} (${shown.join(' | ')}${after.length > 3 ? ' | …' : ''})`;
}
