// Flags and sockets the live commands share: how many clients, and their sockets.
import type { Socket } from 'node:dgram';
import { bindUdp } from '../live/index.js';
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
