// A live server's places and the connections that held them. A connection
// is its client's address plus a live index, never a count: only datagrams
// from its address reach it, and a place goes to a new client only once its
// holder has left. Connections whose place a later client took are kept for
// the summary (bounded). A live client side has a place per client it plays, each its server's.
import type { RemoteInfo } from 'node:dgram';
import { ZERO_US } from '../../core/engine/index.js';
import type { Scheduler } from '../../core/engine/index.js';
import { connectionEnded } from '../../model/transport/index.js';
import type { PeerTransport, ServerHost } from '../../model/transport/index.js';
import { formatHostPort } from '../endpoint.js';
import { cannotOpen, carriesConnect } from './intake.js';
import type { Intake } from './intake.js';

/** Connections kept for the summary after their place went to a new client; later ones are only counted. */
const MAX_RETIRED_CONNECTIONS = 1024;

/**
 * One client's connection: its place (`client`, the transport's identity and the
 * traffic script's client number) and its own live index (`id`), never reused.
 */
export interface LiveConnection {
  /** 1-based, in the order connections opened (0 before); a reused place opens a new one. */
  id: number;
  /** The place it holds: 1..--clients, for a server or a client side. */
  readonly client: number;
  readonly peer: PeerTransport;
  address: { readonly address: string; readonly port: number } | null;
  dedupLast: number;
  dedupMaxPerSecond: number;
  joinedAtUs: number | null;
  /** When its first datagram arrived (a server), or 0 (a client). */
  openedAtUs: number | null;
  /** When its place went to another client; null while it holds it. */
  retiredAtUs: number | null;
  /** Its slot when its place went to another client (the server forgets it then). */
  retiredSlot: number | null;
  /** The server removed it for a protocol error (recorded once, whatever else the datagram held). */
  removed: boolean;
}

/** Where a server reads a datagram: a connection, or why none takes it. */
export type PlaceFound =
  | { readonly connection: LiveConnection }
  /** A datagram from an address without a connection that cannot open one. */
  | { readonly unopened: string }
  /** A new address, and every place held by a client still there. */
  | { readonly refused: true };

export class Places {
  /** The connection holding each place: index = client - 1. */
  readonly connections: LiveConnection[] = [];
  /** Connections whose place went to a new client, oldest first (bounded). */
  readonly retired: LiveConnection[] = [];
  retiredNotKept = 0;
  /** A server's connection by its client's address: only datagrams from that address reach it. */
  private readonly byAddress = new Map<string, LiveConnection>();
  private nextId = 1;
  private host: ServerHost | null = null;

  constructor(
    private readonly clock: Scheduler,
    count: number,
    private readonly make: (client: number) => LiveConnection,
    /** Place `client` went to a new connection: everything kept per place starts again. */
    private readonly reused: (client: number) => void,
  ) {
    for (let k = 1; k <= count; k++) this.connections.push(make(k));
  }

  /** A server's host: its slots name the connections. */
  serve(host: ServerHost): void {
    this.host = host;
  }

  /** A client side's connections, one per client, all to its server, open from the start. */
  openToServer(address: { readonly address: string; readonly port: number } | null): void {
    for (const c of this.connections) {
      c.address = address;
      c.openedAtUs = ZERO_US;
      c.id = this.nextId++;
    }
  }

  /** Every connection a client opened, in the order they opened: those whose place was reused, and those holding one. */
  served(): LiveConnection[] {
    const holding = this.connections.filter((c) => c.id > 0);
    return [...this.retired, ...holding].sort((x, y) => x.id - y.id);
  }

  /** The slot `c` holds, or held when its place went to another client; null for a client's own. */
  slotOf(c: LiveConnection): number | null {
    if (this.host === null) return null;
    return c.retiredAtUs === null ? this.host.slotOf(c.client - 1) : c.retiredSlot;
  }

  /**
   * The connection a server reads a datagram from `key` on, or null when none
   * takes it. A new address takes a place once it sends a datagram that opens a
   * connection: a place never used, else one whose client has left.
   */
  forAddress(key: string, rinfo: RemoteInfo, read: Intake): PlaceFound {
    const known = this.byAddress.get(key);
    // While its connection is open, an address's datagrams go to it. Once its client said goodbye, was
    // removed or timed out, a new Connect from it is a new client: a new connection (the old one ends).
    if (known !== undefined && !(known.peer.state !== 'open' && carriesConnect(read))) return { connection: known };
    // A datagram that cannot open a connection neither takes a place nor frees one.
    const why = cannotOpen(read);
    if (why !== null) return { unopened: why };
    // Its own place (its client is back), else a place never used, else one whose client has left: never one in use.
    let index = known === undefined ? -1 : known.client - 1;
    if (index < 0) index = this.connections.findIndex((c) => c.address === null);
    if (index < 0) index = this.connections.findIndex((c) => c.address !== null && connectionEnded(c.peer.state));
    if (index < 0) return { refused: true };
    if (this.connections[index].address !== null) this.reuse(index);
    const opened = this.connections[index];
    opened.address = { address: rinfo.address, port: rinfo.port };
    opened.openedAtUs = this.clock.now;
    opened.id = this.nextId++;
    this.byAddress.set(key, opened);
    return { connection: opened };
  }

  /** True when datagrams from `key` go to a connection. */
  knows(key: string): boolean {
    return this.byAddress.has(key);
  }

  /**
   * Planted peer-by-id (test-only): the open connection whose slot the datagram's
   * peer id names; the datagram is read as that client's (its address stays).
   */
  byPeerId(peerId: number | undefined): LiveConnection | null {
    const host = this.host;
    if (host === null || peerId === undefined) return null;
    const index = this.connections.findIndex(
      (c, i) => c.address !== null && !connectionEnded(c.peer.state) && host.slotOf(i) === peerId,
    );
    return index < 0 ? null : this.connections[index];
  }

  /**
   * A client side's place `client` joins its server again on a fresh connection (its old one
   * ended: removed, timed out), as a player reconnects; the old one is kept for the summary.
   */
  rejoin(client: number): LiveConnection {
    const index = client - 1;
    const address = this.connections[index].address;
    this.reuse(index);
    const fresh = this.connections[index];
    fresh.address = address;
    fresh.openedAtUs = this.clock.now;
    fresh.id = this.nextId++;
    return fresh;
  }

  /**
   * A fresh connection in the place of ended connection `index`, as a real
   * server frees a player slot (or a client side's player joins again); the
   * old one is kept for the summary. Its address no longer reaches it.
   */
  private reuse(index: number): void {
    const host = this.host;
    const old = this.connections[index];
    old.peer.halt();
    if (old.address !== null && this.byAddress.get(formatHostPort(old.address)) === old)
      this.byAddress.delete(formatHostPort(old.address));
    old.retiredAtUs = this.clock.now;
    old.retiredSlot = host === null ? null : host.slotOf(index);
    if (this.retired.length < MAX_RETIRED_CONNECTIONS) this.retired.push(old);
    else this.retiredNotKept++;
    const fresh = this.make(old.client);
    this.connections[index] = fresh;
    host?.replace(index, fresh.peer);
    this.reused(old.client);
  }
}
