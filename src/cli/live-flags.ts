// Flags and sockets the live commands share: addresses, how many clients, and their sockets.
import type { Socket } from 'node:dgram';
import { isIP } from 'node:net';
import { bindUdp, isLoopback, parseHostPort } from '../live/index.js';
import type { HostPort } from '../live/index.js';
import { UsageError } from './io.js';

/** Most clients one live server serves, or one client side plays (each is a full peer state). */
const MAX_LIVE_CLIENTS = 16;

/** `--clients N`: 1 to MAX_LIVE_CLIENTS (default 1). */
export function clientsFlag(value: string | undefined): number {
  if (value === undefined) return 1;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_LIVE_CLIENTS)
    throw new UsageError(`--clients: "${value}" is not a whole number in 1..${MAX_LIVE_CLIENTS}`);
  return n;
}

/** `count` sockets: at `at`, then one port past it each (any port each when `at`'s port is 0). */
export async function bindAll(at: HostPort, count: number, flag: string): Promise<Socket[]> {
  const sockets: Socket[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const port = at.port === 0 ? 0 : at.port + i;
      if (port > 65535)
        throw new UsageError(`${flag}: ${count} clients from port ${at.port} run past port 65535; give a lower port`);
      sockets.push(await bindUdp({ ...at, port }, flag));
    }
    return sockets;
  } catch (error) {
    for (const s of sockets) s.close();
    if (error instanceof UsageError) throw error;
    throw new UsageError((error as Error).message);
  }
}

/** A HOST:PORT flag (port 0 only where `portZero`), or one line naming what was typed and why it is not one. */
export function hostPortFlag(text: string, flag: string, portZero = false): HostPort {
  const parsed = parseHostPort(text, flag, portZero);
  if (typeof parsed === 'string') throw new UsageError(parsed);
  return parsed;
}

/** `--bind HOST[:PORT]`: a bare host (IPv6 in brackets or not) binds any port, as port 0 does. */
export function bindHostPortFlag(text: string): HostPort {
  const bare = /^\[([^\]]+)\]$/.exec(text)?.[1] ?? text;
  const withPort = bare === 'localhost' || isIP(bare) !== 0 ? `${bare.includes(':') ? `[${bare}]` : bare}:0` : text;
  return hostPortFlag(withPort, '--bind', true);
}

/**
 * Where clients bind without --bind: loopback, any port, and only when their server (`remote`, typed as
 * `flag text`) is there; elsewhere the user must say where.
 */
export function loopbackBind(remote: HostPort, flag: string, text: string, who: string): HostPort {
  if (!isLoopback(remote.host))
    throw new UsageError(`${who}${flag} ${text} is not loopback; say where to bind with --bind HOST:PORT`);
  return { host: remote.family === 6 ? '::1' : '127.0.0.1', port: 0, family: remote.family };
}
