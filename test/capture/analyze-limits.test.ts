// Hostile captures cannot make the analysis grow without bound:
// connections, ACK keys and fragmented messages followed are capped,
// far above anything the game produces, and what goes past a cap is counted.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WireAnalyzer, MAX_ACK_KEYS } from '../../src/analysis/capture/analyze.js';
import { MAX_CONNECTIONS, scanCapture } from '../../src/analysis/capture/bc-packets.js';
import type { CaptureConnection } from '../../src/analysis/capture/bc-packets.js';
import { encrypt } from '../../src/core/codec/index.js';
import { ExpiryQueue, MAX_QUEUED_SENDS } from '../../src/analysis/capture/expiry-queue.js';
import { ACK_KEY_BYTES, QUEUED_SEND_BYTES, analysisBudget } from '../../src/analysis/capture/analyze-budget.js';
import { EPOCH_US, ack, bc, ethernet, ipv4, pcap, reliable, SERVER_IP } from '../support/pcap-build.js';

const dir = mkdtempSync(join(tmpdir(), 'bcsim-limits-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('caps on hostile input', () => {
  it(`at most ${MAX_CONNECTIONS} connections; datagrams of further flows are counted as other UDP`, () => {
    const payload = encrypt(bc(0xff, [reliable(0, [0xff], 0x03)]));
    const flows = MAX_CONNECTIONS + 100;
    const packets = Array.from({ length: flows }, (_, i) => ({
      timeUs: EPOCH_US + i,
      data: ethernet(
        ipv4({ src: [10, 20, (i >> 8) & 0xff, i & 0xff], dst: SERVER_IP, sport: 40000, dport: 22101, payload }),
      ),
    }));
    const path = join(dir, 'flows.pcap');
    writeFileSync(path, pcap(packets));
    const result = scanCapture(path);
    if (!result.ok) throw new Error(result.error.reason);
    expect(result.stats.connections).toHaveLength(MAX_CONNECTIONS);
    expect(result.stats.bc).toBe(MAX_CONNECTIONS);
    expect(result.stats.other).toEqual({ [`BC beyond ${MAX_CONNECTIONS} connections`]: 100 });
  });

  it(`at most ${MAX_ACK_KEYS} ACK keys held per end; the estimate is then not defined`, () => {
    const analyzer = new WireAnalyzer();
    const endpoint = (port: number) => ({ key: port, ip: 0, port, label: `0.0.0.0:${port}` });
    const connection: CaptureConnection = {
      index: 1,
      server: endpoint(22101),
      client: endpoint(22102),
      slot: 2,
      startSeen: true,
      firstUs: 0,
      lastUs: 0,
    };
    // 100 distinct ACKs per datagram, each (seq, category) once: every key held (sent once, under 9 sends).
    let key = 0;
    let datagrams = 0;
    while (key < MAX_ACK_KEYS + 1000) {
      const messages = Array.from({ length: 100 }, () => {
        const k = key++;
        return ack(k & 0xffff, (k >> 16) & 1 ? 2 : 0, k >> 17 === 0 ? null : (k >> 17) & 0xff);
      });
      analyzer.add(connection, 'server', datagrams++ * 1000, 0, bc(0x01, messages));
    }
    const result = analyzer.finish();
    const acks = result.connections[0].serverToClient.acks;
    expect(acks.keys).toBe(MAX_ACK_KEYS);
    expect(acks.untracked).toBe(key - MAX_ACK_KEYS);
    expect(acks.sent).toBe(key);
    expect(result.connections[0].ackOutbox.server.defined).toBeNull();
  });

  it('a long capture keeps at most 20,000 outbox samples per series: the step doubles', async () => {
    const { MAX_SAMPLES } = await import('../../src/analysis/capture/analyze.js');
    // One ACK sent once says nothing about the behaviour: forced, so the series is kept.
    const analyzer = new WireAnalyzer({ ackRule: 'two-pass' });
    const endpoint = (port: number) => ({ key: port, ip: 0, port, label: `0.0.0.0:${port}` });
    const connection: CaptureConnection = {
      index: 1,
      server: endpoint(22101),
      client: endpoint(22102),
      slot: null,
      startSeen: true,
      firstUs: 500_000,
      lastUs: 500_000,
    };
    analyzer.add(connection, 'client', 500_000, 0, bc(0xff, [reliable(0, [0xff], 0x03)]));
    analyzer.add(connection, 'server', 600_000, 0, bc(0x01, [ack(0, 2)]));
    // Nine hours, a keepalive-like datagram every 100 s.
    for (let t = 100; t <= 9 * 3600; t += 100)
      analyzer.add(connection, 'client', t * 1_000_000, 0, bc(0x02, [reliable(t / 100, [1], 0x00)]));
    const samples = analyzer.finish().connections[0].ackOutbox.server.samples;
    if (samples === null) throw new Error('no series');
    expect(samples.startS).toBe(1);
    expect(samples.stepS).toBe(2);
    expect(samples.values.length).toBeLessThanOrEqual(MAX_SAMPLES);
    expect(samples.values.length).toBeGreaterThan(MAX_SAMPLES / 2);
    // The server's one entry (its ACK of the connect, sent once) is held throughout.
    expect(samples.values.every((v) => v === 1)).toBe(true);
  });
});

describe('the queue of ACK sends looked at again', () => {
  it(`holds at most ${MAX_QUEUED_SENDS} sends, counts the rest, and hands them out oldest first once old enough`, () => {
    const q = new ExpiryQueue(analysisBudget());
    for (let i = 0; i < MAX_QUEUED_SENDS + 10; i++) q.push(i, i);
    expect(q.size).toBe(MAX_QUEUED_SENDS);
    expect(q.refused).toBe(10);
    const seen: number[] = [];
    q.drain(2000 + 5, 2000, (key) => seen.push(key));
    expect(seen).toEqual([0, 1, 2, 3, 4, 5]);
    q.drain(Number.POSITIVE_INFINITY, 0, () => undefined);
    expect(q.size).toBe(0);
  });
});

describe('one memory budget over every connection of an analyzer', () => {
  const endpoint = (port: number) => ({ key: port, ip: 0, port, label: `0.0.0.0:${port}` });
  const connectionOf = (index: number): CaptureConnection => ({
    index,
    server: endpoint(22101),
    client: endpoint(22101 + index),
    slot: 1 + index,
    startSeen: true,
    firstUs: 0,
    lastUs: 0,
  });
  /** 100 distinct ACKs from the server on `connection`, keys from `first`. */
  const acks = (first: number) =>
    bc(
      0x01,
      Array.from({ length: 100 }, (_, i) => ack((first + i) & 0xffff)),
    );

  it('many connections together stop at the budget: later ACK keys are counted as untracked, and it is given back when keys are let go', () => {
    // Room for 1,000 keys and their queued sends over every connection.
    const budgetBytes = 1000 * (ACK_KEY_BYTES + QUEUED_SEND_BYTES);
    const analyzer = new WireAnalyzer({ ackRule: 'two-pass', budgetBytes });
    const connections = Array.from({ length: 8 }, (_, i) => connectionOf(i + 1));
    for (const c of connections) for (let d = 0; d < 5; d++) analyzer.add(c, 'server', d * 1000, 0, acks(d * 100));
    expect(analyzer.budget.refused).toBeGreaterThan(0);
    expect(analyzer.budget.peak).toBeLessThanOrEqual(budgetBytes);
    const result = analyzer.finish();
    const tracked = result.connections.map((c) => c.serverToClient.acks.keys);
    const untracked = result.connections.map((c) => c.serverToClient.acks.untracked);
    // Each connection alone is far under its own cap; together they reach the shared one.
    expect(tracked).toEqual([500, 500, 0, 0, 0, 0, 0, 0]);
    expect(untracked.reduce((a, b) => a + b, 0)).toBe(8 * 500 - tracked.reduce((a, b) => a + b, 0));
    expect(untracked[0]).toBe(0);
    expect(untracked[7]).toBe(500);
    // finish() let every key go: only the sends still queued hold memory.
    expect(analyzer.budget.used).toBe(1000 * QUEUED_SEND_BYTES);
  });
});
