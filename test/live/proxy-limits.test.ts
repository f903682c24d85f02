// What grows with traffic in `bcsim proxy` has a counted limit: the datagrams
// its links hold (latency, duplicates), the keys of unACKed messages over every
// client, and garbage is counted by source address, not only forwarded.
import { createSocket } from 'node:dgram';
import type { Socket } from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { encrypt } from '../../src/core/codec/index.js';
import { InFlight } from '../../src/live/proxy/in-flight.js';
import { OutstandingTracker, outstandingBudget } from '../../src/live/proxy/outstanding.js';
import { renderSummary } from '../../src/live/proxy/summary.js';
import { bc, reliable } from '../support/pcap-build.js';
import { startProxy } from '../support/proxy-run.js';

const LOCAL = '127.0.0.1';
const sockets: Socket[] = [];

afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
});

async function endpoint(): Promise<{ socket: Socket; port: number; received: Buffer[] }> {
  const socket = createSocket('udp4');
  sockets.push(socket);
  await new Promise<void>((resolve) => socket.bind(0, LOCAL, resolve));
  const received: Buffer[] = [];
  socket.on('message', (msg) => received.push(msg));
  return { socket, port: socket.address().port, received };
}

const send = (socket: Socket, bytes: Uint8Array, port: number) =>
  new Promise<void>((resolve) => socket.send(bytes, port, LOCAL, () => resolve()));

const until = async (done: () => boolean, ms = 10_000) => {
  const start = performance.now();
  while (!done() && performance.now() - start < ms) await new Promise((r) => setTimeout(r, 5));
};

describe('the datagrams inside the links', () => {
  it('are counted in and out, duplicates as two; a landing never counted in is an error', () => {
    const f = new InFlight({ datagrams: 5, bytes: 1000 });
    expect(f.admits(100)).toBe(true);
    f.took(100, 2);
    f.took(100, 0);
    expect([f.datagrams.used, f.bytes.used]).toEqual([2, 200]);
    // Room for the datagram and a possible copy of it, in count and in bytes.
    expect(f.admits(400)).toBe(true);
    expect(f.admits(401)).toBe(false);
    f.took(100, 2);
    expect(f.admits(1)).toBe(false);
    for (let i = 0; i < 4; i++) f.landed(100);
    expect([f.datagrams.used, f.bytes.used]).toEqual([0, 0]);
    expect(() => f.landed(1)).toThrow(/never in flight/);
  });

  it('past the limit, a BC datagram is dropped before its link and counted; the rest land and the count goes back to 0', async () => {
    const server = await endpoint();
    const proxy = await startProxy(server.port, ['link.clientToServer.latencyMs=1000'], {
      datagrams: 6,
      bytes: 1_048_576,
    });
    const client = await endpoint();
    for (let i = 0; i < 10; i++) await send(client.socket, encrypt(bc(0xff, [reliable(i)])), proxy.port);
    await until(() => proxy.relay.totals.inFlightRefused + server.received.length >= 10);
    await until(() => proxy.relay.inFlight.datagrams.used === 0);
    const inFlightAtEnd = proxy.relay.inFlight.datagrams.used;
    const summary = await proxy.stop();
    // Room for two copies each: three admitted at a time, while 1 s of latency held them.
    expect(summary.totals.inFlightRefused).toBeGreaterThan(0);
    expect(server.received.length + summary.totals.inFlightRefused).toBe(10);
    expect(summary.clients[0].links.clientToServer.sent).toBe(server.received.length);
    expect(inFlightAtEnd).toBe(0);
    expect(renderSummary(summary)).toContain(`dropped at the in-flight limit ${summary.totals.inFlightRefused}`);
  });
});

describe("the keys of unACKed messages over every client's ends", () => {
  it('share one budget: past it a key is counted untracked, and an ACK gives its place back', () => {
    const budget = outstandingBudget(3);
    const [a, b] = [new OutstandingTracker(budget), new OutstandingTracker(budget)];
    a.add('client', bc(2, [reliable(1), reliable(2)]), 2);
    b.add('client', bc(3, [reliable(1), reliable(2)]), 2);
    expect([a.count('client'), b.count('client'), budget.used, b.untracked]).toEqual([2, 1, 3, 1]);
    // A re-send of a key already held costs nothing.
    a.add('client', bc(2, [reliable(1)]), 1);
    expect(a.untracked).toBe(0);
    a.add('server', bc(1, [{ type: 0x01, seq: 1, flags: 0, fragIndex: null }]), 1);
    expect(budget.used).toBe(2);
    b.add('client', bc(3, [reliable(3)]), 1);
    expect([b.count('client'), budget.used]).toEqual([2, 3]);
  });
});

describe('undecodable datagrams', () => {
  it('are forwarded untouched and counted by source address, the first ones in hex, in JSON and text', async () => {
    const server = await endpoint();
    const proxy = await startProxy(server.port, []);
    const client = await endpoint();
    const junk = Uint8Array.from([0x07, 0x01, 0x99]);
    for (let i = 0; i < 5; i++) await send(client.socket, junk, proxy.port);
    await until(() => server.received.length >= 5);
    // The server answers with garbage of its own, through the client's upstream socket.
    const upstream = proxy.relay.clients[0].socketAddress;
    if (upstream === null) throw new Error('no upstream socket');
    await send(server.socket, Uint8Array.of(0x01, 0x02), upstream.port);
    await until(() => client.received.length >= 1);
    const summary = await proxy.stop();
    expect(server.received).toHaveLength(5);
    expect(summary.unreadable.total).toBe(6);
    expect(summary.unreadable.bySource.map((s) => [s.address, s.count])).toEqual([
      [`${LOCAL}:${client.port}`, 5],
      [`${LOCAL}:${server.port}`, 1],
    ]);
    expect(summary.unreadable.bySource[0].first[0]).toMatchObject({ bytes: 3 });
    expect(summary.unreadable.bySource[0].first).toHaveLength(3);
    expect(renderSummary(summary)).toContain(`unreadable datagrams: 6 (5 from ${LOCAL}:${client.port}, 1 from`);
  });
});
