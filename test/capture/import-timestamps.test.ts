// Timestamps at the edges of what a capture can hold. bcsim counts time in
// µs held in doubles, exact up to 2^53 − 1 µs (2255-06-05): a packet stamped
// from 1970 to then is shown (to within 3 µs) however its interface writes it
// (if_tsresol down to 10^0 or 2^-127 s, if_tsoffset); any other is refused at
// that packet in one line naming the file, the offset and the timestamp. Every
// classic pcap timestamp (u32 seconds and fraction) is within the range.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scanCapture } from '../../src/analysis/capture/bc-packets.js';
import type { ScanStats } from '../../src/analysis/capture/bc-packets.js';
import { openCapture } from '../../src/core/pcap/index.js';
import { cli } from '../support/cli.js';
import { pcap, udpPackets, bc, ack } from '../support/pcap-build.js';
import { U64_MAX, packetOffsets, pcapngClock } from '../support/pcapng-clock.js';
import type { ClockInterface } from '../support/pcapng-clock.js';

const dir = mkdtempSync(join(tmpdir(), 'bcsim-timestamps-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
function file(bytes: Uint8Array): string {
  const path = join(dir, `t${n++}.pcapng`);
  writeFileSync(path, bytes);
  return path;
}

/** 2^53 − 1: the largest count of µs a double holds exactly. */
const MAX_US = 9_007_199_254_740_991n;
const RANGE = 'outside the range bcsim can show (1970-01-01 to 2255-06-05 UTC, 0 to 2^53 − 1 µs)';

/** The packets' times (µs since 1970) as the reader gives them, and its error. */
function times(bytes: Uint8Array): {
  timesUs: number[];
  error: { code: string; offset: number; reason: string } | null;
} {
  const opened = openCapture(file(bytes));
  if (!opened.ok) throw new Error(opened.error.reason);
  const timesUs: number[] = [];
  for (;;) {
    const step = opened.reader.next();
    if (step.kind === 'packet') timesUs.push(step.packet.timeUs);
    else if (step.kind === 'end') return { timesUs, error: null };
    else if (step.kind === 'error') return { timesUs, error: step.error };
  }
}

function scanned(bytes: Uint8Array): ScanStats {
  const result = scanCapture(file(bytes));
  if (!result.ok) throw new Error(result.error.reason);
  return result.stats;
}

const seconds = (iface: ClockInterface, ...units: bigint[]) => pcapngClock(iface, units);

describe('every classic pcap timestamp is within the range, and shown', () => {
  it('seconds and fraction at their largest (0xFFFFFFFF), µs and ns magic', async () => {
    const frames = udpPackets([{ timeUs: 0, from: 'client', bytes: bc(0x02, [ack(0, 2)]) }]);
    for (const nanosecond of [false, true]) {
      const bytes = pcap(frames, { nanosecond });
      const view = new DataView(bytes.buffer);
      view.setUint32(24, 0xffffffff, true);
      view.setUint32(28, 0xffffffff, true);
      const expected = 4_294_967_295e6 + (nanosecond ? 4_294_967.295 : 4_294_967_295);
      expect(times(bytes)).toEqual({ timesUs: [expected], error: null });
      const path = file(bytes);
      const r = await cli(['decode', path]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(
        nanosecond ? 'time 0 = 2106-02-07T06:28:19.000Z' : 'time 0 = 2106-02-07T07:39:49.000Z',
      );
    }
  });
});

describe('pcapng timestamps', () => {
  it('if_tsresol 10^0: whole seconds are shown; a µs count read as seconds is refused at its packet', () => {
    expect(times(seconds({ tsresol: 0 }, 1_014_854_400n, 1_014_854_401n))).toEqual({
      timesUs: [1_014_854_400e6, 1_014_854_401e6],
      error: null,
    });
    const bytes = seconds({ tsresol: 0 }, 1_014_854_400_000_000n);
    const { timesUs, error } = times(bytes);
    expect(timesUs).toEqual([]);
    expect(error).toEqual({
      code: 'bad-timestamp',
      offset: packetOffsets(bytes)[0] + 12,
      reason: `packet 1's timestamp, 1014854400000000 × 1 s, is 1014854400000000 s after 1970, ${RANGE}`,
    });
  });

  it('a timestamp of 0xFFFFFFFFFFFFFFFF is refused, at the first packet or after the others', () => {
    let bytes = seconds({}, U64_MAX, 1_014_854_400_000_000n);
    expect(times(bytes).error).toEqual({
      code: 'bad-timestamp',
      offset: packetOffsets(bytes)[0] + 12,
      reason: `packet 1's timestamp, 18446744073709551615 × 10^-6 s, is 18446744073709 s after 1970, ${RANGE}`,
    });
    bytes = seconds({}, 1_014_854_400_000_000n, 1_014_854_400_010_000n, U64_MAX);
    const stats = scanned(bytes);
    expect(stats.packets).toBe(2);
    expect(stats.bc).toBe(2);
    expect(stats.error).toMatchObject({ code: 'bad-timestamp', offset: packetOffsets(bytes)[2] + 12 });
  });

  it('2^53 − 1 µs (2255-06-05) is the last time shown, exactly; one µs more is refused', () => {
    expect(times(seconds({}, 0n, MAX_US))).toEqual({ timesUs: [0, 9_007_199_254_740_991], error: null });
    const { timesUs, error } = times(seconds({}, 0n, MAX_US + 1n));
    expect(timesUs).toEqual([0]);
    expect(error?.reason).toBe(
      `packet 2's timestamp, 9007199254740992 × 10^-6 s, is 9007199254 s after 1970, ${RANGE}`,
    );
    // Nanoseconds: 64-bit counts worked out in doubles, to within 3 µs near 2255.
    const [late] = times(seconds({ tsresol: 9 }, (MAX_US - 5n) * 1000n)).timesUs;
    expect(Math.abs(late - 9_007_199_254_740_986)).toBeLessThanOrEqual(3);
    expect(times(seconds({ tsresol: 9 }, (MAX_US + 5n) * 1000n)).error?.code).toBe('bad-timestamp');
  });

  it('if_tsresol 2^-127 and 10^-127: the largest timestamp is an instant after 1970-01-01', () => {
    for (const tsresol of [0xff, 127]) {
      const { timesUs, error } = times(seconds({ tsresol }, 0n, U64_MAX));
      expect(error).toBeNull();
      expect(timesUs[0]).toBe(0);
      expect(timesUs[1]).toBeGreaterThan(0);
      expect(timesUs[1]).toBeLessThan(1e-10);
    }
    // 2^0 s: seconds, as 10^0.
    expect(times(seconds({ tsresol: 0x80 }, 1_014_854_400n)).timesUs).toEqual([1_014_854_400e6]);
  });

  it('if_tsoffset: added exactly, even to a timestamp far out of range; before 1970 is refused', () => {
    // 2^63 + 10^9 seconds, less 2^63: 10^9 s after 1970, to the µs.
    expect(times(seconds({ tsresol: 0, tsoffsetS: -(1n << 63n) }, (1n << 63n) + 1_000_000_000n)).timesUs).toEqual([
      1e15,
    ]);
    expect(times(seconds({ tsoffsetS: 1_000_000_000n }, 5n)).timesUs).toEqual([1e15 + 5]);
    const before = seconds({ tsoffsetS: -1n }, 999_999n);
    expect(times(before).error).toEqual({
      code: 'bad-timestamp',
      offset: packetOffsets(before)[0] + 12,
      reason: `packet 1's timestamp, 999999 × 10^-6 s + if_tsoffset -1 s, is before 1970, ${RANGE}`,
    });
    for (const tsoffsetS of [-(1n << 63n), (1n << 63n) - 1n])
      expect(times(seconds({ tsoffsetS }, 1_014_854_400_000_000n)).error?.code).toBe('bad-timestamp');
  });
});

describe('decode --pcap and analyze on a timestamp out of the range', () => {
  const refused = file(seconds({ tsresol: 0 }, 1_014_854_400_000_000n, 1_014_854_400_000_001n));
  const firstMax = file(seconds({}, U64_MAX, 1_014_854_400_000_000n));
  const lastFar = file(seconds({ tsresol: 0 }, 1_014_854_400n, 1_014_854_401n, 1_014_854_401n + 10n ** 16n));

  it.each([
    ['decode FILE', ['decode']],
    ['decode FILE --json', ['decode', '--json']],
    ['analyze', ['analyze']],
    ['analyze --json', ['analyze', '--json']],
  ])('%s: one line naming the file, the offset and the timestamp, exit 2', async (_name, args) => {
    for (const path of [refused, firstMax, lastFar]) {
      const r = await cli([...args, path]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(
        new RegExp(
          `^bcsim: ${path}: offset \\d+: packet \\d's timestamp, .* is .*, outside the range bcsim can show .*\\n$`,
        ),
      );
    }
  });

  it('a capture whose clock jumps 10^16 s: the packets before it are decoded and analysed', async () => {
    const decoded = await cli(['decode', lastFar]);
    expect(decoded.stdout.split('\n').filter((l) => l.includes(' send '))).toHaveLength(2);
    expect(decoded.stdout).toContain('· time 0 = 2002-02-28T00:00:00.000Z');
    const analysed = await cli(['analyze', '--json', lastFar]);
    const json = JSON.parse(analysed.stdout);
    expect(json.packets.read).toBe(2);
    expect(json.source).toMatchObject({ complete: false, error: { code: 'bad-timestamp' } });
  });
});
