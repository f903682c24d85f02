// Issue 14, item 5: `bcsim peer client` against `bcsim peer server` on loopback,
// as real processes on real UDP. Every pair runs at once (the tests are
// concurrent), so the file takes about the longest run: ~32 s.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bcsim, freeUdpPort } from '../support/live.js';

const TRAFFIC_S = 20;
/** Join (~8 s on the wall clock with 95 ms updates and the 4.65 s ship selection), then 20 s of traffic. */
const CLIENT_S = 9 + TRAFFIC_S;

interface LiveJson {
  role: string;
  wallSeconds: number;
  stopReason: string;
  peer: { retransmits: number; connections: Record<string, { joinedAtS: number | null; state: string; slot: number | null }> };
  delivery: { reliableSent: number; acknowledged: number; unacknowledged: number; gaveUp: number; unreliableSent: number; unreliableReceived: number; reliableReceived: number };
  timers: { sendLatenessUs: { count: number; p50: number; p99: number } };
  conformance: Array<{ rule: string; passed: boolean; violations: number; evidence: Array<{ seq: number; hex: string; detail: string }> }>;
}

async function pair(serverMode: string, clientMode: string, clientExtra: string[] = []) {
  const port = await freeUdpPort();
  const server = bcsim(['peer', 'server', '--listen', `127.0.0.1:${port}`, '--mode', serverMode, '--duration', `${CLIENT_S + 3}s`, '--json']);
  await server.stderrSays('waiting for clients');
  const client = bcsim(['peer', 'client', '--connect', `127.0.0.1:${port}`, '--mode', clientMode, '--duration', `${CLIENT_S}s`, '--json', ...clientExtra]);
  const [c, s] = await Promise.all([client.exited, server.exited]);
  return { client: c, server: s, clientJson: JSON.parse(c.stdout) as LiveJson, serverJson: JSON.parse(s.stdout) as LiveJson };
}

describe.concurrent('bcsim peer client <-> bcsim peer server (loopback)', () => {
  for (const [serverMode, clientMode] of [
    ['fixed', 'fixed'],
    ['stock', 'stock'],
    ['stock', 'fixed'],
    ['fixed', 'stock'],
  ]) {
    it(`${clientMode} client with ${serverMode} server: join, then ${TRAFFIC_S} s of traffic`, async () => {
      const { client, server, clientJson, serverJson } = await pair(serverMode, clientMode);
      expect(client.signal).toBeNull();
      expect(server.signal).toBeNull();
      for (const [j, mode] of [
        [clientJson, clientMode],
        [serverJson, serverMode],
      ] as const) {
        const [connection] = Object.values(j.peer.connections);
        expect(connection.joinedAtS).not.toBeNull();
        expect(j.wallSeconds - (connection.joinedAtS as number)).toBeGreaterThanOrEqual(TRAFFIC_S - 1);
        // Both ends play combat: ~49 StateUpdates/s each way, and reliable game events.
        expect(j.delivery.unreliableReceived).toBeGreaterThan(25 * TRAFFIC_S);
        expect(j.delivery.reliableSent).toBeGreaterThan(10);
        // A stock client gives its never-ACKed fragments up in the end (the bug); a fixed end never gives up here.
        if (mode === 'fixed') expect(j.delivery.gaveUp).toBe(0);
        expect(j.conformance.find((r) => r.rule === 'join-completes')?.passed).toBe(true);
      }
      expect(serverJson.peer.connections['2'].slot).toBe(2);
      expect(clientJson.stopReason).toBe('duration');
      // The stock client re-sends its fragmented checksum response however the server ACKs it (the bug).
      if (clientMode === 'stock') expect(clientJson.peer.retransmits).toBeGreaterThan(0);
      else expect(clientJson.peer.retransmits).toBe(0);
      if (clientMode === 'fixed' && serverMode === 'fixed') {
        // The fixed pair passes every default rule, both ways.
        expect(client.code).toBe(0);
        expect(server.code).toBe(0);
      }
    }, 60_000);
  }

  it('a rule the stock server breaks fails with exit 1, the evidence and a JUnit file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bcsim-peer-'));
    const rules = join(dir, 'rules.json');
    // DECISIONS.md 8: the stock two-pass outbox sends an ACK entry up to 9 times; a fixed one 3.
    writeFileSync(rules, JSON.stringify({ rules: [{ rule: 'ack-sends-max', max: 3 }, { rule: 'fragment-acks', withinMs: 2000 }] }));
    const junit = join(dir, 'out.xml');
    const { client, clientJson } = await pair('stock', 'fixed', ['--expect', rules, '--junit', junit]);
    expect(client.code).toBe(1);
    const failed = clientJson.conformance.find((r) => r.rule === 'ack-sends-max');
    expect(failed?.passed).toBe(false);
    expect(failed?.evidence[0].hex).toMatch(/^[0-9A-F]{2}( [0-9A-F]{2})+/);
    expect(clientJson.conformance.find((r) => r.rule === 'fragment-acks')?.passed).toBe(true);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('<failure');
    expect(xml).toMatch(/tests="3"/);
  }, 60_000);
});
