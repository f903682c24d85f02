// Addresses of the live mode: "host:port" flags, and UDP sockets
// bound exactly where the user said. bcsim never binds a wildcard address on
// its own: docs/live.md warns against exposing the proxy beyond loopback.
import { createSocket } from 'node:dgram';
import type { Socket } from 'node:dgram';
import { isIP } from 'node:net';
import { fileErrorText } from '../core/files/index.js';

export interface HostPort {
  readonly host: string;
  readonly port: number;
  readonly family: 4 | 6;
}

/** Parses "127.0.0.1:22101", "[::1]:22101" or "localhost:22101"; a reason string on bad input. */
export function parseHostPort(text: string, flag: string, allowPortZero = false): HostPort | string {
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(text) ?? /^([^:[\]]+):(\d+)$/.exec(text);
  if (m === null) return `${flag}: "${text}" is not host:port (e.g. 127.0.0.1:22101)`;
  const port = Number(m[2]);
  if (!Number.isInteger(port) || port > 65535 || (port === 0 && !allowPortZero))
    return `${flag}: port ${m[2]} is not in 1..65535`;
  const host = m[1] === 'localhost' ? '127.0.0.1' : m[1];
  const family = isIP(host);
  if (family === 0) return `${flag}: "${m[1]}" is not an IP address (give a numeric address or localhost)`;
  return { host, port, family: family as 4 | 6 };
}

export function formatHostPort(a: { readonly address: string; readonly port: number }): string {
  return a.address.includes(':') ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`;
}

/** True for 127.0.0.0/8 and ::1: the only addresses bcsim is meant to face. */
export function isLoopback(host: string): boolean {
  return host === '::1' || /^127\./.test(host);
}

/** A UDP socket bound to `at`; rejects with a one-line reason (address in use, not local). */
export function bindUdp(at: HostPort, flag: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = createSocket({ type: at.family === 6 ? 'udp6' : 'udp4' });
    const onError = (error: NodeJS.ErrnoException) => {
      socket.close();
      const why =
        error.code === 'EADDRINUSE'
          ? 'address already in use'
          : error.code === 'EADDRNOTAVAIL'
            ? 'not an address of this machine'
            : fileErrorText(error);
      reject(new Error(`${flag}: cannot bind ${formatHostPort({ address: at.host, port: at.port })}: ${why}`));
    };
    socket.once('error', onError);
    socket.bind(at.port, at.host, () => {
      socket.off('error', onError);
      resolve(socket);
    });
  });
}
