// Turns a run into a pcapng capture, as a SessionObserver.
//
// Capture point: the sender's network interface. Every datagram a peer sends is
// one packet at its send time, whatever the link then does to it: a datagram
// the link drops is in the capture (it left the sender) and its comment says
// so; one a message-scope rule rewrote is captured as it was sent and its
// comment names the messages the rule removed. Link duplicates and delays
// happen past the capture point and are not shown.
//
// A datagram's fate is reported after it was sent (the link decides during the
// send, right after `datagramSent`), so each packet waits in a small ring of
// PENDING_LIMIT reused slots until later sends push it out; `finish` writes the
// rest. Memory stays bounded whatever the length of the run: the ring, the
// writer's buffer and one counter map per connection and sender. A packet is
// written in place: frame headers from a template, the payload encrypted
// straight into the buffer, the comment as ASCII bytes after it.
import { usToMs, msToUsUnrounded } from '../../core/engine/index.js';
import type { DropCause } from '../../model/link/index.js';
import type { SessionObserver } from '../../model/session/index.js';
import type { SendNote, Role } from '../../model/transport/index.js';
import { VERSION } from '../../version.js';
import { endpointsOf, SERVER_ENDPOINT, SERVER_PORT } from './addresses.js';
import { DATAGRAM_HEADER_BYTES, encryptInto, messageCountOf } from '../../core/codec/index.js';
import { CommentWriter, FATE_SEPARATOR, MAX_MESSAGE_COMMENT_BYTES, TransmissionCounter } from './comments.js';
import { FRAME_HEADER_BYTES, FrameTemplate, LINKTYPE_ETHERNET, PcapngWriter, formatIp } from '../../core/pcap/index.js';
import type { PcapngSink } from '../../core/pcap/index.js';

/** Simulated time 0 is 2002-02-28T00:00:00Z in the capture: fixed, so the file is byte-deterministic. */
export const CAPTURE_EPOCH = '2002-02-28T00:00:00Z';
export const CAPTURE_EPOCH_US = msToUsUnrounded(Date.parse(CAPTURE_EPOCH));

/** Packets held until their fate is known. The link decides during the send, so one would do. */
export const PENDING_LIMIT = 32;

export interface CaptureOptions {
  /** UDP payloads as bcsim's codec sees them, instead of encrypted as the game sends them (AlbyRules). */
  readonly plaintext?: boolean;
  /** Wall-clock time of simulated time 0, in µs since 1970; default CAPTURE_EPOCH_US. */
  readonly epochUs?: number;
  /** Section comment, e.g. the scenario, mode and seed. */
  readonly comment?: string;
}

/** One sent datagram waiting for its fate; slots are reused. */
class Pending {
  timeUs = 0;
  from: Role = 'server';
  client = 0;
  /** The datagram as the sender emitted it: what is captured. */
  bytes: Uint8Array = EMPTY;
  notes: readonly SendNote[] = [];
  /** The datagram the link carries on (a rewrite replaces it); drops name this one. */
  current: Uint8Array = EMPTY;
  /** Set when a message-scope rule rewrote it (into `current`). */
  rewritten = false;
  dropped: DropCause | null = null;
}

const EMPTY = new Uint8Array(0);

export class CaptureRecorder implements SessionObserver {
  private readonly writer: PcapngWriter;
  private readonly counter = new TransmissionCounter();
  private readonly comment = new CommentWriter();
  private readonly ring: Pending[] = Array.from({ length: PENDING_LIMIT }, () => new Pending());
  /** Ring index of the oldest pending packet, and how many are pending. */
  private head = 0;
  private size = 0;
  private readonly epochUs: number;
  private readonly plaintext: boolean;
  /** Per client, the frame templates for its two directions: [client→server, server→client]. */
  private readonly templates: Array<[FrameTemplate, FrameTemplate] | undefined> = [];
  /** IPv4 identification per sending host: index 0 the server, k client k. */
  private readonly ipIds: number[] = [];
  private finished = false;
  /** Fates reported for a datagram no longer pending (should never happen; the tests check). */
  unmatchedFates = 0;

  constructor(sink: PcapngSink, options: CaptureOptions = {}) {
    this.epochUs = options.epochUs ?? CAPTURE_EPOCH_US;
    this.plaintext = options.plaintext === true;
    this.writer = new PcapngWriter(sink);
    // Formats the fixed epoch (never the clock): the file stays byte-deterministic.
    const epoch = `simulated time 0 is ${new Date(usToMs(this.epochUs)).toISOString()}`;
    this.writer.sectionHeader({
      application: `bcsim ${VERSION}`,
      comment: options.comment === undefined ? epoch : `${options.comment}; ${epoch}`,
    });
    this.writer.interfaceDescription({
      linkType: LINKTYPE_ETHERNET,
      name: 'bcsim',
      description: `simulated LAN, server ${formatIp(SERVER_ENDPOINT.ip)}:${SERVER_PORT}, captured at each sender; ${this.plaintext ? 'plaintext' : 'AlbyRules-encrypted'} payloads`,
      tsresolDecimals: 6,
    });
  }

  /** Packets written so far (all of them after `finish`). */
  get packets(): number {
    return this.writer.packets;
  }

  datagramSent(
    timeUs: number,
    from: Role,
    bytes: Uint8Array,
    _uids: readonly number[],
    notes: readonly SendNote[],
    client: number,
  ): void {
    if (this.finished) throw new Error('capture: datagram after finish');
    if (this.size === PENDING_LIMIT) this.emitOldest();
    const p = this.ring[(this.head + this.size++) % PENDING_LIMIT];
    p.timeUs = timeUs;
    p.from = from;
    p.client = client;
    p.bytes = bytes;
    p.current = bytes;
    p.notes = notes.slice(); // the transport lends its notes only for the call
    p.rewritten = false;
    p.dropped = null;
  }

  datagramDropped(_timeUs: number, _from: Role, bytes: Uint8Array, cause: DropCause, _client?: number): void {
    const p = this.find(bytes);
    if (p === undefined) this.unmatchedFates++;
    else p.dropped = cause;
  }

  datagramRewritten(_timeUs: number, _from: Role, before: Uint8Array, after: Uint8Array, _client?: number): void {
    const p = this.find(before);
    if (p === undefined) {
      this.unmatchedFates++;
      return;
    }
    p.rewritten = true;
    p.current = after;
  }

  /** Writes what is still pending and the last buffered bytes to the sink. */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    while (this.size > 0) this.emitOldest();
    this.writer.flush();
  }

  /** The pending packet the link is carrying as `bytes` (by identity: the link passes the sender's array on). */
  private find(bytes: Uint8Array): Pending | undefined {
    for (let i = this.size - 1; i >= 0; i--) {
      const p = this.ring[(this.head + i) % PENDING_LIMIT];
      if (p.current === bytes) return p;
    }
    return undefined;
  }

  private emitOldest(): void {
    const p = this.ring[this.head];
    this.head = (this.head + 1) % PENDING_LIMIT;
    this.size--;
    this.emit(p);
    p.bytes = p.current = EMPTY; // the slot keeps no datagram alive
    p.notes = [];
  }

  private emit(p: Pending): void {
    const bytes = p.bytes;
    const length = bytes.length;
    const messages = length >= DATAGRAM_HEADER_BYTES ? messageCountOf(bytes) : 0;
    const commentRoom = 192 + MAX_MESSAGE_COMMENT_BYTES * (p.rewritten ? 2 * messages : messages);
    const writer = this.writer;
    const at = writer.openPacket(this.epochUs + p.timeUs, FRAME_HEADER_BYTES + length, commentRoom);
    const out = writer.bytes;
    const host = p.from === 'server' ? 0 : p.client;
    const id = this.ipIds[host] ?? 0;
    this.ipIds[host] = (id + 1) & 0xffff;
    this.template(p.client, p.from).write(out, at, id, length);
    if (this.plaintext) out.set(bytes, at + FRAME_HEADER_BYTES);
    else encryptInto(bytes, out, at + FRAME_HEADER_BYTES);
    const c = this.comment;
    c.reset(out, writer.commentAt, writer.commentLimit);
    if (p.rewritten) {
      c.rewritten(bytes, p.current, p.from);
      c.text(FATE_SEPARATOR);
    }
    if (p.dropped !== null) {
      c.dropped(p.dropped);
      c.text(FATE_SEPARATOR);
    }
    c.datagram(bytes, p.notes, p.from, p.client, this.counter);
    writer.closePacket(c.pos - writer.commentAt);
  }

  private template(client: number, from: Role): FrameTemplate {
    let pair = this.templates[client];
    if (pair === undefined) {
      const up = endpointsOf('client', client);
      const down = endpointsOf('server', client);
      this.templates[client] = pair = [
        new FrameTemplate(up.source, up.destination),
        new FrameTemplate(down.source, down.destination),
      ];
    }
    return pair[from === 'client' ? 0 : 1];
  }
}
