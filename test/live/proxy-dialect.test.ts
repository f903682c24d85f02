// `bcsim proxy` between a client and a server that speak the wire forms of
// docs/sources.md 30: the datagrams go through the link model (not bypassed as
// undecodable), leave byte for byte when no rule touches them, are counted per
// client and direction, and a message-scope drop rule that cuts a message out
// of one keeps the other messages' own bytes.
import { createSocket } from 'node:dgram';
import type { Socket } from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { decrypt, encrypt, parseHex, toHex } from '../../src/core/codec/index.js';
import { startProxy } from '../support/proxy-run.js';

const LOCAL = '127.0.0.1';
const sockets: Socket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
});

function bytes(hex: string): Uint8Array {
  const parsed = parseHex(hex);
  if (!parsed.ok) throw new Error(hex);
  return parsed.bytes;
}

interface Peer {
  readonly socket: Socket;
  readonly port: number;
  /** Decrypted datagrams received, as hex. */
  readonly received: string[];
  waitFor(n: number): Promise<void>;
}

async function peer(onMessage?: (p: Peer, plain: Uint8Array, port: number) => void): Promise<Peer> {
  const socket = createSocket('udp4');
  sockets.push(socket);
  await new Promise<void>((resolve) => socket.bind(0, LOCAL, resolve));
  const p: Peer = {
    socket,
    port: socket.address().port,
    received: [],
    waitFor: (n) =>
      new Promise((resolve) => {
        const started = Date.now();
        const check = () => (p.received.length >= n || Date.now() - started > 5000 ? resolve() : setTimeout(check, 5));
        check();
      }),
  };
  socket.on('message', (msg, rinfo) => {
    const plain = decrypt(new Uint8Array(msg));
    p.received.push(toHex(plain));
    onMessage?.(p, plain, rinfo.port);
  });
  return p;
}

const send = (p: Peer, hex: string, port: number) =>
  new Promise<void>((resolve) => p.socket.send(encrypt(bytes(hex)), port, LOCAL, () => resolve()));

const CONNECT = 'FF 01 03 08 01 00 00 00 7F 00';
const CONNECT_REPLY = '01 02 03 06 C0 00 00 02 01 00 00 02';
const ACK_AND_KEEPALIVE = '01 02 01 00 00 02 00 02';

/** A server that answers the Connect, then sends an ACK with the two-byte keepalive behind it. */
async function server(): Promise<Peer> {
  return peer((p, plain, port) => {
    if (plain[0] !== 0xff) return;
    void send(p, CONNECT_REPLY, port).then(() => send(p, ACK_AND_KEEPALIVE, port));
  });
}

describe('bcsim proxy and the wire forms of docs/sources.md 30', () => {
  it('relays them through the link byte for byte and counts them per client and direction', async () => {
    const s = await server();
    const proxy = await startProxy(s.port);
    const client = await peer();
    await send(client, CONNECT, proxy.port);
    await client.waitFor(2);
    await send(client, '02 01 01 00 00 80', proxy.port);
    await send(client, '02 01 06 02', proxy.port);
    await s.waitFor(3);
    const summary = await proxy.stop();
    expect(s.received).toEqual([CONNECT, '02 01 01 00 00 80', '02 01 06 02']);
    expect(client.received).toEqual([CONNECT_REPLY, ACK_AND_KEEPALIVE]);
    const c = summary.clients[0];
    expect([c.undecodable, c.links.clientToServer.sent, c.links.serverToClient.sent]).toEqual([
      { clientToServer: 0, serverToClient: 0 },
      3,
      2,
    ]);
    expect(c.deviations.clientToServer).toEqual({
      datagrams: 3,
      byCode: {
        'one-byte-length': 1,
        'connect-without-seq': 1,
        'ack-flag-bits': 1,
        'disconnect-type-06': 1,
        'two-byte-message': 1,
      },
    });
    expect(c.deviations.serverToClient).toEqual({ datagrams: 1, byCode: { 'two-byte-message': 1 } });
    // The analysis read the Connect as the stock reliable seq 0 and the server's ACK of it.
    const a = summary.analysis.connections[0];
    expect([
      a.clientToServer.reliable.low.messages,
      a.clientToServer.disconnects,
      a.serverToClient.keepalives.type00,
    ]).toEqual([1, 1, 1]);
    expect(c.outstandingAtExit.client).toBe(0);
  });

  it('a message-scope drop rule that cuts the ACK keeps the two-byte keepalive as it was sent', async () => {
    const s = await server();
    const proxy = await startProxy(s.port, ['link.serverToClient.drop=[{"match":{"type":"ack"},"scope":"message"}]']);
    const client = await peer();
    await send(client, CONNECT, proxy.port);
    await client.waitFor(2);
    const summary = await proxy.stop();
    // The ConnectAck datagram loses its ACK (re-encoded stock), the keepalive datagram keeps `00 02`.
    expect(client.received).toEqual(['01 01 03 06 C0 00 00 02', '01 01 00 02']);
    expect(summary.clients[0].links.serverToClient.messagesDropped).toBe(2);
  });
});
