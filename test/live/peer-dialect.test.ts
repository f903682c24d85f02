// `bcsim peer` against counterparts that send the wire forms of docs/sources.md 30:
// the transport reads their stock form (a server answers a Connect with a
// one-byte length; a client takes two-byte keepalives), the summary counts the
// deviations, and what a server cannot take from a new address is one stderr
// line at once, as is the first refusal of an address past --clients.
import { createSocket } from 'node:dgram';
import type { Socket } from 'node:dgram';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeDatagram, decrypt, encrypt, parseHex } from '../../src/core/codec/index.js';
import { bcsim, freeUdpPort } from '../support/live.js';

function bytes(hex: string): Uint8Array {
  const parsed = parseHex(hex);
  if (!parsed.ok) throw new Error(hex);
  return parsed.bytes;
}

async function udp(): Promise<Socket> {
  const s = createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', () => r()));
  return s;
}

function send(s: Socket, plain: Uint8Array, port: number): Promise<void> {
  return new Promise((resolve, reject) =>
    s.send(encrypt(plain), port, '127.0.0.1', (e) => (e ? reject(e) : resolve())),
  );
}

/** The next datagram `s` receives, decrypted (rejects after `ms`). */
function next(s: Socket, ms = 20_000): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no datagram')), ms);
    s.once('message', (msg) => {
      clearTimeout(timer);
      resolve(decrypt(new Uint8Array(msg)));
    });
  });
}

describe("bcsim peer server and a test client in a reimplementation's forms", () => {
  it('answers the one-byte-length Connect with its ConnectAck, and counts every deviation of the client', async () => {
    const port = await freeUdpPort();
    const out = join(mkdtempSync(join(tmpdir(), 'bcsim-peer-dialect-')), 'live.json');
    const server = bcsim(['peer', 'server', '--listen', `127.0.0.1:${port}`, '--duration', '4s', '--out', out]);
    await server.stderrSays('waiting for clients');
    const client = await udp();
    try {
      const reply = next(client);
      await send(client, bytes('FF 01 03 08 01 00 00 00 7F 00'), port);
      const answer = decodeDatagram(await reply);
      expect(answer.ok).toBe(true);
      if (!answer.ok) return;
      // The server's first datagram carries the ConnectAck (type 0x03) giving slot 2, and ACKs the Connect as seq 0.
      const connectAck = answer.datagram.messages.find((m) => m.type === 0x03);
      expect(connectAck && 'payload' in connectAck ? connectAck.payload[0] : null).toBe(0x02);
      await send(client, bytes('02 01 01 00 00 80'), port); // an ACK with flags 0x80
      await send(client, bytes('02 01 06 02'), port); // the Disconnect of type 0x06
    } finally {
      client.close();
    }
    const done = await server.exited;
    expect(done.stderr).not.toContain('opens no connection');
    const summary = JSON.parse(readFileSync(out, 'utf8'));
    expect(summary.wire).toMatchObject({ received: 3, unopened: 0 });
    const c = summary.counterpart.analysis.connections[0];
    expect(c.clientToServer.deviations).toEqual({
      datagrams: 3,
      byCode: {
        'one-byte-length': 1,
        'connect-without-seq': 1,
        'ack-flag-bits': 1,
        'disconnect-type-06': 1,
        'two-byte-message': 1,
      },
    });
    expect(done.stdout).toContain('counterpart (connection 1): 3 datagrams in non-stock wire forms');
  }, 60_000);

  it('a first datagram it cannot read is one stderr line at once, with the hex; no connection is opened for it', async () => {
    const port = await freeUdpPort();
    const server = bcsim(['peer', 'server', '--listen', `127.0.0.1:${port}`, '--duration', '60s', '--json']);
    await server.stderrSays('waiting for clients');
    const client = await udp();
    try {
      await send(client, bytes('FF 01 07 02 00'), port);
      await send(client, bytes('FF 01 07 02 00'), port);
      await server.stderrSays('opens no connection');
      // Said while the run goes on (a 60 s run), not at its end.
      expect(server.child.exitCode).toBeNull();
    } finally {
      client.close();
      server.child.kill('SIGTERM');
    }
    const done = await server.exited;
    const lines = done.stderr.split('\n').filter((l) => l.includes('opens no connection'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^bcsim peer server: 127\.0\.0\.1:\d+ sent a datagram that opens no connection: bcsim cannot read it \(offset 2: unknown message type 0x07\); decrypted: FF 01 07 02 00; as sent: FF /,
    );
    const summary = JSON.parse(done.stdout);
    expect(summary.wire).toMatchObject({ received: 0, unopened: 2 });
    expect(summary.peer.connections).toEqual({});
  }, 60_000);

  it('the first refusal of an address past --clients is one stderr line', async () => {
    const port = await freeUdpPort();
    const server = bcsim([
      'peer',
      'server',
      '--listen',
      `127.0.0.1:${port}`,
      '--clients',
      '1',
      '--duration',
      '60s',
      '--json',
    ]);
    await server.stderrSays('waiting for clients');
    const first = await udp();
    const second = await udp();
    try {
      const answered = next(first);
      await send(first, bytes('FF 01 03 08 01 00 00 00 7F 00'), port);
      await answered;
      await send(second, bytes('FF 01 03 08 01 00 00 00 7F 00'), port);
      await send(second, bytes('FF 01 03 08 01 00 00 00 7F 00'), port);
      await server.stderrSays('refusing');
    } finally {
      first.close();
      second.close();
      server.child.kill('SIGTERM');
    }
    const done = await server.exited;
    const lines = done.stderr.split('\n').filter((l) => l.includes('refusing'));
    expect(lines).toEqual([
      expect.stringMatching(
        /^bcsim peer server: refusing 127\.0\.0\.1:\d+: already serving 1 client \(--clients 1\); its datagrams are counted, not read$/,
      ),
    ]);
    expect(JSON.parse(done.stdout).wire.refusedAddresses).toBe(2);
  }, 60_000);
});

describe('bcsim peer client and a server that sends two-byte keepalives', () => {
  it('its transport reads them (delivered as unreliable type-0x00 messages) and the summary names them', async () => {
    const server = await udp();
    const port = server.address().port;
    const out = join(mkdtempSync(join(tmpdir(), 'bcsim-peer-dialect-')), 'live.json');
    let client: { port: number } | null = null;
    server.on('message', (msg, rinfo) => {
      const plain = decrypt(new Uint8Array(msg));
      if (client !== null || plain[0] !== 0xff) return;
      client = { port: rinfo.port };
      // The ConnectAck (slot 2) and ACK of the Connect, then three two-byte keepalives, one behind an ACK.
      const replies = ['01 02 03 06 C0 00 00 02 01 00 00 02', '01 01 00 02', '01 01 00 02', '01 02 01 00 00 02 00 02'];
      replies.forEach((hex, i) =>
        setTimeout(() => server.send(encrypt(bytes(hex)), rinfo.port, '127.0.0.1'), 100 * (i + 1)),
      );
    });
    const run = bcsim(['peer', 'client', '--connect', `127.0.0.1:${port}`, '--duration', '2s', '--out', out]);
    const done = await run.exited;
    server.close();
    expect(client).not.toBeNull();
    const summary = JSON.parse(readFileSync(out, 'utf8'));
    expect(summary.delivery.unreliableReceived).toBe(3);
    expect(summary.counterpart.analysis.connections[0].serverToClient.deviations).toEqual({
      datagrams: 3,
      byCode: { 'two-byte-message': 3 },
    });
    expect(done.stdout).toContain('3 datagrams in non-stock wire forms (two-byte-message 3)');
  }, 60_000);
});
