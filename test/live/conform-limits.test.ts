// A conform session's log holds a share of one campaign-wide byte budget: past
// it datagrams are still read and ACKed but only counted, and a verdict on an
// incomplete log is NOT EXERCISED. The server's unreadable datagrams are counted
// by source and only the first few kept; datagrams from elsewhere are counted.
import { createSocket } from 'node:dgram';
import type { Socket } from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { TYPE_ACK, encodeDatagram, encrypt } from '../../src/core/codec/index.js';
import { CampaignWire, UNREADABLE_KEPT_PER_SESSION, arrivalBytes } from '../../src/live/conform/campaign-wire.js';
import type { ConformCase } from '../../src/live/conform/case-types.js';
import { ConformClient } from '../../src/live/conform/client.js';
import { settle } from '../../src/live/conform/settle.js';

const LOCAL = '127.0.0.1';
const opened: Array<{ close(): void }> = [];

afterEach(() => {
  for (const s of opened.splice(0)) s.close();
});

async function socket(): Promise<Socket> {
  const s = createSocket('udp4');
  opened.push(s);
  await new Promise<void>((resolve) => s.bind(0, LOCAL, resolve));
  return s;
}

const send = (from: Socket, bytes: Uint8Array, port: number) =>
  new Promise<void>((resolve) => from.send(bytes, port, LOCAL, () => resolve()));

/** An ACK-only datagram of the server's: readable, nothing to ACK back. */
function serverAck(seq: number): Uint8Array {
  const r = encodeDatagram({ peerId: 0, messages: [{ type: TYPE_ACK, seq, flags: 0, fragIndex: null }] });
  if (!r.ok) throw new Error(r.error.reason);
  return encrypt(r.bytes);
}

const until = async (done: () => boolean, ms = 10_000) => {
  const start = performance.now();
  while (!done() && performance.now() - start < ms) await new Promise((r) => setTimeout(r, 5));
};

/** A conform session to `server` on loopback: the server's port, the client, and the client's port to send to. */
async function session(server: Socket, wire: CampaignWire) {
  const port = server.address().port;
  const client = await ConformClient.open({ host: LOCAL, port, family: 4 }, LOCAL, () => performance.now(), 'x', wire);
  opened.push(client);
  return { port, client, to: Number(client.local.split(':')[1]) };
}

describe("a conform session's log", () => {
  it("names the server's GameSpy replies as GameSpy, not as unreadable BC datagrams", async () => {
    const server = await socket();
    const wire = new CampaignWire();
    const { to } = await session(server, wire);
    // What a real server (OpenBC) sent back to a garbage datagram of ours that began with '\\'.
    await send(server, new TextEncoder().encode('\\gamename\\bcommander\\gamever\\60\\location\\0'), to);
    await send(server, serverAck(1), to);
    await until(() => wire.gamespy + wire.readable >= 2);
    expect([wire.gamespy, wire.readable, wire.unreadable.total]).toEqual([1, 1, 0]);
  });

  it('keeps within the budget, counts the rest, keeps a few unreadable ones and counts datagrams from elsewhere', async () => {
    const server = await socket();
    const stranger = await socket();
    const readableCost = arrivalBytes(4, 1);
    const wire = new CampaignWire(readableCost * 10);
    const { port, client, to } = await session(server, wire);
    for (let i = 0; i < 40; i++) await send(server, Uint8Array.of(0x01, 0x01, 0x4d, i), to);
    for (let i = 0; i < 30; i++) await send(server, serverAck(i), to);
    for (let i = 0; i < 3; i++) await send(stranger, serverAck(i), to);
    await until(() => wire.readable + wire.unreadable.total + wire.foreign >= 73);
    expect([wire.readable, wire.unreadable.total, wire.foreign]).toEqual([30, 40, 3]);
    expect(wire.unreadable.figures().bySource.map((s) => [s.address, s.count])).toEqual([[`${LOCAL}:${port}`, 40]]);
    // The first unreadable ones and the readable ones up to the budget were kept; the rest counted.
    const keptUnreadable = client.arrivals.filter((a) => a.messages === null).length;
    expect(keptUnreadable).toBeLessThanOrEqual(UNREADABLE_KEPT_PER_SESSION);
    expect(wire.logs.used).toBeLessThanOrEqual(wire.logs.limit);
    expect(wire.logs.used).toBe(client.logBytes);
    // Readable ones past the budget leave the log incomplete; unreadable ones past it do not.
    expect(client.overflow).toBeGreaterThan(0);
    expect(client.overflow).toBeLessThanOrEqual(30);
    expect(wire.logs.refused).toBe(70 - (40 - UNREADABLE_KEPT_PER_SESSION) - client.arrivals.length);
    expect(wire.logs.refused - client.overflow).toBe(UNREADABLE_KEPT_PER_SESSION - keptUnreadable);

    // A PASS on it cannot stand.
    const c = { id: 'x', endsSessions: false } as unknown as ConformCase;
    const settled = await settle(c, { status: 'pass', summary: 'all good', evidence: [] }, [client], 1000);
    expect(settled.status).toBe('not-exercised');
    expect(settled.summary).toMatch(
      /^the log of \[x\] is incomplete \(\d+ datagrams not kept: the campaign's log budget/,
    );

    // Its bytes go back to the budget once its case is over.
    wire.logs.give(client.logBytes);
    expect(wire.logs.used).toBe(0);
    expect(() => wire.logs.give(1)).toThrow(/gave back more than was taken/);
  });
});
