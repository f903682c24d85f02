// One proxied client: its address, its own upstream-facing
// socket (so the server sees one UDP flow per client, as without the proxy),
// the two Links of its scenario links, their indexed streams, and what the
// analysis knows of it.
import type { Socket } from 'node:dgram';
import type { CaptureConnection, CaptureEndpoint } from '../../analysis/capture/index.js';
import { Link } from '../../model/link/index.js';
import type { LinkObserver } from '../../model/link/index.js';
import type { Scenario } from '../../model/scenario/index.js';
import type { WallClock } from '../wall-clock.js';
import { bindUdp, formatHostPort } from '../endpoint.js';
import type { HostPort } from '../endpoint.js';
import type { Address } from './capture.js';
import { IndexedStreams } from './indexed-streams.js';
import { OutstandingTracker } from './outstanding.js';
import type { Budget } from '../../core/engine/index.js';

export type Direction = 'clientToServer' | 'serverToClient';

/** Datagrams forwarded untouched, bypassing the link model. */
export interface Bypass {
  gamespy: number;
  undecodable: number;
}

/** Datagrams that arrive before a client's upstream socket is bound wait here; more are dropped. */
export const MAX_PENDING = 256;
/** … and their bytes: a UDP datagram may hold 64 KiB, so 256 of them could hold 16 MiB per client. */
export const MAX_PENDING_BYTES = 262_144;

export interface ClientEntry {
  /** 1-based: the k-th distinct client address seen. */
  readonly k: number;
  readonly address: Address;
  /** Null while binding. */
  socket: Socket | null;
  /** The upstream-facing socket's bound address. */
  socketAddress: Address | null;
  readonly pending: Buffer[];
  /** The bytes of `pending`. */
  pendingBytes: number;
  readonly links: Record<Direction, Link>;
  readonly streams: Record<Direction, IndexedStreams>;
  /** BC datagrams handed to each link so far: the index of the next one's draws. */
  readonly sent: Record<Direction, number>;
  readonly bypass: Record<Direction, Bypass>;
  readonly connection: CaptureConnection;
  readonly outstanding: OutstandingTracker;
  /** Set at the client's first BC datagram (its peer id 0xFF: the connection's start is seen). */
  clientSeen: boolean;
  /** The link config's source: the scenario client it took its links from. */
  readonly linkClient: number;
}

/** The Link/stream name of client k's direction (client 1 unprefixed, as session.ts names them). */
function linkName(k: number, direction: Direction): string {
  return k === 1 ? direction : `client${k}.${direction}`;
}

/** What a direction's Link calls: delivery and the capture's hooks. */
export interface LinkWiring {
  readonly deliver: (bytes: Uint8Array) => void;
  readonly observer: LinkObserver;
}

/**
 * Client k with the links of scenario client min(k, clients) (client k
 * is the k-th distinct client address seen), each Link on the wall clock with its
 * own indexed streams, named as session.ts names a simulated client's.
 */
export function newClientEntry(
  k: number,
  address: Address,
  scenario: Scenario,
  seed: number,
  clock: WallClock,
  server: CaptureEndpoint,
  wiring: (d: Direction) => LinkWiring,
  outstanding: Budget,
): ClientEntry {
  const linkClient = Math.min(k, scenario.clients);
  const configs = scenario.clientLinks[linkClient - 1];
  const streams = { clientToServer: new IndexedStreams(seed), serverToClient: new IndexedStreams(seed) };
  const link = (d: Direction) => {
    const w = wiring(d);
    return new Link(clock, linkName(k, d), configs[d], streams[d], w.deliver, w.observer);
  };
  return {
    k,
    address,
    socket: null,
    socketAddress: null,
    pending: [],
    pendingBytes: 0,
    links: { clientToServer: link('clientToServer'), serverToClient: link('serverToClient') },
    streams,
    sent: { clientToServer: 0, serverToClient: 0 },
    bypass: newBypass(),
    connection: newConnection(k, server, address, clock.now),
    outstanding: new OutstandingTracker(outstanding),
    linkClient,
    clientSeen: false,
  };
}

function ipNumber(address: string): number {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  return m === null ? 0 : ((Number(m[1]) << 24) | (Number(m[2]) << 16) | (Number(m[3]) << 8) | Number(m[4])) >>> 0;
}

let endpointKeys = 0;

export function captureEndpoint(a: Address): CaptureEndpoint {
  return { key: ++endpointKeys, ip: ipNumber(a.address), port: a.port, label: formatHostPort(a) };
}

function newConnection(k: number, server: CaptureEndpoint, client: Address, nowUs: number): CaptureConnection {
  return {
    index: k,
    server,
    client: captureEndpoint(client),
    slot: null,
    startSeen: false,
    firstUs: nowUs,
    lastUs: nowUs,
  };
}

function newBypass(): Record<Direction, Bypass> {
  return { clientToServer: { gamespy: 0, undecodable: 0 }, serverToClient: { gamespy: 0, undecodable: 0 } };
}

/**
 * A client's socket towards the server: bound at `at` (port 0, never a wildcard
 * unless told) and connected to `upstream`, so the kernel passes only the
 * server's datagrams and a send needs no address lookup.
 */
export async function connectUpstream(
  at: HostPort,
  upstream: Address,
  onError: (error: Error) => void,
): Promise<Socket> {
  const socket = await bindUdp({ ...at, port: 0 }, '--upstream-bind');
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.connect(upstream.port, upstream.address, () => {
      socket.off('error', reject);
      resolve();
    });
  }).catch((error: unknown) => {
    socket.close();
    throw error;
  });
  socket.on('error', onError); // e.g. ECONNREFUSED while nothing listens upstream
  return socket;
}
