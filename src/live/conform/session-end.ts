// How the server ends a conformance session: a Boot that names it, the server's
// own Disconnect, or silence (a keepalive of ours goes unACKed). A case's FAIL
// that follows such an end is first of all that end: the report names it before
// the symptom it caused.
import { TYPE_ACK, TYPE_BOOT, TYPE_DISCONNECT, TYPE_GAME, ackFlagsLowType, isLowType } from '../../core/codec/index.js';
import type { DataMessage, Located } from '../../core/codec/index.js';
import { msToSeconds } from '../../core/engine/index.js';
import { Opcode } from '../../model/traffic/index.js';

/** One message of the server, with when it came (what client.ts and the cases pass around). */
interface TimedMessage {
  readonly timeMs: number;
  readonly message: Located;
}

export interface SessionEnd {
  readonly how: 'boot' | 'disconnect' | 'silent';
  /** When: the Boot or Disconnect, or the server's last datagram before the silence (ms since open). */
  readonly timeMs: number;
  /** What the server did, in a few words ("a game BootPlayer, reason 4"). */
  readonly detail: string;
  /** Silence: when our unanswered keepalive asked. */
  readonly askedMs?: number;
}

/** A transport Boot (type 0x04) or a game BootPlayer (opcode 0x04 in type 0x32). */
export function isBoot(m: TimedMessage): boolean {
  const d = m.message;
  return (
    d.type !== TYPE_ACK &&
    (d.type === TYPE_BOOT || (d.type === TYPE_GAME && d.payload.length > 0 && d.payload[0] === Opcode.BootPlayer))
  );
}

/**
 * A Boot that removes the session of `slot`: a game BootPlayer, or a transport Boot
 * naming that slot. A transport Boot naming another slot tells us that player is
 * gone (the stock server Boots a timed-out peer to every other peer).
 */
export function bootsUs(session: { readonly slot: number | null }, m: TimedMessage): boolean {
  if (!isBoot(m) || m.message.type === TYPE_ACK) return false;
  return m.message.type !== TYPE_BOOT || session.slot === null || m.message.payload[0] === session.slot;
}

/** The end this message makes of a session with `slot`, if it is one. */
export function sessionEndOf(slot: number | null, m: TimedMessage): SessionEnd | null {
  const d = m.message;
  if (d.type === TYPE_ACK) return null;
  if (bootsUs({ slot }, m)) return { how: 'boot', timeMs: m.timeMs, detail: bootDetail(d) };
  // The decoder reads a reimplementation's type-0x06 Disconnect as the stock 0x05 (a named deviation).
  if (d.type === TYPE_DISCONNECT) return { how: 'disconnect', timeMs: m.timeMs, detail: 'its Disconnect' };
  return null;
}

function bootDetail(d: DataMessage): string {
  const bytes = [...d.payload].map((b) => b.toString(16).padStart(2, '0').toUpperCase()).join(' ');
  return d.type === TYPE_BOOT
    ? `a transport Boot (type 0x04, payload ${bytes || 'empty'})`
    : `a game BootPlayer (opcode 0x04, reason ${d.payload[1] ?? '?'})`;
}

/** Is `m` the server's ACK of our reliable `message` (its seq, category and fragment index)? */
export function isAckOf(m: Located, message: DataMessage): boolean {
  if (m.type !== TYPE_ACK || m.seq !== message.seq) return false;
  if (ackFlagsLowType(m.flags) !== isLowType(message.type)) return false;
  return message.fragment ? m.fragIndex === message.fragIndex : true;
}

/** "went silent: …": what the server's silence looked like when a keepalive asked at `askedMs`. */
export function silenceDetail(session: { readonly lastArrivalMs: number }, askedMs: number, waitedMs: number): string {
  const last = session.lastArrivalMs;
  const heard = last < 0 ? 'nothing ever came from it' : `nothing from it since t=${msToSeconds(last).toFixed(3)} s`;
  return `it went silent: ${heard}, and nothing answered our keepalive at t=${msToSeconds(askedMs).toFixed(3)} s in ${msToSeconds(waitedMs).toFixed(1)} s`;
}

/** "the server sent a game BootPlayer (opcode 0x04, reason 4) at t=1.234 s" / "it went silent: …". */
export function describeEnd(end: SessionEnd): string {
  return end.how === 'silent'
    ? end.detail
    : `the server sent ${end.detail} at t=${msToSeconds(end.timeMs).toFixed(3)} s`;
}

/** A checksum answer the server refused: which round, what we sent, what it did. */
export interface Refusal {
  readonly round: string;
  /** Our answer's hashes, in brief, and where they came from. */
  readonly sent: string;
  /** What the server did ("a game BootPlayer (opcode 0x04, reason 4) at t=…", "it went silent: …"). */
  readonly did: string;
}

/** The one line that says a server refused our checksum answer, and what to do. */
export function refusalLine(refusal: Refusal): string {
  return `the server refused our round-${refusal.round} checksum answer (${refusal.sent}): ${refusal.did} — if it checks file hashes, give it its manifest with --manifest FILE`;
}
