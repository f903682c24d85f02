// The scripted client of `bcsim conform`: one UDP socket towards the server
// under test, the codec and the cipher, and nothing of the modelled transport.
// A case decides every byte it sends: which seq, which fragments in which
// order, which ACKs to withhold or forge. By default it behaves as a correct
// client would: it ACKs every reliable message it reads, once per copy
// (docs/sources.md 10), with a 5-byte ACK for a fragment (docs/sources.md 2).
import type { Socket } from 'node:dgram';
import {
  GAMESPY_FIRST_BYTE,
  PEER_ID_UNASSIGNED,
  TYPE_ACK,
  TYPE_DISCONNECT,
  TYPE_GAME,
  ackOfKey,
  decodeDialect,
  decrypt,
  encodeDatagram,
  encrypt,
  isLowType,
  seqNext,
} from '../../core/codec/index.js';
import { fragmentCount, fragmentSlice } from '../../model/transport/index.js';
import type { AckMessage, DataMessage, DataType, Deviation, Located, Message } from '../../core/codec/index.js';
import { bindUdp, formatHostPort } from '../endpoint.js';
import type { HostPort } from '../endpoint.js';
import { CampaignWire, UNREADABLE_KEPT_PER_SESSION, arrivalBytes, departureBytes } from './campaign-wire.js';
import { isAckOf, sessionEndOf, silenceDetail } from './session-end.js';
import type { Refusal, SessionEnd } from './session-end.js';

/** One datagram the server sent us, decrypted and read. */
export interface Arrival {
  /** Milliseconds since the client opened. */
  readonly timeMs: number;
  readonly bytes: Uint8Array;
  /** null when the datagram does not decode (reason in `error`). */
  readonly messages: readonly Located[] | null;
  readonly error: string | null;
  /** Where the server's bytes depart from the stock form (docs/sources.md 30). */
  readonly deviations: readonly Deviation[];
}

/** One message the server sent, with the datagram it came in. */
export interface ServerMessage {
  readonly timeMs: number;
  readonly message: Located;
  readonly arrival: Arrival;
}

/** A datagram we sent, as plaintext (or the raw bytes of a hostile one). */
/**
 * A wire fault a case applies, by name (kebab-case). A datagram of ours that carries one
 * is marked with it; when the server removes the session right after that datagram, the
 * removal is blamed on it. The case that probes it declares it, with what it is
 * (ConformCase.probes), and that case is the root cause of whatever the removal broke.
 */
export type FaultKind = string;

export interface Departure {
  readonly timeMs: number;
  readonly bytes: Uint8Array;
  readonly note: string;
  /** The wire fault it carries, if any: a removal right after it is blamed on this kind. */
  readonly fault: FaultKind | null;
  /**
   * Our reliable messages in it whose ACK proves the server read this datagram. A datagram
   * with a proof is one a case's verdict rests on: its proof unACKed, no PASS stands.
   */
  readonly proof: readonly DataMessage[];
}

/** How a case marks a datagram it sends. */
export interface SendMark {
  readonly fault?: FaultKind;
  /** 'all': every reliable message of the datagram proves it was read. */
  readonly proof?: readonly DataMessage[] | 'all';
}

/** Explicit bounds: a session keeps at most this many datagrams each way, within the campaign's log budget (counted past either). */
const MAX_SESSION_DATAGRAMS = 200_000;
/** … and the ACKs of this many messages it left unACKed. */
const MAX_HELD_ACKS = 4096;
/** ACKs per datagram of ours (4 or 5 bytes each: well inside 512). */
const ACKS_PER_DATAGRAM = 100;

const NO_MARK: Pick<Departure, 'fault' | 'proof'> = { fault: null, proof: [] };

type Waiter = {
  readonly match: (m: ServerMessage) => boolean;
  readonly done: (m: ServerMessage | null) => void;
  readonly timer: NodeJS.Timeout;
};

export class ConformClient {
  readonly arrivals: Arrival[] = [];
  readonly departures: Departure[] = [];
  /** Datagrams the verdicts read (ours, the server's readable ones) not kept because a log, or the campaign's log budget, was full: the log is incomplete. */
  overflow = 0;
  /** Estimated bytes this session's log holds, of the campaign's budget. */
  logBytes = 0;
  /** The server's datagrams that did not read; past UNREADABLE_KEPT_PER_SESSION they are only counted. */
  private unreadableSeen = 0;
  /** When we last sent (ms since open): the idle keepalive's clock, kept whether or not the log keeps the datagram. */
  private lastSentMs = 0;
  /** Our slot, from the server's connect reply; the peer id of our datagrams once known. */
  slot: number | null = null;
  /** Next send seq per category (docs/sources.md 7): [high, low]. */
  private readonly sendSeq = [0, 0];
  /** Called on every datagram from the server (the campaign learns that it answers). */
  onArrival: () => void = () => {};
  /** We sent a Disconnect: the session said goodbye. */
  saidGoodbye = false;
  /** Return true to leave a reliable message of the server unACKed (the case's fault). */
  withhold: (m: ServerMessage) => boolean = () => false;
  /** The ACKs of messages left unACKed so far, by key: a leaving session sends them all (`ackHeld`). */
  private readonly held = new Map<string, AckMessage>();
  /** Held ACKs not kept because the map was full. */
  heldOverflow = 0;
  private readonly waiters = new Set<Waiter>();
  private idleTimer: NodeJS.Timeout | null = null;
  private closed = false;
  /** When the session opened, on the campaign's clock (ms). */
  readonly openedAtMs: number;
  /** How the server ended this session (a Boot, its Disconnect, or silence), once it did. */
  ended: SessionEnd | null = null;
  /** The checksum answer the server refused, when the join saw it do so. */
  refusal: Refusal | null = null;
  /** When the server's last datagram came (ms since open; -1 before the first). */
  lastArrivalMs = -1;
  /**
   * Drops a datagram that carries a proof before it leaves, as a server that discards it
   * unread would: the fault injection that shows a case cannot pass on an unread datagram.
   */
  dropProof: ((d: Departure) => boolean) | null = null;
  /** Datagrams `dropProof` dropped. */
  proofsDropped = 0;

  private constructor(
    private readonly socket: Socket,
    readonly server: HostPort,
    private readonly nowMs: () => number,
    /** Names the session in evidence ("retransmit", "removal/observer"). */
    readonly label: string,
    /** What every session received, and the budget of their logs. */
    private readonly wire: CampaignWire,
  ) {
    this.openedAtMs = nowMs();
    const bound = socket.address();
    this.local = `${bound.address}:${bound.port}`;
    this.serverAddress = formatHostPort({ address: server.host, port: server.port });
    socket.on('message', (msg, rinfo) => {
      if (rinfo.port !== server.port || rinfo.address !== server.host) {
        this.wire.foreign++;
        return;
      }
      this.onDatagram(new Uint8Array(msg.buffer, msg.byteOffset, msg.length));
    });
  }

  /** A client on its own socket, bound to `bindHost` on any port. */
  static async open(
    server: HostPort,
    bindHost: string,
    nowMs: () => number,
    label: string,
    wire: CampaignWire = new CampaignWire(),
  ): Promise<ConformClient> {
    const socket = await bindUdp({ host: bindHost, port: 0, family: server.family }, '--bind');
    return new ConformClient(socket, server, nowMs, label, wire);
  }

  /** The server's address as the unreadable counts name it. */
  private readonly serverAddress: string;

  /** Our address, "host:port" (kept from the bind: it outlives the socket). */
  readonly local: string;

  /** Milliseconds since this client opened. */
  get now(): number {
    return this.nowMs() - this.openedAtMs;
  }

  /**
   * Keeps the session alive as a client does: once it has a slot, a keepalive
   * (`build`) goes out whenever nothing was sent for `idleMs`. Stopped by
   * `quiet()` (a case that must fall silent) and by `close()`.
   */
  keepAlive(build: () => Message, idleMs: number): void {
    this.quiet();
    this.idleTimer = setInterval(
      () => {
        if (this.slot === null) return;
        if (this.now - this.lastSentMs >= idleMs) this.send([build()], 'Keepalive (idle)');
      },
      Math.max(50, idleMs / 4),
    );
  }

  /** No more idle keepalives. */
  quiet(): void {
    if (this.idleTimer !== null) clearInterval(this.idleTimer);
    this.idleTimer = null;
  }

  close(): void {
    if (this.closed) return;
    this.quiet();
    this.closed = true;
    for (const w of this.waiters) {
      clearTimeout(w.timer);
      w.done(null);
    }
    this.waiters.clear();
    this.socket.close();
  }

  /** The next seq of a category, taken (the counter moves on; it wraps at 65536, docs/sources.md 1). */
  takeSeq(low: boolean): number {
    const c = low ? 1 : 0;
    const seq = this.sendSeq[c];
    this.sendSeq[c] = seqNext(seq);
    return seq;
  }

  peekSeq(low: boolean): number {
    return this.sendSeq[low ? 1 : 0];
  }

  /** A reliable message of ours with the category's next seq. */
  reliable(type: DataType, payload: Uint8Array, ordered = type !== TYPE_GAME): DataMessage {
    return {
      type,
      reliable: true,
      ordered,
      fragment: false,
      seq: this.takeSeq(isLowType(type)),
      fragIndex: null,
      fragCount: null,
      payload,
    };
  }

  /** A game message split into fragments of `chunkBytes` that share one seq, as the transport splits it (transport-layer.md §5). */
  fragments(payload: Uint8Array, chunkBytes: number): DataMessage[] {
    const seq = this.takeSeq(false);
    const count = fragmentCount(payload.length, chunkBytes);
    const out: DataMessage[] = [];
    for (let i = 0; i < count; i++) {
      const chunk = fragmentSlice(payload, chunkBytes, i);
      out.push({
        type: TYPE_GAME,
        reliable: true,
        ordered: false,
        fragment: true,
        seq,
        fragIndex: i,
        fragCount: i === 0 ? count : null,
        payload: chunk,
      });
    }
    return out;
  }

  /** Sends one datagram of these messages, with our slot (0xFF before it is known) as peer id. */
  send(messages: readonly Message[], note = '', mark: SendMark = {}): Uint8Array {
    const encoded = encodeDatagram({ peerId: this.slot ?? PEER_ID_UNASSIGNED, messages });
    if (!encoded.ok) throw new Error(`conform: cannot encode our own datagram: ${encoded.error.reason}`);
    const proof =
      mark.proof === 'all'
        ? messages.filter((m): m is DataMessage => m.type !== TYPE_ACK && m.reliable)
        : (mark.proof ?? []);
    this.sendPlain(encoded.bytes, note, { fault: mark.fault ?? null, proof });
    // After our Disconnect the session is over: no more idle keepalives to draw answers.
    if (messages.some((m) => m.type === TYPE_DISCONNECT)) {
      this.saidGoodbye = true;
      this.quiet();
    }
    return encoded.bytes;
  }

  /**
   * Sends `messages` with our keepalive last in the same datagram: its ACK is the
   * witness that the server read the datagram, whatever the messages before it did.
   */
  sendWitnessed(messages: readonly Message[], note: string, fault: FaultKind, witness: DataMessage): Uint8Array {
    return this.send([...messages, witness], `${note}; our keepalive last, its ACK the witness`, {
      fault,
      proof: [witness],
    });
  }

  /** Sends plaintext bytes as they are (the cipher is applied on the way out). */
  sendPlain(bytes: Uint8Array, note = '', mark: Pick<Departure, 'fault' | 'proof'> = NO_MARK): void {
    const departure: Departure = { timeMs: this.now, bytes, note, ...mark };
    this.lastSentMs = departure.timeMs;
    this.log(this.departures, departure, departureBytes(bytes.length));
    if (departure.proof.length > 0 && this.dropProof?.(departure)) {
      this.proofsDropped++;
      return;
    }
    if (!this.closed) this.socket.send(encrypt(bytes), this.server.port, this.server.host);
  }

  /**
   * ACKs every message the session ever left unACKed (a duplicate ACK is harmless): a
   * server drains a leaving peer only once all its messages are ACKed.
   */
  ackHeld(): void {
    const acks = [...this.held.values()];
    this.held.clear();
    for (let i = 0; i < acks.length; i += ACKS_PER_DATAGRAM)
      this.send(acks.slice(i, i + ACKS_PER_DATAGRAM), 'ACKs of what the session left unACKed');
  }

  private hold(message: DataMessage): void {
    const ack = ackFor(message);
    const key = `${ack.flags}:${ack.seq}:${ack.fragIndex ?? -1}`;
    if (this.held.has(key)) return;
    if (this.held.size >= MAX_HELD_ACKS) this.heldOverflow++;
    else this.held.set(key, ack);
  }

  /** Sends raw bytes with no cipher: a hostile datagram the server must survive. */
  sendRaw(bytes: Uint8Array, note: string): void {
    const departure: Departure = { timeMs: this.now, bytes, note: `raw: ${note}`, fault: 'hostile', proof: [] };
    this.lastSentMs = departure.timeMs;
    this.log(this.departures, departure, departureBytes(bytes.length));
    if (!this.closed) this.socket.send(bytes, this.server.port, this.server.host);
  }

  /**
   * Is the server still serving this session? Once it ended it (Boot, its Disconnect)
   * that is known; otherwise a keepalive asks, and nothing at all from the server within
   * `waitMs` makes the session silent: removed without a word.
   */
  async probeAlive(keepalive: DataMessage, waitMs: number): Promise<SessionEnd | null> {
    if (this.ended !== null || this.closed || this.slot === null) return this.ended;
    const at = this.now;
    this.send([keepalive], 'Keepalive: is the session still served?');
    // Any datagram after it will do: a server whose ACK of our seq is wrong still serves us.
    await this.waitFor((m) => isAckOf(m.message, keepalive), waitMs, at);
    const heard = this.lastArrivalMs >= at;
    if (!heard && this.ended === null)
      this.ended = {
        how: 'silent',
        timeMs: Math.max(0, this.lastArrivalMs),
        detail: silenceDetail(this, at, waitMs),
        askedMs: at,
      };
    return this.ended;
  }

  /** Every message the server sent so far, in arrival order. */
  serverMessages(): ServerMessage[] {
    const out: ServerMessage[] = [];
    for (const arrival of this.arrivals)
      for (const message of arrival.messages ?? []) out.push({ timeMs: arrival.timeMs, message, arrival });
    return out;
  }

  /** The first message (already here or still to come) that matches, or null after `timeoutMs`. */
  waitFor(match: (m: ServerMessage) => boolean, timeoutMs: number, since = 0): Promise<ServerMessage | null> {
    const seen = this.serverMessages().find((m) => m.timeMs >= since && match(m));
    if (seen !== undefined) return Promise.resolve(seen);
    if (this.closed) return Promise.resolve(null);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        match,
        done: resolve,
        timer: setTimeout(
          () => {
            this.waiters.delete(waiter);
            resolve(null);
          },
          Math.max(0, timeoutMs),
        ),
      };
      this.waiters.add(waiter);
    });
  }

  /** Waits for `ms` while the socket keeps being read (and ACKed). */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
  }

  private onDatagram(cipher: Uint8Array): void {
    if (this.closed) return;
    this.onArrival();
    // A GameSpy reply shares the game port and goes in the clear (a datagram of ours that began with '\\' drew it).
    if (cipher.length > 0 && cipher[0] === GAMESPY_FIRST_BYTE) {
      this.wire.gamespy++;
      return;
    }
    const bytes = decrypt(cipher);
    // A reimplementation's wire forms are read, and their deviations kept (docs/sources.md 30).
    const decoded = decodeDialect(bytes);
    const arrival: Arrival = decoded.ok
      ? { timeMs: this.now, bytes, messages: decoded.datagram.messages, error: null, deviations: decoded.deviations }
      : {
          timeMs: this.now,
          bytes,
          messages: null,
          error: `offset ${decoded.error.offset}: ${decoded.error.reason}`,
          deviations: [],
        };
    this.lastArrivalMs = arrival.timeMs;
    if (arrival.messages === null) {
      this.wire.unreadable.add(this.serverAddress, bytes, arrival.error ?? '');
      // The first few are kept for evidence and --pcap; the rest only counted, so garbage cannot fill the log.
      if (++this.unreadableSeen <= UNREADABLE_KEPT_PER_SESSION)
        this.log(this.arrivals, arrival, arrivalBytes(bytes.length, 0), false);
      return;
    }
    this.wire.readable++;
    this.log(this.arrivals, arrival, arrivalBytes(bytes.length, arrival.messages.length));
    const acks: Message[] = [];
    for (const message of arrival.messages) {
      const m: ServerMessage = { timeMs: arrival.timeMs, message, arrival };
      this.ended ??= sessionEndOf(this.slot, m);
      if (message.type !== TYPE_ACK && message.reliable) {
        if (!this.withhold(m)) acks.push(ackFor(message));
        else this.hold(message);
      }
      for (const w of [...this.waiters]) {
        if (!w.match(m)) continue;
        this.waiters.delete(w);
        clearTimeout(w.timer);
        w.done(m);
      }
    }
    for (let i = 0; i < acks.length; i += ACKS_PER_DATAGRAM) this.send(acks.slice(i, i + ACKS_PER_DATAGRAM), 'ACK');
  }

  /** Keeps `item` if the budget allows; one the verdicts read (`judged`) and not kept leaves the log incomplete. */
  private log<T>(list: T[], item: T, bytes: number, judged = true): void {
    if (!this.wire.logs.take(bytes, list.length < MAX_SESSION_DATAGRAMS)) {
      if (judged) this.overflow++;
      return;
    }
    list.push(item);
    this.logBytes += bytes;
  }
}

/** The ACK a correct receiver sends for a reliable message (docs/sources.md 2). */
function ackFor(message: DataMessage): AckMessage {
  return ackOfKey(isLowType(message.type), message.seq as number, message.fragment, message.fragIndex ?? 0);
}

/** An ACK for `seq` in a category, forged or late: [01][seq][flags][idx]. */
export function ackMessage(seq: number, low: boolean, fragIndex: number | null = null): AckMessage {
  return ackOfKey(low, seq, fragIndex !== null, fragIndex ?? 0);
}

export function isData(m: Located): m is Located<DataMessage> {
  return m.type !== TYPE_ACK;
}

/** A game message's opcode (its first payload byte), or null. */
export function opcodeOf(m: Located): number | null {
  return m.type === TYPE_GAME && m.payload.length > 0 ? m.payload[0] : null;
}
