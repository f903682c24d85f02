// The packet comments of a capture: per message, the trace's words in short
// (no flags_len or payload size: Wireshark shows the bytes), with the trace's
// marks, so a packet reads like its trace line. For example
//   game reliable+fragment seq=2 frag=1 [RETRANSMIT #3]
//   ack seq=2 frag=0 (fragment) ; ack seq=1 [DEAD-ZONE ACK, pass 2]
//   DROPPED by link: loss | ack seq=7
//   REWRITTEN by link rule: removed #2 ack seq=3 | game unreliable ; ack seq=3
//   game unreliable (x4) ; ack seq=2955..2970 [DEAD-ZONE ACK, pass 2]
// (unreliable messages alike in a row are written once with their count, and
// three or more ACKs alike for consecutive seqs in a row as one range).
// Marks and the numbering of re-sends follow trace/format.ts (`annotation`)
// and trace/collector.ts; the tests hold the two together.
//
// A 4-hour run has ~230,000 packets, so comments are written as ASCII bytes
// straight into the file's buffer, reading the message headers in place: no
// string, array or object per packet. A message the fast reader does not
// accept is left to the codec's reader, whose error the comment quotes.
import {
  ACK_BYTES,
  CLIENT_CONNECT_LABEL,
  DATAGRAM_HEADER_BYTES,
  DATA_HEADER_BYTES,
  FRAGMENT_ACK_BYTES,
  TYPE_ACK,
  TYPE_CONNECT_ACK,
  TYPE_GAME,
  TYPE_NAMES,
  ackFlagsAt,
  ackFlagsFragment,
  ackFlagsLowType,
  ackFlagsOther,
  ackFragIndexAt,
  ackSeqAt,
  dataHeaderBytes,
  flagsLenAt,
  flagsLenFragment,
  flagsLenOrdered,
  flagsLenReliable,
  flagsLenSize,
  isDecodeError,
  isKnownType,
  isLowType,
  packKeyOf,
  readMessage,
  seqNext,
  u16At,
  messageCountOf,
} from '../../core/codec/index.js';
import { DROP_CAUSES } from '../../model/link/index.js';
import type { DropCause } from '../../model/link/index.js';
import { SendNote } from '../../model/transport/index.js';
import type { Role } from '../../model/transport/index.js';
import { DEAD_ZONE_MARK, RETRANSMIT_MARK } from '../../model/trace/index.js';

/** Separates messages, as in the trace. */
const MESSAGE_SEPARATOR = ' ; ';
/** Separates what the link did from the messages, and one deed from another. */
export const FATE_SEPARATOR = ' | ';
const DROPPED_PREFIX = 'DROPPED by link: ';
/** The proxy's comment on a datagram it dropped: `DROPPED (loss)` (live/proxy/relay.ts). */
const PROXY_DROPPED = /^DROPPED \(([a-z]+)\)/;

/**
 * The cause in a packet comment bcsim wrote on a datagram that never arrived:
 * `DROPPED by link: loss | …` (a run's capture) or `DROPPED (loss)` (the proxy's).
 * Null for any other comment, or none.
 */
export function droppedCauseOf(comment: string | null): DropCause | null {
  if (comment === null) return null;
  const cause = comment.startsWith(DROPPED_PREFIX)
    ? /^[a-z]+/.exec(comment.slice(DROPPED_PREFIX.length))?.[0]
    : PROXY_DROPPED.exec(comment)?.[1];
  return cause !== undefined && (DROP_CAUSES as readonly string[]).includes(cause) ? (cause as DropCause) : null;
}
const REWRITTEN_PREFIX = 'REWRITTEN by link rule: removed ';

/** ACKs alike for consecutive seqs are written as one range from this many on. */
const ACK_RUN = 3;

/** Room a message's words can take, at most (the longest is ~105 bytes). */
export const MAX_MESSAGE_COMMENT_BYTES = 128;

/**
 * Numbers transmissions per connection, sender and reliable message (category,
 * seq, fragment index) exactly as the trace collector does: a first send
 * starts again at 0 (after a u16 wrap the seq is a new message), every other
 * transmission is the count of those before it. The common case, a whole high
 * (0x32) message, is a slot of one 65,536-entry table per connection and
 * sender (256 KiB, made on first use), so memory stays bounded however long the
 * run; low-type messages and fragments, which are rare, go to a map keyed by a
 * small integer. No strings either way.
 */
export class TransmissionCounter {
  private readonly tables: Array<Uint32Array | undefined> = [];
  private readonly maps: Array<Map<number, number> | undefined> = [];

  /** Transmissions of this message from `from` before this one. */
  count(client: number, from: Role, low: boolean, seq: number, fragIndex: number, note: number): number {
    const index = 2 * client + (from === 'client' ? 1 : 0);
    if (!low && fragIndex < 0) {
      let table = this.tables[index];
      if (table === undefined) this.tables[index] = table = new Uint32Array(0x10000);
      const n = note === SendNote.FirstSend ? 0 : table[seq];
      if (n < 0xffffffff) table[seq] = n + 1;
      return n;
    }
    let map = this.maps[index];
    if (map === undefined) this.maps[index] = map = new Map();
    // The codec's packed message key: a small integer.
    const key = packKeyOf(low, seq, fragIndex >= 0, fragIndex >= 0 ? fragIndex : 0);
    const n = note === SendNote.FirstSend ? 0 : (map.get(key) ?? 0);
    map.set(key, n + 1);
    return n;
  }
}

/**
 * Writes ASCII into a byte array from `pos`, never past `limit` (the rest is
 * cut). Reused for every packet: `reset` points it at the next comment.
 */
export class CommentWriter {
  bytes: Uint8Array = new Uint8Array(0);
  pos = 0;
  limit = 0;
  /** Fields of the last message `readHeader` read. */
  private type = 0;
  private reliable = false;
  private ordered = false;
  private fragment = false;
  private seq = -1;
  private fragIndex = -1;
  private fragCount = -1;
  private ackFlags = 0;

  reset(bytes: Uint8Array, pos: number, limit: number): void {
    this.bytes = bytes;
    this.pos = pos;
    this.limit = limit;
  }

  text(s: string): void {
    const b = this.bytes;
    let p = this.pos;
    const n = Math.min(s.length, this.limit - p);
    for (let i = 0; i < n; i++) b[p++] = s.charCodeAt(i) & 0x7f;
    this.pos = p;
  }

  uint(value: number): void {
    if (value < 10) {
      if (this.pos < this.limit) this.bytes[this.pos++] = 48 + value;
      return;
    }
    this.text(String(value));
  }

  /**
   * The comment of a datagram `from` sent: each message's words and mark,
   * numbering re-sends with `counter` (call once per datagram, in send order).
   */
  datagram(
    bytes: Uint8Array,
    notes: readonly SendNote[],
    from: Role,
    client: number,
    counter: TransmissionCounter,
  ): void {
    const count = bytes.length >= DATAGRAM_HEADER_BYTES ? messageCountOf(bytes) : 0;
    if (bytes.length < DATAGRAM_HEADER_BYTES)
      this.text(`malformed: datagram header needs 2 bytes, got ${bytes.length}`);
    let offset = DATAGRAM_HEADER_BYTES;
    for (let i = 0; i < count; i++) {
      if (i > 0) this.text(MESSAGE_SEPARATOR);
      const run = this.ackRun(bytes, offset, i, count, notes);
      if (run > 0) {
        offset = run;
        i = this.runEnd;
        this.mark(notes[i], 0);
        continue;
      }
      const size = this.message(bytes, offset, from);
      if (size < 0) return;
      offset += size;
      const note = notes[i];
      if (this.type !== TYPE_ACK && !this.reliable && this.fragIndex < 0 && i + 1 < count) {
        const same = this.sameUnreliable(bytes, offset, i + 1, count, notes, note);
        if (same > 0) {
          this.text(' (x');
          this.uint(same + 1);
          this.text(')');
          offset = this.runOffset;
          i += same;
        }
      }
      this.mark(
        note,
        this.type !== TYPE_ACK && this.reliable
          ? counter.count(client, from, isLowType(this.type), this.seq, this.fragIndex, note)
          : 0,
      );
    }
  }

  /** The trace's mark for a message sent with `note`, `n` its earlier transmissions. */
  private mark(note: number, n: number): void {
    if (note === SendNote.Retransmit) {
      this.text(RETRANSMIT_MARK);
      this.uint(n);
      this.text(']');
    } else if (note === SendNote.StaleAck) {
      this.text(DEAD_ZONE_MARK);
    }
  }

  /** Offset after the run `sameUnreliable` counted. */
  private runOffset = 0;

  /**
   * How many messages from index `next` (at `offset`) are unreliable data of the
   * same type and flags as the one just written, with the same note: they are
   * written once, `game unreliable (x4)`. The offset after them goes to `runOffset`.
   */
  private sameUnreliable(
    bytes: Uint8Array,
    offset: number,
    next: number,
    count: number,
    notes: readonly SendNote[],
    note: SendNote,
  ): number {
    const type = this.type;
    const ordered = this.ordered;
    const fragment = this.fragment;
    let same = 0;
    let at = offset;
    for (let i = next; i < count; i++) {
      if (notes[i] !== note) break;
      const size = this.readHeader(bytes, at);
      if (
        size < 0 ||
        this.type !== type ||
        this.reliable ||
        this.ordered !== ordered ||
        this.fragment !== fragment ||
        this.fragIndex >= 0
      )
        break;
      same++;
      at += size;
    }
    this.runOffset = at;
    // The fields are the first message's again (the counter below reads them).
    this.type = type;
    this.reliable = false;
    this.ordered = ordered;
    this.fragment = fragment;
    return same;
  }

  /** Index of the last message of the run `ackRun` wrote. */
  private runEnd = 0;

  /**
   * ACKs alike (same flags, no fragment index, same note) for consecutive seqs,
   * ACK_RUN or more in a row, as one range: `ack seq=2955..2970 [DEAD-ZONE ACK, pass 2]`
   * (a stock outbox sends dozens). Writes it and returns the offset after the
   * run, its last index in `runEnd`; 0 (nothing written) if there is no such run.
   */
  private ackRun(bytes: Uint8Array, offset: number, first: number, count: number, notes: readonly SendNote[]): number {
    if (count - first < ACK_RUN || this.readHeader(bytes, offset) !== ACK_BYTES || this.type !== TYPE_ACK) return 0;
    const flags = this.ackFlags;
    const note = notes[first];
    const start = this.seq;
    let last = start;
    let at = offset + ACK_BYTES;
    let i = first + 1;
    for (; i < count; i++) {
      if (
        notes[i] !== note ||
        this.readHeader(bytes, at) !== ACK_BYTES ||
        this.type !== TYPE_ACK ||
        this.ackFlags !== flags ||
        this.seq !== seqNext(last)
      )
        break;
      last = this.seq;
      at += ACK_BYTES;
    }
    if (i - first < ACK_RUN) return 0;
    this.text('ack seq=');
    this.uint(start);
    this.text('..');
    this.uint(last);
    this.ackFlagsText(flags);
    this.runEnd = i - 1;
    return at;
  }

  /** "DROPPED by link: loss". */
  dropped(cause: DropCause): void {
    this.text(DROPPED_PREFIX);
    this.text(cause);
  }

  /** "REWRITTEN by link rule: removed #2 ack seq=3, #3 …": the messages of `before` missing from `after`, by position. */
  rewritten(before: Uint8Array, after: Uint8Array, sender: Role): void {
    this.text(REWRITTEN_PREFIX);
    const was = before.length >= 2 ? before[1] : 0;
    const now = after.length >= 2 ? after[1] : 0;
    let offset = 2;
    let kept = 2;
    let j = 0;
    let removed = 0;
    for (let i = 0; i < was; i++) {
      const size = this.readHeader(before, offset);
      if (size < 0) break;
      const keptSize = j < now ? this.readHeader(after, kept) : -1;
      if (keptSize === size && sameBytes(before, offset, after, kept, size)) {
        j++;
        kept += size;
      } else {
        if (removed++ > 0) this.text(', ');
        this.text('#');
        this.uint(i + 1);
        this.text(' ');
        this.message(before, offset, sender);
      }
      offset += size;
    }
    if (removed === 0) this.text('nothing');
  }

  /**
   * Writes the words of the message at `offset` and returns its size; a message
   * the codec cannot read gets its error ("malformed at offset 7: …") and -1.
   */
  message(bytes: Uint8Array, offset: number, sender: Role): number {
    const size = this.readHeader(bytes, offset);
    if (size < 0) {
      const read = readMessage(bytes, offset, bytes.length);
      this.text(
        isDecodeError(read)
          ? `malformed at offset ${read.offset}: ${read.reason}`
          : `unreadable message at offset ${offset}`,
      );
      return -1;
    }
    const type = this.type;
    if (type === TYPE_ACK) {
      this.text('ack seq=');
      this.uint(this.seq);
      if (this.fragIndex >= 0) {
        this.text(' frag=');
        this.uint(this.fragIndex);
      }
      this.ackFlagsText(this.ackFlags);
      return size;
    }
    if (type === TYPE_GAME) this.text('game');
    else if (type === TYPE_CONNECT_ACK && sender === 'client') this.text(CLIENT_CONNECT_LABEL);
    else {
      this.text(TYPE_NAMES[type]);
      this.text(' (0x');
      this.text(hex2(type));
      this.text(')');
    }
    if (this.reliable)
      this.text(
        this.ordered
          ? this.fragment
            ? ' reliable+ordered+fragment'
            : ' reliable+ordered'
          : this.fragment
            ? ' reliable+fragment'
            : ' reliable',
      );
    else if (this.ordered) this.text(this.fragment ? ' ordered+fragment' : ' ordered');
    else this.text(this.fragment ? ' fragment' : ' unreliable');
    if (this.seq >= 0) {
      this.text(' seq=');
      this.uint(this.seq);
    }
    if (this.fragIndex >= 0) {
      this.text(' frag=');
      this.uint(this.fragIndex);
      if (this.fragCount >= 0) {
        this.text('/');
        this.uint(this.fragCount);
      }
    }
    return size;
  }

  /** The trace's words for an ACK's flags: ` (fragment)`, ` (low-type)`, other bits in hex. */
  private ackFlagsText(flags: number): void {
    if (ackFlagsFragment(flags)) this.text(ackFlagsLowType(flags) ? ' (fragment, low-type)' : ' (fragment)');
    else if (ackFlagsLowType(flags)) this.text(' (low-type)');
    if (ackFlagsOther(flags) !== 0) this.text(` flags=0x${hex2(flags)}`);
  }

  /**
   * Reads the header of the message at `offset` in place (the codec's layout,
   * docs/sources.md 2–4) into this writer's fields; returns its size, or -1 for
   * anything unusual (the codec's reader then says what).
   */
  private readHeader(bytes: Uint8Array, offset: number): number {
    const remaining = bytes.length - offset;
    if (remaining < 1) return -1;
    const type = bytes[offset];
    this.type = type;
    this.seq = -1;
    this.fragIndex = -1;
    this.fragCount = -1;
    if (type === TYPE_ACK) {
      if (remaining < ACK_BYTES) return -1;
      const flags = ackFlagsAt(bytes, offset);
      const fragment = ackFlagsFragment(flags);
      if (fragment && remaining < FRAGMENT_ACK_BYTES) return -1;
      this.ackFlags = flags;
      this.seq = ackSeqAt(bytes, offset);
      if (fragment) this.fragIndex = ackFragIndexAt(bytes, offset);
      this.reliable = false;
      return fragment ? FRAGMENT_ACK_BYTES : ACK_BYTES;
    }
    if (!isKnownType(type) || remaining < DATA_HEADER_BYTES) return -1;
    const flagsLen = flagsLenAt(bytes, offset);
    const reliable = flagsLenReliable(flagsLen);
    const fragment = flagsLenFragment(type, flagsLen);
    const size = flagsLenSize(type, flagsLen);
    // The fixed header, before frag_idx says whether total_frags follows.
    const header = dataHeaderBytes(reliable, fragment, 1);
    if (size > remaining || size < header) return -1;
    this.reliable = reliable;
    this.ordered = flagsLenOrdered(flagsLen);
    this.fragment = fragment;
    let pos = offset + DATA_HEADER_BYTES;
    if (reliable) {
      this.seq = u16At(bytes, pos);
      pos += 2;
    }
    if (fragment) {
      this.fragIndex = bytes[pos++];
      if (this.fragIndex === 0) {
        if (size < header + 1) return -1;
        this.fragCount = bytes[pos];
      }
    }
    return size;
  }
}

function sameBytes(a: Uint8Array, at: number, b: Uint8Array, bt: number, size: number): boolean {
  for (let k = 0; k < size; k++) if (a[at + k] !== b[bt + k]) return false;
  return true;
}

function hex2(value: number): string {
  return (value & 0xff).toString(16).padStart(2, '0').toUpperCase();
}

/** A comment as text (tests, and anything not on the hot path). */
export function commentText(write: (w: CommentWriter) => void, maxBytes = 0xffff): string {
  const w = new CommentWriter();
  const buffer = new Uint8Array(maxBytes);
  w.reset(buffer, 0, maxBytes);
  write(w);
  return Buffer.from(buffer.buffer, 0, w.pos).toString('latin1');
}
