// `bcsim proxy` on real loopback sockets: a fake BC server
// and fake clients exchange encrypted datagrams through runProxy, which is
// stopped by the test. Every test is bounded to a few seconds.
import { execFileSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import type { Socket } from 'node:dgram';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openCapture } from '../../src/core/pcap/index.js';
import { PERFECT_SCENARIO_JSON } from '../../src/cli/commands/proxy.js';
import { decodeDatagram, decrypt, encodeDatagram, encrypt } from '../../src/core/codec/index.js';
import type { Message } from '../../src/core/codec/index.js';
import { runProxy } from '../../src/live/proxy/run.js';
import type { ProxyConfig } from '../../src/live/proxy/run.js';
import type { ProxyRelay } from '../../src/live/proxy/relay.js';
import type { ProxySummary } from '../../src/live/proxy/summary.js';
import { parseScenario } from '../../src/model/scenario/load.js';

const LOCAL = '127.0.0.1';
const sockets: Socket[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const s of sockets.splice(0)) {
    try {
      s.close();
    } catch {
      // already closed
    }
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

interface Peer {
  socket: Socket;
  port: number;
  received: Array<{ bytes: Buffer; port: number }>;
  /** Resolves once `n` datagrams are in, or after `ms` (then with what there is): generous by default, for a busy machine. */
  waitFor(n: number, ms?: number): Promise<void>;
}

async function peer(
  onMessage?: (p: Peer, msg: Buffer, rinfo: { port: number; address: string }) => void,
): Promise<Peer> {
  const socket = createSocket('udp4');
  sockets.push(socket);
  await new Promise<void>((resolve) => socket.bind(0, LOCAL, resolve));
  const p: Peer = {
    socket,
    port: socket.address().port,
    received: [],
    waitFor: (n, ms = 10_000) =>
      new Promise((resolve) => {
        const start = Date.now();
        const check = () => (p.received.length >= n || Date.now() - start > ms ? resolve() : setTimeout(check, 5));
        check();
      }),
  };
  socket.on('message', (msg, rinfo) => {
    p.received.push({ bytes: msg, port: rinfo.port });
    onMessage?.(p, msg, rinfo);
  });
  return p;
}

const send = (p: Peer, bytes: Uint8Array, port: number) =>
  new Promise<void>((resolve) => p.socket.send(bytes, port, LOCAL, () => resolve()));

function wire(peerId: number, messages: Message[]): Uint8Array {
  const r = encodeDatagram({ peerId, messages });
  if (!r.ok) throw new Error(`encode: ${r.error.reason}`);
  return encrypt(r.bytes);
}

const reliable = (seq: number, payload = [1, 2, 3]): Message => ({
  type: 0x32,
  reliable: true,
  ordered: true,
  fragment: false,
  seq,
  fragIndex: null,
  fragCount: null,
  payload: Uint8Array.from(payload),
});
const fragment = (seq: number, index: number, count: number): Message => ({
  type: 0x32,
  reliable: true,
  ordered: true,
  fragment: true,
  seq,
  fragIndex: index,
  fragCount: index === 0 ? count : null,
  payload: new Uint8Array(20).fill(index),
});
const ack = (seq: number, fragIndex: number | null = null): Message => ({
  type: 0x01,
  seq,
  flags: fragIndex === null ? 0 : 1,
  fragIndex,
});

interface Started {
  relay: ProxyRelay;
  port: number;
  stop: () => Promise<ProxySummary>;
}

async function startProxy(
  upstreamPort: number,
  options: { sets?: string[]; loss?: number; seed?: number; pcap?: string; out?: string } = {},
): Promise<Started> {
  const config: ProxyConfig = {
    listen: { host: LOCAL, port: 0, family: 4 },
    upstream: { host: LOCAL, port: upstreamPort, family: 4 },
    upstreamBind: { host: LOCAL, port: 0, family: 4 },
    scenario: parseScenario(PERFECT_SCENARIO_JSON, 'test', options.sets ?? [], options.loss),
    scenarioRef: null,
    loss: options.loss ?? null,
    sets: options.sets ?? [],
    seed: options.seed ?? 1,
    durationUs: 20_000_000, // a bound, should a test forget to stop it
    pcap: options.pcap ?? null,
    out: options.out ?? null,
  };
  let stopNow: (reason: string) => void = () => {};
  const stop = new Promise<string>((resolve) => (stopNow = resolve));
  let relay: ProxyRelay | null = null;
  const done = runProxy(config, { stop, onListening: (_a, r) => (relay = r) });
  while (relay === null) await new Promise((r) => setTimeout(r, 2));
  const r = relay as ProxyRelay;
  return {
    relay: r,
    port: r.listening.port,
    stop: async () => {
      stopNow('stopped');
      return done;
    },
  };
}

const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'bcsim-proxy-'));
  dirs.push(d);
  return d;
};

describe('bcsim proxy relay', () => {
  it('relays both ways for several clients, one upstream socket per client, bytes unchanged', async () => {
    // The server answers every datagram with a reliable message of its own, echoing the first byte of the request's payload.
    const server = await peer((p, msg, rinfo) => {
      const plain = decrypt(msg);
      const d = decodeDatagram(plain);
      const seq = d.ok && d.datagram.messages[0].type === 0x32 ? (d.datagram.messages[0].seq ?? 0) : 0;
      p.socket.send(wire(2, [ack(seq), reliable(seq + 100)]), rinfo.port, LOCAL);
    });
    const proxy = await startProxy(server.port);
    const clients = [await peer(), await peer(), await peer()];
    const sent: Uint8Array[] = [];
    for (let i = 0; i < clients.length; i++) {
      for (let j = 0; j < 3; j++) {
        const w = wire(0xff, [reliable(i * 10 + j)]);
        sent.push(w);
        await send(clients[i], w, proxy.port);
      }
    }
    await server.waitFor(9);
    for (const c of clients) await c.waitFor(3);
    const summary = await proxy.stop();

    // The server saw exactly the client bytes, from three proxy ports (one per client), none of them the listen port.
    expect(server.received.map((r) => Buffer.from(r.bytes).toString('hex')).sort()).toEqual(
      sent.map((s) => Buffer.from(s).toString('hex')).sort(),
    );
    const ports = new Set(server.received.map((r) => r.port));
    expect(ports.size).toBe(3);
    expect(ports.has(proxy.port)).toBe(false);
    // Each client got its own three answers, from the listen port.
    clients.forEach((c, i) => {
      expect(c.received).toHaveLength(3);
      for (const r of c.received) {
        expect(r.port).toBe(proxy.port);
        const d = decodeDatagram(decrypt(r.bytes));
        expect(
          d.ok && d.datagram.messages[1].type === 0x32 && Math.floor(((d.datagram.messages[1].seq ?? 0) - 100) / 10),
        ).toBe(i);
      }
    });
    expect(summary.schema).toBe('bcsim.proxy/1');
    expect(summary.clients.map((c) => c.client)).toEqual([1, 2, 3]);
    for (const c of summary.clients) {
      expect(c.links.clientToServer).toMatchObject({ sent: 3, delivered: 3, dropped: 0 });
      expect(c.links.serverToClient).toMatchObject({ sent: 3, delivered: 3, dropped: 0 });
      // Every message was ACKed by the server; the server's own reliables never were.
      expect(c.outstandingAtExit).toEqual({ client: 0, server: 3 });
    }
    expect(summary.totals.links.clientToServer.sent).toBe(9);
    expect(summary.analysis.connections).toHaveLength(3);
    expect(summary.analysis.connections[0].clientToServer.reliable.high.messages).toBe(3);
    expect(summary.analysis.connections[0].serverToClient.acks.sent).toBe(3);
  });

  it('100% loss drops every BC datagram and counts it; nothing reaches the server', async () => {
    const server = await peer();
    const proxy = await startProxy(server.port, { loss: 1 });
    const client = await peer();
    for (let i = 0; i < 20; i++) await send(client, wire(0xff, [reliable(i)]), proxy.port);
    await server.waitFor(1, 300);
    const summary = await proxy.stop();
    expect(server.received).toHaveLength(0);
    expect(summary.clients[0].links.clientToServer).toMatchObject({
      sent: 20,
      delivered: 0,
      dropped: 20,
      droppedBy: { loss: 20, outage: 0, queue: 0, rule: 0 },
    });
    expect(summary.settings.loss).toBe(1);
    // The analysis still sees what the client sent (before the link).
    expect(summary.analysis.connections[0].clientToServer.datagrams).toBe(20);
  });

  it('forwards GameSpy queries untouched both ways, bypassing the link (even at 100% loss)', async () => {
    const query = Buffer.from('\\status\\');
    const answer = Buffer.from('\\hostname\\bcsim test\\numplayers\\0\\final\\');
    const server = await peer((p, msg, rinfo) => {
      if (msg[0] === 0x5c) p.socket.send(answer, rinfo.port, LOCAL);
    });
    const proxy = await startProxy(server.port, { loss: 1 });
    const client = await peer();
    await send(client, query, proxy.port);
    await client.waitFor(1);
    // A datagram that neither is GameSpy nor decodes: forwarded untouched too, counted apart.
    const junk = Uint8Array.from([0x07, 0x01, 0x99]);
    await send(client, junk, proxy.port);
    await server.waitFor(2);
    const summary = await proxy.stop();
    expect(server.received[0].bytes.equals(query)).toBe(true);
    expect(server.received[1].bytes.equals(Buffer.from(junk))).toBe(true);
    expect(client.received[0].bytes.equals(answer)).toBe(true);
    expect(summary.clients[0].gamespy).toEqual({ clientToServer: 1, serverToClient: 1 });
    expect(summary.clients[0].undecodable).toEqual({ clientToServer: 1, serverToClient: 0 });
    expect(summary.totals.gamespy).toBe(2);
    expect(summary.clients[0].links.clientToServer.sent).toBe(0);
  });

  it('a drop rule on decoded fields (every fragment ACK) fires, is counted, and the analysis sees the re-sent fragments', async () => {
    // The server ACKs each fragment it receives; the rule drops those ACKs (datagram scope)
    // and cuts them out of mixed datagrams (message scope), so the client re-sends.
    const server = await peer((p, msg, rinfo) => {
      const d = decodeDatagram(decrypt(msg));
      if (!d.ok) return;
      const m = d.datagram.messages[0];
      if (m.type === 0x32 && m.fragment) {
        p.socket.send(wire(2, [ack(m.seq ?? 0, m.fragIndex)]), rinfo.port, LOCAL);
        p.socket.send(wire(2, [ack(m.seq ?? 0, m.fragIndex), ack(77)]), rinfo.port, LOCAL);
      }
    });
    const rule =
      'link.serverToClient.drop=[{"match":{"type":"ack","fragment":true},"first":2},{"scope":"message","match":{"type":"ack","fragment":true}}]';
    const proxy = await startProxy(server.port, { sets: [rule] });
    const client = await peer();
    // Round 1, then the client re-sends both fragments (no ACK came), as the stock client would.
    for (let round = 0; round < 2; round++) {
      await send(client, wire(0xff, [fragment(5, 0, 2)]), proxy.port);
      await send(client, wire(0xff, [fragment(5, 1, 2)]), proxy.port);
      await server.waitFor(2 * (round + 1));
    }
    await client.waitFor(3);
    const summary = await proxy.stop();
    const s2c = summary.clients[0].links.serverToClient;
    // 8 datagrams from the server, alternately [fragment ACK] and [fragment ACK, ACK 77]:
    // the datagram-scope rule drops the first 2; then the message-scope rule empties the
    // 3 other lone fragment ACKs (a drop) and cuts the fragment ACK out of the 3 mixed ones.
    expect(s2c.sent).toBe(8);
    expect(s2c.droppedBy.rule).toBe(5);
    expect(s2c.messagesDropped).toBe(3);
    expect(client.received).toHaveLength(3);
    for (const r of client.received) {
      const d = decodeDatagram(decrypt(r.bytes));
      expect(d.ok && d.datagram.messages.map((m) => [m.type, m.seq])).toEqual([[0x01, 77]]);
    }
    const c2s = summary.analysis.connections[0].clientToServer;
    expect(c2s.fragments.retransmissions).toBe(2);
    expect(c2s.fragments.rounds).toBe(1);
    expect(summary.clients[0].outstandingAtExit.client).toBe(0); // the server did ACK them on its side of the proxy
  });

  it('writes a pcapng of what it forwarded and dropped, readable by openCapture (and tshark), with the summary, atomically', async () => {
    const dir = tmp();
    const pcap = join(dir, 'p.pcapng');
    const out = join(dir, 'summary.json');
    const server = await peer((p, _msg, rinfo) => p.socket.send(wire(2, [ack(1)]), rinfo.port, LOCAL));
    const proxy = await startProxy(server.port, { loss: 0.5, seed: 3, pcap, out });
    const client = await peer();
    for (let i = 0; i < 40; i++) await send(client, wire(0xff, [reliable(i)]), proxy.port);
    await server.waitFor(40, 400);
    await client.waitFor(server.received.length, 400);
    expect(existsSync(pcap)).toBe(false); // nothing before exit
    const summary = await proxy.stop();
    expect(readdirSync(dir).sort()).toEqual(['p.pcapng', 'summary.json']);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(JSON.parse(JSON.stringify(summary)));

    const opened = openCapture(pcap, { comments: true });
    if (!opened.ok) throw new Error(opened.error.reason);
    const comments: string[] = [];
    let packets = 0;
    for (;;) {
      const step = opened.reader.next();
      if (step.kind === 'end') break;
      if (step.kind !== 'packet') throw new Error(step.kind);
      packets++;
      comments.push(step.packet.comment ?? '');
      // Real wall-clock time (a simulated one would read 2002): the run happened within the last minutes.
      expect(Math.abs(step.packet.timeUs / 1000 - Date.now())).toBeLessThan(600_000);
    }
    const c2s = summary.clients[0].links.clientToServer;
    const s2c = summary.clients[0].links.serverToClient;
    expect(c2s.dropped).toBeGreaterThan(0);
    expect(packets).toBe(summary.totals.capturedPackets);
    expect(packets).toBe(c2s.sent + s2c.sent);
    expect(comments.filter((c) => c === 'DROPPED (loss)')).toHaveLength(c2s.dropped + s2c.dropped);

    let tshark: string;
    // tshark is installed by .ci/run: this check never skips.
    tshark = execFileSync('tshark', ['-r', pcap, '-T', 'fields', '-e', 'udp.srcport', '-e', 'udp.dstport'], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    const lines = tshark.trim().split('\n');
    expect(lines).toHaveLength(packets);
    // End to end, the proxy transparent: one conversation, client <-> server.
    expect(new Set(lines)).toEqual(new Set([`${client.port}\t${server.port}`, `${server.port}\t${client.port}`]));
  }, 30_000);

  it('the same packet order with the same seed makes the same drop decisions; another seed differs', async () => {
    const run = async (seed: number) => {
      const server = await peer();
      const proxy = await startProxy(server.port, { loss: 0.5, seed });
      const client = await peer();
      for (let i = 0; i < 64; i++) await send(client, wire(0xff, [reliable(i)]), proxy.port);
      const summary = await new Promise<ProxySummary>((resolve) => setTimeout(() => resolve(proxy.stop()), 300));
      const got = server.received
        .map((r) => {
          const d = decodeDatagram(decrypt(r.bytes));
          return d.ok ? (d.datagram.messages[0] as { seq: number }).seq : -1;
        })
        .sort((a, b) => a - b);
      expect(got.length).toBe(summary.clients[0].links.clientToServer.delivered);
      return got.join(',');
    };
    const a = await run(11);
    const b = await run(11);
    const c = await run(12);
    expect(a).toBe(b);
    expect(c).not.toBe(a);
  });

  it("applies the link model on the wall clock: latency delays delivery, outage windows count from the proxy's start", async () => {
    const server = await peer();
    // A 2 s outage: the first datagram falls inside it even when a busy machine is slow to send it.
    const sets = ['link.clientToServer.latencyMs=120', 'link.clientToServer.outages=[{"start":"0s","end":"2s"}]'];
    const proxy = await startProxy(server.port, { sets });
    const started = performance.now(); // the proxy's clock started before this
    const client = await peer();
    await send(client, wire(0xff, [reliable(1)]), proxy.port); // inside the outage: dropped
    await new Promise((r) => setTimeout(r, 2_100 - (performance.now() - started)));
    const sentAt = performance.now();
    await send(client, wire(0xff, [reliable(2)]), proxy.port);
    await server.waitFor(1);
    const tookMs = performance.now() - sentAt;
    const summary = await proxy.stop();
    expect(server.received).toHaveLength(1);
    // Held for the latency at least; a busy machine may add to it, never take from it.
    expect(tookMs).toBeGreaterThanOrEqual(115);
    expect(tookMs).toBeLessThan(5_000);
    expect(summary.clients[0].links.clientToServer).toMatchObject({ sent: 2, delivered: 1, droppedBy: { outage: 1 } });
  });

  it('duplication from the link model: both copies go on, the copy commented LINK-DUP in the capture', async () => {
    const dir = tmp();
    const pcap = join(dir, 'dup.pcapng');
    const server = await peer();
    const proxy = await startProxy(server.port, { sets: ['link.clientToServer.duplicate=1'], pcap });
    const client = await peer();
    const w = wire(0xff, [reliable(9)]);
    await send(client, w, proxy.port);
    await server.waitFor(2);
    const summary = await proxy.stop();
    expect(server.received.map((r) => r.bytes.equals(Buffer.from(w)))).toEqual([true, true]);
    expect(summary.clients[0].links.clientToServer).toMatchObject({ sent: 1, delivered: 2, duplicated: 1 });
    const opened = openCapture(pcap, { comments: true });
    if (!opened.ok) throw new Error(opened.error.reason);
    const comments: string[] = [];
    for (let step = opened.reader.next(); step.kind === 'packet'; step = opened.reader.next())
      comments.push(step.packet.comment ?? '');
    expect(comments).toEqual(['', 'LINK-DUP']);
  });

  it('refuses clients past the limit and counts them', async () => {
    const server = await peer();
    const proxy = await startProxy(server.port);
    (proxy.relay as unknown as { options: { maxClients: number } }).options.maxClients = 2;
    const clients = [await peer(), await peer(), await peer()];
    for (const c of clients) await send(c, wire(0xff, [reliable(1)]), proxy.port);
    await server.waitFor(2);
    await new Promise((r) => setTimeout(r, 50));
    const summary = await proxy.stop();
    expect(summary.clients).toHaveLength(2);
    expect(summary.totals.refused).toBe(1);
  });
});
