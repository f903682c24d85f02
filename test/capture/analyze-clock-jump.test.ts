// A capture whose clock jumps. Stepping the ACK-outbox samples one simulated
// second at a time up to the last timestamp would make one packet moved 10^15 µs
// later cost hours: the samples of a stretch with no change are laid down in
// bulk (the cost follows the packets), and analyze names each jump of the clock.
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StepSeries, SAMPLE_STEP_US, MAX_SAMPLES } from '../../src/analysis/capture/analyze-tables.js';
import { scanCapture } from '../../src/analysis/capture/bc-packets.js';
import { cli } from '../support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'bcsim-clock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Adds `addUs` to the timestamp of the `which`-th Enhanced Packet Block (1-based) of a little-endian pcapng. */
function shiftPacket(bytes: Buffer, which: number, addUs: bigint): Buffer {
  const b = Buffer.from(bytes);
  let n = 0;
  for (let off = 0; off < b.length; off += b.readUInt32LE(off + 4)) {
    if (b.readUInt32LE(off) !== 6 || ++n !== which) continue;
    const ts = ((BigInt(b.readUInt32LE(off + 12)) << 32n) | BigInt(b.readUInt32LE(off + 16))) + addUs;
    b.writeUInt32LE(Number(ts >> 32n), off + 12);
    b.writeUInt32LE(Number(ts & 0xffffffffn), off + 16);
    return b;
  }
  throw new Error(`no packet block ${which}`);
}

let original: Buffer;
beforeAll(async () => {
  const r = await cli(['run', 'fragment-ack-bug', '--duration', '1s', '--pcap', join(dir, 's.pcapng')]);
  expect(r.code).toBe(0);
  original = readFileSync(join(dir, 's.pcapng'));
});

describe('a stretch of samples with no change', () => {
  it('is laid down in bulk: the work follows the changes, not the time span', () => {
    const series = new StepSeries(1);
    series.add(1, 500_000, 500_000);
    series.advance(2_000_000);
    series.add(1, 1e15, 1e15);
    series.finish(1e15 + 5 * SAMPLE_STEP_US);
    // 10^9 seconds at one sample each: the step doubles until the series fits.
    expect(series.steps).toBeLessThan(50 * MAX_SAMPLES);
    const s = series.series();
    expect(s.values.length).toBeLessThanOrEqual(MAX_SAMPLES);
    expect(s.values.length).toBeGreaterThan(MAX_SAMPLES / 2);
    // Every sample the stride keeps falls before the second change; the peak has it.
    expect(s.values.every((v) => v === 1)).toBe(true);
    expect(series.peak).toBe(2);
  });

  it('gives the same samples as stepping one second at a time', () => {
    const changes: Array<[number, number]> = [
      [0.2, 1],
      [3.5, 1],
      [3.7, -1],
      [25_000, 1],
      [25_000.5, -2],
      [70_000, 3],
    ];
    const bulk = new StepSeries(1);
    const stepped = new StepSeries(1);
    for (const [s, delta] of changes) {
      const us = s * 1_000_000;
      bulk.add(delta, us, us);
      bulk.advance(us);
      // The old walk: every second in turn.
      for (let t = stepped.series().values.length; t * SAMPLE_STEP_US < us; t++) stepped.advance(t * SAMPLE_STEP_US);
      stepped.add(delta, us, us);
      stepped.advance(us);
    }
    bulk.finish(80_000_000_000);
    for (let t = 70_000; t <= 80_000; t++) stepped.advance(t * SAMPLE_STEP_US);
    stepped.finish(80_000_000_000);
    expect(bulk.series()).toEqual(stepped.series());
  });
});

describe('a capture whose clock jumps 10^15 µs at its third packet', () => {
  it('scan names the jump forward and the one back', () => {
    const file = join(dir, 'jump-scan.pcapng');
    writeFileSync(file, shiftPacket(original, 3, 10n ** 15n));
    const scanned = scanCapture(file);
    if (!scanned.ok) throw new Error(scanned.error.reason);
    expect(scanned.stats.timeline.jumps.count).toBe(2);
    expect(scanned.stats.timeline.jumps.listed.map((j) => j.packet)).toEqual([3, 4]);
    expect(scanned.stats.timeline.jumps.listed[0].gapUs).toBeGreaterThan(1e15 - 1e6);
    expect(scanned.stats.timeline.jumps.listed[1].gapUs).toBeLessThan(-(1e15 - 1e6));
  });

  it('analyze finishes, its work bounded by the packets, and says where the clock jumps', async () => {
    const file = join(dir, 'jump.pcapng');
    writeFileSync(file, shiftPacket(original, 3, 10n ** 15n));
    const r = await cli(['analyze', file]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/, clock jumps 2 times \(\+1,000,000,000 s at packet 3; -1,000,000,000 s at packet 4\)\n/);
    const json = await cli(['analyze', file, '--json']);
    expect(JSON.parse(json.stdout).packets.clockJumps).toEqual({
      count: 2,
      listed: [
        { packet: 3, gapS: expect.closeTo(1e9, -1) },
        { packet: 4, gapS: expect.closeTo(-1e9, -1) },
      ],
    });
  });

  it('an ordinary capture names no jump', async () => {
    const r = await cli(['analyze', join(dir, 's.pcapng')]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/clock jumps/);
    expect(JSON.parse((await cli(['analyze', join(dir, 's.pcapng'), '--json'])).stdout).packets.clockJumps).toEqual({
      count: 0,
      listed: [],
    });
  });
});
