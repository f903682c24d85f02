// A capture whose clock jumps. Stepping the ACK-outbox samples one simulated
// second at a time up to the last timestamp would make one packet moved 10^15 µs
// later cost hours: the samples of a stretch with no change are laid down in
// bulk (the cost follows the packets), and analyze names each jump of the clock.
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
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

/**
 * The export with its interface in whole seconds (if_tsresol 10^0): every timestamp divided by 10^6,
 * and the last packet `laterS` seconds later still.
 */
function inSeconds(bytes: Buffer, laterS: bigint): Buffer {
  const b = Buffer.from(bytes);
  let last = -1;
  for (let off = 0; off < b.length; off += b.readUInt32LE(off + 4)) {
    const type = b.readUInt32LE(off);
    if (type === 1) {
      // The options after the 8 fixed bytes: if_tsresol (code 9) set to 0.
      for (let p = off + 16; b.readUInt16LE(p) !== 0; p += 4 + ((b.readUInt16LE(p + 2) + 3) & ~3))
        if (b.readUInt16LE(p) === 9) b[p + 4] = 0;
    }
    if (type !== 6) continue;
    last = off;
    const us = (BigInt(b.readUInt32LE(off + 12)) << 32n) | BigInt(b.readUInt32LE(off + 16));
    b.writeUInt32LE(0, off + 12);
    b.writeUInt32LE(Number(us / 1_000_000n), off + 16);
  }
  const s = BigInt(b.readUInt32LE(last + 16)) + laterS;
  b.writeUInt32LE(Number(s >> 32n), last + 12);
  b.writeUInt32LE(Number(s & 0xffffffffn), last + 16);
  return b;
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
    // 10^9 seconds at one sample each: the step doubles until they fit, then the series is filled once.
    expect(series.steps).toBeLessThanOrEqual(MAX_SAMPLES + 10);
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

describe('laid down in bulk or stepped, the samples agree', () => {
  it('for any changes and gaps (seeded)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 30_000_000 }), fc.integer({ min: -2, max: 3 })), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.integer({ min: 1, max: 5 }),
        (changes, startIndex) => {
          const bulk = new StepSeries(startIndex);
          const stepped = new StepSeries(startIndex);
          let us = startIndex * SAMPLE_STEP_US;
          let t = 0;
          for (const [gapMs, delta] of changes) {
            us += gapMs * 1000;
            bulk.add(delta, us, us);
            bulk.advance(us);
            for (; t * SAMPLE_STEP_US < us; t++) stepped.advance(t * SAMPLE_STEP_US);
            stepped.add(delta, us, us);
            stepped.advance(us);
          }
          bulk.finish(us + 3 * SAMPLE_STEP_US);
          for (; t * SAMPLE_STEP_US < us + 3 * SAMPLE_STEP_US; t++) stepped.advance(t * SAMPLE_STEP_US);
          stepped.finish(us + 3 * SAMPLE_STEP_US);
          expect(bulk.series()).toEqual(stepped.series());
        },
      ),
      { numRuns: 25, seed: 53 },
    );
  });
});

describe('the widest span a capture can have', () => {
  // The reader keeps every time within 0..2^53 − 1 µs (import-timestamps.test.ts).
  const WIDEST_US = Number.MAX_SAFE_INTEGER;

  it('is jumped in one stretch: at most one series of samples laid down, whatever the gap', () => {
    const series = new StepSeries(1);
    series.add(1, 500_000, 500_000);
    series.advance(2_000_000);
    const before = series.steps;
    series.add(1, WIDEST_US - 3 * SAMPLE_STEP_US, WIDEST_US - 3 * SAMPLE_STEP_US);
    series.finish(WIDEST_US);
    // 9·10^9 samples at one a second: the stride is chosen first, then the series filled once.
    expect(series.steps - before).toBeLessThanOrEqual(MAX_SAMPLES + 10);
    expect(series.series().values.length).toBeLessThanOrEqual(MAX_SAMPLES);
    expect(series.series().values.length).toBeGreaterThan(MAX_SAMPLES / 2);
    expect(series.peak).toBe(2);
  });

  it('a sample past 2^53 µs is refused, not stepped to', () => {
    const series = new StepSeries(1);
    series.add(1, 500_000, 500_000);
    expect(() => series.finish(1e22)).toThrow(/^StepSeries: time 1e\+22 µs is past 2\^53 µs$/);
  });

  it.each([
    ['10^16 s', 10n ** 16n],
    ['8·10^15 s', 8n * 10n ** 15n],
  ])(
    'a capture in whole seconds whose last packet is %s later: analyze ends, refusing it in one line',
    async (_name, laterS) => {
      const file = join(dir, `seconds-${laterS}.pcapng`);
      writeFileSync(file, inSeconds(original, laterS));
      const r = await cli(['analyze', file]);
      expect(r.code).toBe(2);
      expect(r.stdout).toMatch(/^packets: 25 packets, 25 BC datagrams/m);
      expect(r.stderr).toMatch(
        new RegExp(
          `^bcsim: ${file}: offset \\d+: packet \\d+'s timestamp, \\d+ × 1 s, is \\d+ s after 1970, outside the range bcsim can show .*\\(the analysis covers the file up to there\\)\\n$`,
        ),
      );
    },
  );
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
