// The relay of `bcsim proxy`. Every datagram a client sends
// to --listen goes up through that client's own socket to --upstream; every
// datagram the server sends to that socket comes back from --listen. On the way
// a BC datagram is decrypted (AlbyRules, docs/sources.md 22), checked to decode
// (wire-walk.ts: exactly what the codec accepts), fed to the analysis as its
// sender sent it, and handed in plaintext to the direction's Link on the wall
// clock; what the Link delivers is re-encrypted and sent on. encrypt(decrypt(x))
// is x for every x (the keystream depends on the plaintext only;
// test/live/proxy-streams.test.ts), so an untouched datagram leaves as it came.
// A datagram in a reimplementation's wire form (docs/sources.md 30) is read with
// the codec's dialect reader: the analysis takes its stock form and counts its
// deviations, the link takes it as it came (drop rules match the messages as
// read and cut a message out of it keeping the others' own bytes).
// GameSpy queries (first byte '\') and undecodable datagrams bypass the link;
// the undecodable ones are counted by source address (unreadable.ts). What
// grows with traffic is bounded: datagrams waiting for a client's socket
// (MAX_PENDING, MAX_PENDING_BYTES), datagrams inside the links (in-flight.ts),
// the keys of unACKed messages (outstanding.ts), and the clients themselves.
import type { Socket } from 'node:dgram';
import { WireAnalyzer, connectAckSlot, datagramMessages } from '../../analysis/capture/index.js';
import type { CaptureEndpoint } from '../../analysis/capture/index.js';
import { GAMESPY_FIRST_BYTE, decodeDialect, decrypt, encrypt } from '../../core/codec/index.js';
import type { Deviation } from '../../core/codec/index.js';
import type { Scenario } from '../../model/scenario/index.js';
import { bindUdp } from '../endpoint.js';
import type { HostPort } from '../endpoint.js';
import { UnreadableCounter } from '../unreadable.js';
import { WallClock, monotonicMicros } from '../wall-clock.js';
import type { Address, ProxyCapture } from './capture.js';
import { MAX_PENDING, MAX_PENDING_BYTES, captureEndpoint, connectUpstream, newClientEntry } from './client-entry.js';
import type { ClientEntry, Direction } from './client-entry.js';
import { InFlight } from './in-flight.js';
import type { InFlightLimits } from './in-flight.js';
import { outstandingBudget } from './outstanding.js';

/** Any number of clients, bounded so a flood of source addresses cannot exhaust sockets. */
const MAX_CLIENTS = 64;

/** Link's accounting ids: the proxy has none (-1 per message). Shared arrays: Link never mutates them. */
const NO_UIDS: number[][] = [];
function noUids(n: number): readonly number[] {
  return (NO_UIDS[n] ??= new Array<number>(n).fill(-1));
}

export interface RelayOptions {
  readonly listen: HostPort;
  readonly upstream: HostPort;
  /** Where each client's upstream-facing socket binds (port 0). */
  readonly upstreamBind: HostPort;
  readonly scenario: Scenario;
  readonly seed: number;
  readonly capture?: ProxyCapture | null;
  readonly maxClients?: number;
  /** Datagrams and bytes the links may hold at once (in-flight.ts; tests give small ones). */
  readonly inFlight?: InFlightLimits;
  /** The clock (tests pass their own wall source). */
  readonly clock?: WallClock;
  /** A relay step threw (a full disk under --pcap, a bug): relaying has stopped. */
  readonly onFailure?: (error: unknown) => void;
}

export interface RelayTotals {
  /** Datagrams from new client addresses past the client limit. */
  refused: number;
  /** Datagrams on a client's upstream socket from anyone but --upstream (its socket is connected: none expected). */
  foreign: number;
  /** Datagrams dropped while a client's socket was still binding (more than MAX_PENDING, or MAX_PENDING_BYTES). */
  pendingOverflow: number;
  /** BC datagrams dropped before their link because the links held all they may (in-flight.ts). */
  inFlightRefused: number;
  /** Failed sends and socket errors while relaying (ECONNREFUSED: nothing listened upstream at some point). */
  socketErrors: number;
  bindErrors: number;
}

export class ProxyRelay {
  readonly clock: WallClock;
  readonly analyzer = new WireAnalyzer();
  readonly clients: ClientEntry[] = [];
  readonly totals: RelayTotals = {
    refused: 0,
    foreign: 0,
    pendingOverflow: 0,
    inFlightRefused: 0,
    socketErrors: 0,
    bindErrors: 0,
  };
  /** Datagrams that read neither in the stock form nor in a reimplementation's, by source address. */
  readonly unreadable = new UnreadableCounter();
  readonly inFlight: InFlight;
  private readonly outstandingBudget = outstandingBudget();
  private readonly byAddress = new Map<string, ClientEntry>();
  private readonly server: CaptureEndpoint;
  private readonly upstreamAddress: Address;
  private readonly listenAddress: Address;
  private stopped = false;
  /** The datagram being handed to a Link: its drop is captured as it arrived. */
  private arriving: { plain: Uint8Array; wire: Uint8Array } | null = null;
  private duplicate = false;
  private readonly rewrites = new WeakMap<Uint8Array, string>();
  /** What a message-scope rule made of the datagram being handed to a Link. */
  private rewritten: Uint8Array | null = null;

  private constructor(
    private readonly options: RelayOptions,
    private readonly listenSocket: Socket,
  ) {
    this.clock = options.clock ?? new WallClock(monotonicMicros(), (error) => this.fail(error), setImmediate);
    this.inFlight = new InFlight(options.inFlight);
    this.upstreamAddress = { address: options.upstream.host, port: options.upstream.port };
    const bound = listenSocket.address();
    this.listenAddress = { address: bound.address, port: bound.port };
    this.server = captureEndpoint(this.upstreamAddress);
    listenSocket.on('message', (msg, rinfo) => this.guard(() => this.fromClient(msg, rinfo)));
    listenSocket.on('error', () => this.socketError());
  }

  /** Binds --listen (rejects with a one-line reason) and starts relaying. */
  static async start(options: RelayOptions): Promise<ProxyRelay> {
    return new ProxyRelay(options, await bindUdp(options.listen, '--listen'));
  }

  /** The address --listen is bound to (its port, when --listen gave 0 in tests). */
  get listening(): Address {
    return this.listenAddress;
  }

  /** Stops relaying: sockets closed, datagrams still inside a Link (in their latency) are discarded. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.clock.stop();
    this.listenSocket.close();
    for (const c of this.clients) c.socket?.close();
  }

  /** Runs a socket callback; an error stops the relay and is reported, never thrown into the event loop. */
  private guard(step: () => void): void {
    try {
      step();
    } catch (error) {
      this.fail(error);
    }
  }

  private fail(error: unknown): void {
    if (this.stopped) return;
    this.stop();
    this.options.onFailure?.(error);
  }

  /** Send failures while relaying; those of sends cut short by stop() are not failures of the relay. */
  private socketError(): void {
    if (!this.stopped) this.totals.socketErrors++;
  }

  private fromClient(msg: Buffer, rinfo: { address: string; port: number }): void {
    if (this.stopped) return;
    this.clock.catchUp();
    const key = `${rinfo.address}|${rinfo.port}`;
    let entry = this.byAddress.get(key);
    if (entry === undefined) {
      if (this.clients.length >= (this.options.maxClients ?? MAX_CLIENTS)) {
        this.totals.refused++;
        return;
      }
      entry = this.addClient({ address: rinfo.address, port: rinfo.port });
    }
    if (entry.socket === null) {
      if (entry.pending.length < MAX_PENDING && entry.pendingBytes + msg.length <= MAX_PENDING_BYTES) {
        entry.pending.push(msg);
        entry.pendingBytes += msg.length;
      } else this.totals.pendingOverflow++;
      return;
    }
    this.relay(entry, 'clientToServer', msg);
  }

  private fromServer(entry: ClientEntry, msg: Buffer, rinfo: { address: string; port: number }): void {
    if (this.stopped) return;
    if (rinfo.address !== this.upstreamAddress.address || rinfo.port !== this.upstreamAddress.port) {
      this.totals.foreign++;
      return;
    }
    this.clock.catchUp();
    this.relay(entry, 'serverToClient', msg);
  }

  private addClient(address: Address): ClientEntry {
    const k = this.clients.length + 1;
    const entry = newClientEntry(
      k,
      address,
      this.options.scenario,
      this.options.seed,
      this.clock,
      this.server,
      (d) => ({
        deliver: (bytes) => this.forward(entry, d, bytes),
        observer: {
          dropped: (bytes, _uids, cause) =>
            this.record(
              entry,
              d,
              this.arriving?.plain === bytes ? this.arriving.wire : encrypt(bytes),
              `DROPPED (${cause})`,
            ),
          messagesDropped: (_before, after, removed) => {
            this.rewritten = after;
            this.rewrites.set(
              after,
              `REWRITTEN by link rule: removed message${removed.length === 1 ? '' : 's'} ${removed.join(',')}`,
            );
          },
          delivered: (_bytes, _uids, duplicate) => (this.duplicate = duplicate),
        },
      }),
      this.outstandingBudget,
    );
    this.clients.push(entry);
    this.byAddress.set(`${address.address}|${address.port}`, entry);
    connectUpstream(this.options.upstreamBind, this.upstreamAddress, () => this.socketError()).then(
      (socket) => {
        if (this.stopped) return socket.close();
        entry.socket = socket;
        const bound = socket.address();
        entry.socketAddress = { address: bound.address, port: bound.port };
        socket.on('message', (msg, rinfo) => this.guard(() => this.fromServer(entry, msg, rinfo)));
        this.guard(() => {
          this.clock.catchUp();
          entry.pendingBytes = 0;
          for (const msg of entry.pending.splice(0)) this.relay(entry, 'clientToServer', msg);
        });
      },
      () => {
        this.totals.bindErrors++;
        entry.pending.length = 0;
        entry.pendingBytes = 0;
      },
    );
    return entry;
  }

  /** One datagram `msg` from the sender of direction `d`, at clock.now. */
  private relay(entry: ClientEntry, d: Direction, msg: Buffer): void {
    const wire = new Uint8Array(msg.buffer, msg.byteOffset, msg.length);
    if (wire.length > 0 && wire[0] === GAMESPY_FIRST_BYTE) {
      entry.bypass[d].gamespy++;
      return this.send(entry, d, wire, 'GameSpy (not BC): forwarded untouched');
    }
    const plain = decrypt(wire);
    let n = datagramMessages(plain);
    let stock = plain;
    let deviations: readonly Deviation[] | undefined;
    if (n < 0) {
      // The rare path: a reimplementation's wire forms (docs/sources.md 30).
      const read = decodeDialect(plain);
      if (!read.ok) {
        entry.bypass[d].undecodable++;
        const source = d === 'clientToServer' ? entry.connection.client.label : this.server.label;
        this.unreadable.add(source, plain, `offset ${read.error.offset}: ${read.error.reason}`);
        return this.send(entry, d, wire, 'undecodable (not BC?): forwarded untouched');
      }
      n = read.datagram.messageCount;
      stock = read.stock;
      deviations = read.deviations;
    }
    const now = this.clock.now;
    const from = d === 'clientToServer' ? 'client' : 'server';
    const c = entry.connection;
    if (from === 'client' && !entry.clientSeen) {
      entry.clientSeen = true;
      c.startSeen = plain[0] === 0xff;
    }
    c.lastUs = now;
    if (c.slot === null) {
      const slot = from === 'server' ? connectAckSlot(stock) : plain[0] !== 0xff ? plain[0] : -1;
      if (slot >= 0) c.slot = slot;
    }
    this.analyzer.add(c, from, now, wire.length, stock, stock.length, deviations);
    entry.outstanding.add(from, stock, n);
    if (!this.inFlight.admits(plain.length)) {
      this.totals.inFlightRefused++;
      return this.record(entry, d, wire, "DROPPED (queue): the proxy's in-flight limit");
    }
    entry.streams[d].setIndex(entry.sent[d]++);
    const link = entry.links[d];
    const dropped = link.counters.dropped;
    const duplicated = link.counters.duplicated;
    this.arriving = { plain, wire };
    this.rewritten = null;
    try {
      link.send(plain, noUids(n));
    } finally {
      this.arriving = null;
    }
    const copies = link.counters.dropped > dropped ? 0 : 1 + link.counters.duplicated - duplicated;
    this.inFlight.took((this.rewritten ?? plain).length, copies);
    // Deliveries due now (no latency) go out at once, not a timer tick later.
    this.clock.catchUp();
  }

  /** A Link delivered `plain` in direction `d`: re-encrypt and send it on. */
  private forward(entry: ClientEntry, d: Direction, plain: Uint8Array): void {
    this.inFlight.landed(plain.length);
    const note = this.rewrites.get(plain) ?? '';
    const dup = this.duplicate ? 'LINK-DUP' : '';
    this.send(entry, d, encrypt(plain), [note, dup].filter((s) => s !== '').join('; '));
  }

  private send(entry: ClientEntry, d: Direction, wire: Uint8Array, comment: string): void {
    if (this.stopped) return;
    const up = d === 'clientToServer';
    const done = (error: Error | null) => {
      if (error) this.socketError();
    };
    if (up) entry.socket?.send(wire, done);
    else this.listenSocket.send(wire, entry.address.port, entry.address.address, done);
    this.record(entry, d, wire, comment);
  }

  private record(entry: ClientEntry, d: Direction, wire: Uint8Array, comment: string): void {
    const capture = this.options.capture;
    if (!capture) return;
    // Recorded end to end (client <-> server), as if the proxy were a wire: `bcsim analyze`
    // and Wireshark then see one conversation per client, not two half-conversations.
    const up = d === 'clientToServer';
    capture.packet(
      this.clock.wallUs(),
      up ? entry.address : this.upstreamAddress,
      up ? this.upstreamAddress : entry.address,
      wire,
      comment,
    );
  }
}
