// A ~100 MB capture streams through bounded memory: the
// reader never holds more than its 1 MiB buffer, and the process's resident
// memory grows by far less than the file while it is read and analysed.
import { closeSync, openSync, rmSync, mkdtempSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeCapture } from '../../src/analysis/capture/analyze-capture.js';
import { scanCapture } from '../../src/analysis/capture/bc-packets.js';
import { BUFFER_BYTES, openCapture } from '../../src/core/pcap/index.js';
import { encrypt } from '../../src/core/codec/index.js';
import {
  EPOCH_US,
  ack,
  bc,
  ethernet,
  ipv4,
  pcap,
  reliable,
  unreliable,
  CLIENT_IP,
  SERVER_IP,
} from '../support/pcap-build.js';

const dir = mkdtempSync(join(tmpdir(), 'bcsim-stream-'));
const path = join(dir, 'big.pcap');
const CHUNKS = 100;
const GAMESPY_PER_CHUNK = 700;
const BC_PER_CHUNK = 50;
let fileBytes = 0;

/**
 * One ~1 MB chunk of records, written 100 times with its timestamps moved on a
 * second each time: 1,400-byte GameSpy replies (which cost no decryption) and
 * a little BC traffic between them.
 */
beforeAll(() => {
  const header = pcap([]);
  const records: Uint8Array[] = [];
  const gamespy = ethernet(
    ipv4({
      src: SERVER_IP,
      dst: CLIENT_IP,
      sport: 22101,
      dport: 40000,
      payload: new TextEncoder().encode(`\\hostname\\${'x'.repeat(1390)}`),
    }),
  );
  const up = (bytes: Uint8Array) =>
    ethernet(ipv4({ src: CLIENT_IP, dst: SERVER_IP, sport: 22102, dport: 22101, payload: encrypt(bytes) }));
  const down = (bytes: Uint8Array) =>
    ethernet(ipv4({ src: SERVER_IP, dst: CLIENT_IP, sport: 22101, dport: 22102, payload: encrypt(bytes) }));
  let k = 0;
  for (let i = 0; i < GAMESPY_PER_CHUNK; i++) {
    records.push(gamespy);
    if (i % (GAMESPY_PER_CHUNK / BC_PER_CHUNK) === 0) {
      // Client reliable messages, and the server's ACK of each (the seq is rewritten per chunk below).
      records.push(
        k % 2 === 0
          ? up(bc(0x02, [reliable(k, [0x20, k & 0xff]), unreliable()]))
          : down(bc(0x01, [ack(k - 1), unreliable()])),
      );
      k++;
    }
  }
  const body = pcap(records.map((data, i) => ({ timeUs: EPOCH_US + i * 1000, data })));
  const chunk = body.subarray(header.length);
  // Record offsets in the chunk, to move each copy's timestamps.
  const offsets: number[] = [];
  for (let at = 0; at < chunk.length; ) {
    offsets.push(at);
    at += 16 + new DataView(chunk.buffer, chunk.byteOffset + at + 8, 4).getUint32(0, true);
  }
  const fd = openSync(path, 'w');
  writeSync(fd, header);
  fileBytes = header.length;
  const copy = new Uint8Array(chunk);
  const view = new DataView(copy.buffer);
  const baseSeconds = offsets.map((o) => view.getUint32(o, true));
  for (let c = 0; c < CHUNKS; c++) {
    offsets.forEach((o, i) => view.setUint32(o, baseSeconds[i] + c, true));
    writeSync(fd, copy);
    fileBytes += copy.length;
  }
  closeSync(fd);
}, 60_000); // writing ~100 MB: generous for a busy machine (the default hook timeout is 10 s)

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a ~100 MB capture', () => {
  it('is read with a buffer that never grows and resident memory far below the file', () => {
    expect(fileBytes).toBeGreaterThan(95e6);
    const opened = openCapture(path);
    if (!opened.ok) throw new Error(opened.error.reason);
    const before = process.memoryUsage().rss;
    let peak = before;
    let packets = 0;
    for (;;) {
      const step = opened.reader.next();
      if (step.kind !== 'packet') {
        expect(step.kind).toBe('end');
        break;
      }
      if (++packets % 10_000 === 0) peak = Math.max(peak, process.memoryUsage().rss);
    }
    expect(packets).toBe(CHUNKS * (GAMESPY_PER_CHUNK + BC_PER_CHUNK));
    expect(opened.reader.maxBufferBytes).toBe(BUFFER_BYTES);
    expect(opened.reader.bufferBytes).toBe(BUFFER_BYTES);
    expect(peak - before).toBeLessThan(32e6);
  });

  it('is scanned and analysed end to end in bounded memory', () => {
    const before = process.memoryUsage().rss;
    let peak = before;
    let n = 0;
    const scanned = scanCapture(path, {
      shouldStop: () => {
        if (++n % 10_000 === 0) peak = Math.max(peak, process.memoryUsage().rss);
        return false;
      },
    });
    if (!scanned.ok) throw new Error(scanned.error.reason);
    expect(scanned.stats.gamespy.responses).toBe(CHUNKS * GAMESPY_PER_CHUNK);
    expect(scanned.stats.bc).toBe(CHUNKS * BC_PER_CHUNK);
    expect(scanned.stats.outOfOrder).toBe(0);
    const result = analyzeCapture(path);
    if (!result.ok) throw new Error(result.error.reason);
    peak = Math.max(peak, process.memoryUsage().rss);
    const c = result.analysis.connections[0];
    // Every chunk repeats the same 25 seqs: one first send each, the rest re-sends.
    expect(c.clientToServer.reliable.high).toEqual({
      messages: BC_PER_CHUNK / 2,
      transmissions: (CHUNKS * BC_PER_CHUNK) / 2,
      retransmissions: ((CHUNKS - 1) * BC_PER_CHUNK) / 2,
    });
    expect(c.serverToClient.acks.sent).toBe((CHUNKS * BC_PER_CHUNK) / 2);
    expect(peak - before).toBeLessThan(64e6);
  }, 120_000); // reading 100 MB twice: generous for a busy machine (speed is the bench's to measure)
});
