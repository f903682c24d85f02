// Floods of garbage for the live commands' tests, on loopback only: seeded
// random datagrams at a steady rate. Two shapes:
// - `flood` sends at a target from sockets of its own (other ports than the
//   target's counterpart), each source optionally opening with a datagram of
//   its own first (a Connect, so a server takes it for a client);
// - `FloodRelay` stands between clients and their server, relaying both ways,
//   and floods every client it has seen from its own address, the one the
//   clients take for their server's: a relay in front of a server, sending garbage.
// Memory of the processes under test: `watchMemory` samples /proc/<pid>/status.
import { createSocket } from 'node:dgram';
import type { Socket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { namedStream } from '../../src/core/engine/index.js';

const LOCAL = '127.0.0.1';
/** The flood sends in batches this far apart, catching up with its rate at each. */
const TICK_MS = 10;
/** Distinct garbage datagrams made once and sent in turn: drawing every byte anew would cost the test more than the flood. */
const POOL = 4096;
/** GameSpy's first byte, which bcsim forwards or skips unread: garbage never starts with it. */
const GAMESPY_FIRST_BYTE = 0x5c;
/** Clients a relay keeps a socket for (a bound on what the test process holds). */
const MAX_RELAYED_CLIENTS = 128;

export interface FloodOptions {
  /** Datagrams per second over all targets and sources. */
  readonly ratePerSecond: number;
  /** Seed of the garbage (the same seed, the same datagrams in the same order). */
  readonly seed: number;
  /** Largest datagram: lengths are uniform in 3..maxBytes. Default 512, the BC datagram's size. */
  readonly maxBytes?: number;
}

export interface Flood {
  /** Datagrams handed to the sockets so far (a receiver's full buffer may still drop some). */
  readonly sent: number;
  /** Sends that failed. */
  readonly errors: number;
  stop(): Promise<void>;
}

/** `count` garbage datagrams from the seed: random bytes, 3..maxBytes long, none a GameSpy query. */
function garbagePool(seed: number, maxBytes = 512, count = POOL): Buffer[] {
  const draw = namedStream(seed, 'flood.garbage');
  const pool: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const length = 3 + Math.floor(draw.next() * (maxBytes - 2));
    const bytes = Buffer.alloc(length);
    for (let j = 0; j < length; j += 4) {
      const word = Math.floor(draw.next() * 0x1_0000_0000);
      for (let k = 0; k < 4 && j + k < length; k++) bytes[j + k] = (word >>> (8 * k)) & 0xff;
    }
    if (bytes[0] === GAMESPY_FIRST_BYTE) bytes[0] ^= 1;
    pool.push(bytes);
  }
  return pool;
}

async function bind(): Promise<Socket> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, LOCAL, () => {
      socket.off('error', reject);
      resolve();
    });
  });
  // A receiver that went away (ICMP unreachable) is counted, never thrown.
  socket.on('error', () => {});
  return socket;
}

/**
 * Sends at `rate` per second from TICK_MS batches: each one sends what the elapsed
 * time owes, at most a tenth of a second's worth, by calling `each(datagram)` for every
 * datagram; `each` returns false when there is nowhere to send yet.
 */
function pace(options: FloodOptions, each: (bytes: Buffer, done: (error: Error | null) => void) => boolean) {
  const pool = garbagePool(options.seed, options.maxBytes);
  const state = { sent: 0, errors: 0 };
  // The rate counts from `origin`, moved on while there is nowhere to send: no burst of what was owed meanwhile.
  let origin = performance.now();
  let base = 0;
  const done = (error: Error | null) => {
    if (error) state.errors++;
  };
  const timer = setInterval(() => {
    const owed = Math.floor(((performance.now() - origin) / 1000) * options.ratePerSecond) - (state.sent - base);
    for (let i = 0; i < Math.min(owed, options.ratePerSecond / 10); i++) {
      if (!each(pool[state.sent % pool.length], done)) {
        origin = performance.now();
        base = state.sent;
        return;
      }
      state.sent++;
    }
  }, TICK_MS);
  return { state, stop: () => clearInterval(timer) };
}

/** Garbage at `target` from `sources` sockets in turn, each opening with `opening` when given. */
export async function flood(
  target: { port: number },
  options: FloodOptions & { readonly sources?: number; readonly opening?: Uint8Array },
): Promise<Flood> {
  const sockets: Socket[] = [];
  for (let i = 0; i < (options.sources ?? 1); i++) sockets.push(await bind());
  if (options.opening !== undefined)
    for (const s of sockets)
      await new Promise<void>((resolve) => s.send(options.opening as Uint8Array, target.port, LOCAL, () => resolve()));
  let turn = 0;
  const paced = pace(options, (bytes, done) => {
    sockets[turn++ % sockets.length].send(bytes, target.port, LOCAL, done);
    return true;
  });
  return {
    get sent() {
      return paced.state.sent;
    },
    get errors() {
      return paced.state.errors;
    },
    stop: async () => {
      paced.stop();
      await Promise.all(sockets.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    },
  };
}

/** A relay in front of `upstream` that floods its clients with garbage from its own address. */
export interface FloodRelay extends Flood {
  /** Where clients send, taking it for their server. */
  readonly port: number;
  /** Datagrams relayed either way. */
  readonly relayed: number;
}

export async function floodRelay(upstream: { port: number }, options: FloodOptions): Promise<FloodRelay> {
  const listen = await bind();
  const clients = new Map<string, { address: string; port: number; socket: Socket }>();
  let relayed = 0;
  listen.on('message', async (msg, rinfo) => {
    const key = `${rinfo.address}:${rinfo.port}`;
    let client = clients.get(key);
    if (client === undefined) {
      if (clients.size >= MAX_RELAYED_CLIENTS) return;
      // Placed before the bind, so the client's next datagrams wait for this socket, not another.
      const entry = { address: rinfo.address, port: rinfo.port, socket: null as Socket | null };
      clients.set(key, entry as { address: string; port: number; socket: Socket });
      const socket = await bind();
      entry.socket = socket;
      socket.on('message', (answer) => {
        relayed++;
        listen.send(answer, entry.port, entry.address);
      });
      client = entry as { address: string; port: number; socket: Socket };
    }
    if (client.socket === null) return;
    relayed++;
    client.socket.send(msg, upstream.port, LOCAL);
  });
  let turn = 0;
  const paced = pace(options, (bytes, done) => {
    if (clients.size === 0) return false;
    const list = [...clients.values()];
    const client = list[turn++ % list.length];
    listen.send(bytes, client.port, client.address, done);
    return true;
  });
  return {
    port: listen.address().port,
    get relayed() {
      return relayed;
    },
    get sent() {
      return paced.state.sent;
    },
    get errors() {
      return paced.state.errors;
    },
    stop: async () => {
      paced.stop();
      const sockets = [listen, ...[...clients.values()].map((c) => c.socket).filter((s) => s !== null)];
      await Promise.all(sockets.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    },
  };
}

export interface MemoryFigures {
  /** The kernel's peak resident set (VmHWM) at the last sample, MB. */
  readonly peakMb: number;
  /** Samples read; 0 means the figures say nothing. */
  readonly samples: number;
}

/**
 * Reads VmHWM (the peak resident set the kernel keeps) of `pid` every `everyMs`
 * until the process is gone. A peak in its last `everyMs` can be missed.
 */
export function watchMemory(pid: number, everyMs = 50): { stop(): MemoryFigures } {
  let peakKb = 0;
  let samples = 0;
  const sample = () => {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const hwm = /^VmHWM:\s+(\d+) kB/m.exec(status);
      if (hwm === null) return;
      peakKb = Math.max(peakKb, Number(hwm[1]));
      samples++;
    } catch {
      // Gone, or not yet there.
    }
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      return { peakMb: peakKb / 1024, samples };
    },
  };
}
