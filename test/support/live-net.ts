// Live peers on a virtual network: LivePeers with fake sockets and wall
// clocks the test moves, so a many-client live session runs in memory, in
// exact times, the same way every run. Datagrams sent in one millisecond
// arrive at the start of the next, in the order they were sent.
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:dgram';
import { micros } from '../../src/core/engine/index.js';
import { encrypt } from '../../src/core/codec/index.js';
import { LivePeer } from '../../src/live/peer/live-peer.js';
import type { LivePeerOptions } from '../../src/live/peer/live-peer.js';
import { summarizeLive } from '../../src/live/peer/live-summary.js';
import type { LiveSummary } from '../../src/live/peer/live-summary.js';
import { WallClock } from '../../src/live/wall-clock.js';
import type { Scenario } from '../../src/model/scenario/index.js';
import type { TransportSwitches } from '../../src/model/transport/index.js';

export const SERVER_ADDRESS = '127.0.0.1:22101';

interface InFlight {
  readonly from: string;
  readonly to: string;
  readonly bytes: Buffer;
}

/** A datagram the network carried: who sent it, to whom, when (µs). */
export interface Carried extends InFlight {
  readonly atUs: number;
}

export class VirtualNet {
  nowUs = 0;
  /** The address whose datagram is being handed to a socket right now. */
  delivering: string | null = null;
  readonly carried: Carried[] = [];
  private readonly sockets = new Map<string, EventEmitter>();
  private readonly clocks = new Set<WallClock>();
  private queue: InFlight[] = [];

  /** A socket at "host:port"; an earlier one there is closed (a client that left binds the same port again). */
  socket(at: string): Socket {
    const emitter = new EventEmitter();
    const socket = Object.assign(emitter, {
      send: (bytes: Uint8Array, port: number, address: string, done?: (error: Error | null) => void) => {
        this.queue.push({ from: at, to: `${address}:${port}`, bytes: Buffer.from(bytes) });
        done?.(null);
      },
      address: () => ({ address: at.split(':')[0], port: Number(at.split(':')[1]), family: 'IPv4' }),
      close: () => {
        if (this.sockets.get(at) === emitter) this.sockets.delete(at);
      },
    });
    this.sockets.set(at, emitter);
    return socket as unknown as Socket;
  }

  /** Sends raw (already encrypted) bytes from `from`, as a hostile host would. */
  inject(from: string, to: string, bytes: Uint8Array): void {
    this.queue.push({ from, to, bytes: Buffer.from(bytes) });
  }

  /** A wall clock whose time starts now, as a process's monotonic clock starts at its launch. */
  clock(): WallClock {
    const originUs = this.nowUs;
    const clock = new WallClock(() => micros(this.nowUs - originUs));
    this.clocks.add(clock);
    return clock;
  }

  /** Moves time on by `ms`, one millisecond at a time: deliveries, then every clock's due events. */
  advance(ms: number): void {
    for (let i = 0; i < ms; i++) {
      this.nowUs += 1000;
      const due = this.queue;
      this.queue = [];
      for (const d of due) {
        this.carried.push({ ...d, atUs: this.nowUs });
        const target = this.sockets.get(d.to);
        if (target === undefined) continue;
        this.delivering = d.from;
        const [fromHost, fromPort] = d.from.split(':');
        target.emit('message', d.bytes, {
          address: fromHost,
          port: Number(fromPort),
          family: 'IPv4',
          size: d.bytes.length,
        });
        this.delivering = null;
      }
      for (const clock of this.clocks) clock.catchUp();
    }
  }

  /** Stops every clock: no Node timer is left armed. */
  close(): void {
    for (const clock of this.clocks) clock.stop();
  }
}

export interface NetPeerOptions {
  readonly scenario: Scenario;
  readonly switches: TransportSwitches;
  readonly seed: number;
  readonly durationS: number | null;
  readonly clients?: number;
  readonly checksums?: LivePeerOptions['checksums'];
  readonly wireLogBytes?: number;
}

/** A bcsim peer server at SERVER_ADDRESS on `net`. */
export function netServer(net: VirtualNet, o: NetPeerOptions): LivePeer {
  return startPeer(net, 'server', SERVER_ADDRESS, o);
}

/**
 * A bcsim peer client at `at` ("host:port") talking to SERVER_ADDRESS on `net`; with `clients` N,
 * client k at the port `k - 1` past `at`'s, as `peer client --clients N --bind` binds them.
 */
export function netClient(net: VirtualNet, at: string, o: NetPeerOptions): LivePeer {
  return startPeer(net, 'client', at, o);
}

function startPeer(net: VirtualNet, role: 'client' | 'server', at: string, o: NetPeerOptions): LivePeer {
  const [host, port] = SERVER_ADDRESS.split(':');
  const live = new LivePeer({
    role,
    scenario: o.scenario,
    switches: o.switches,
    seed: o.seed,
    sockets: role === 'server' ? [net.socket(at)] : clientAddresses(at, o.clients ?? 1).map((a) => net.socket(a)),
    remote: role === 'client' ? { host, port: Number(port), family: 4 } : null,
    clients: o.clients ?? 1,
    durationUs: o.durationS === null ? null : micros(o.durationS * 1_000_000),
    clock: net.clock(),
    ...(o.checksums === undefined ? {} : { checksums: o.checksums }),
    ...(o.wireLogBytes === undefined ? {} : { wireLogBytes: o.wireLogBytes }),
  });
  live.start();
  return live;
}

/** The addresses of a client side's `count` clients, from `first` ("host:port") on, one port apart. */
export function clientAddresses(first: string, count: number): string[] {
  const [host, port] = first.split(':');
  return Array.from({ length: count }, (_, i) => `${host}:${Number(port) + i}`);
}

/** Watches a server's wire log: the source address of every datagram it applied, by connection. */
export function watchSources(net: VirtualNet, server: LivePeer): Map<number, Set<string>> {
  const sources = new Map<number, Set<string>>();
  const add = server.log.add.bind(server.log);
  server.log.add = (record, unreadable) => {
    if (record.from === 'remote')
      sources.set(record.connection, (sources.get(record.connection) ?? new Set<string>()).add(net.delivering ?? '?'));
    add(record, unreadable);
  };
  return sources;
}

/** The summary `bcsim peer` would print for `peer`, started with `o` at `local`. */
export function netSummary(peer: LivePeer, o: NetPeerOptions, local: string): LiveSummary {
  return summarizeLive(peer, {
    scenario: o.scenario.name,
    mode: o.switches.closePolicy === 'drain' ? 'fixed' : 'stock',
    switches: o.switches,
    seed: o.seed,
    local,
    remote: peer.role === 'client' ? SERVER_ADDRESS : null,
  });
}

/** The encrypted form of plaintext `bytes`, as a client's socket would send it. */
export function onWire(bytes: Uint8Array): Uint8Array {
  return encrypt(bytes);
}
