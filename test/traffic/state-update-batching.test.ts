// StateUpdates are drawn at their sender's update tick (every arrival since the
// last tick, with its size), not by one timer each. The rates and sizes must be
// what they were with one timer per StateUpdate: the per-minute counts per ship
// and direction, their dispersion (Poisson: variance ≈ mean), and the size
// histogram are compared with figures measured on the one-timer-per-StateUpdate
// model.
import { describe, expect, it } from 'vitest';
import { TYPE_GAME, decodeDatagram } from '../../src/core/codec/index.js';
import { loadScenario } from '../../src/model/scenario/load.js';
import { runScenario } from '../../src/model/session/run.js';
import { Opcode } from '../../src/model/traffic/payloads.js';

const MINUTE_US = 60_000_000;

interface Figures {
  /** StateUpdates sent in the window, by `${from}${client}` (client 1's server end is 'server1'). */
  counts: Record<string, number>;
  /** Over every ship and direction: variance / mean of the per-minute counts. */
  dispersion: number;
  /** Whole-message bytes -> StateUpdates of that size, every ship and direction. */
  sizes: Record<number, number>;
}

/** StateUpdates first sent in minutes [fromMinute, toMinute) of a run of `name`. */
function measure(name: string, fromMinute: number, toMinute: number): Figures {
  const perMinute = new Map<string, number[]>();
  const sizes: Record<number, number> = {};
  runScenario(loadScenario(name), {
    preset: 'stock',
    durationUs: toMinute * MINUTE_US,
    observer: {
      datagramSent(timeUs, from, bytes, _uids, _notes, client) {
        const minute = Math.floor(timeUs / MINUTE_US);
        if (minute < fromMinute) return;
        const decoded = decodeDatagram(bytes);
        if (!decoded.ok) throw new Error('malformed datagram on the wire');
        for (const m of decoded.datagram.messages) {
          if (m.type !== TYPE_GAME || m.reliable || m.payload[0] !== Opcode.StateUpdate) continue;
          const key = `${from}${client}`;
          let row = perMinute.get(key);
          if (row === undefined) perMinute.set(key, (row = new Array(toMinute - fromMinute).fill(0)));
          row[minute - fromMinute]++;
          sizes[m.size] = (sizes[m.size] ?? 0) + 1;
        }
      },
    },
  });
  const counts: Record<string, number> = {};
  let ratioSum = 0;
  for (const [key, row] of [...perMinute].sort()) {
    const n = row.reduce((a, b) => a + b, 0);
    counts[key] = n;
    const mean = n / row.length;
    ratioSum += row.reduce((a, b) => a + (b - mean) ** 2, 0) / (row.length - 1) / mean;
  }
  return { counts, dispersion: ratioSum / perMinute.size, sizes };
}

/**
 * Measured on the model with one timer per StateUpdate (commit 5fd1300, seed 1, stock), by
 * this file's `measure` with the same arguments, printed with JSON.stringify.
 */
const BEFORE: Record<'server8' | 'longSession', Figures> = {
  server8: {
    counts: {
      client1: 14835,
      client2: 14899,
      client3: 14714,
      client4: 14767,
      client5: 14811,
      client6: 14614,
      client7: 14885,
      client8: 14666,
      server1: 14475,
      server2: 14862,
      server3: 14673,
      server4: 14566,
      server5: 14601,
      server6: 14971,
      server7: 14500,
      server8: 14741,
    },
    dispersion: 0.9385519813546972,
    sizes: {
      15: 21311,
      16: 21468,
      17: 21285,
      18: 21306,
      19: 21626,
      20: 21692,
      21: 21230,
      22: 21525,
      23: 21264,
      24: 21266,
      25: 21607,
    },
  },
  longSession: {
    counts: { client1: 43897, server1: 44054 },
    dispersion: 1.2445861493789527,
    sizes: {
      15: 7876,
      16: 7982,
      17: 7959,
      18: 8011,
      19: 8110,
      20: 7878,
      21: 8091,
      22: 7966,
      23: 8014,
      24: 8003,
      25: 8061,
    },
  },
};

/** Two Poisson counts of one mean differ by more than 4 sigma (sqrt of their sum) about once in 16,000. */
function expectSameRate(now: Record<string | number, number>, before: Record<string | number, number>): void {
  expect(Object.keys(now).sort()).toEqual(Object.keys(before).sort());
  for (const key of Object.keys(before)) {
    const a = now[key];
    const b = before[key];
    expect(Math.abs(a - b), `${key}: ${a} now, ${b} before`).toBeLessThanOrEqual(4 * Math.sqrt(a + b));
  }
}

/** Each scenario's window, its figures before, and the band its minute-to-minute dispersion must stay in. */
const CASES = [
  // 16 series of 15 minutes: still Poisson minute to minute; a periodic draw would give ~0.
  { name: 'server-8', what: '8 ships, 16.33/s each way', before: BEFORE.server8, dispersion: [0.6, 1.4] },
  // Two series of 15 minutes: a wide band, still far from a periodic draw's ~0.
  {
    name: 'long-session',
    what: 'one ship, the measured ~49/s each way',
    before: BEFORE.longSession,
    dispersion: [0.3, 2.5],
  },
] as const;

describe('StateUpdates drawn per update tick keep their rates and sizes', () => {
  for (const c of CASES) {
    it(`${c.name} (${c.what}), minutes 5 to 20`, () => {
      const now = measure(c.name, 5, 20);
      expectSameRate(now.counts, c.before.counts);
      expectSameRate(now.sizes, c.before.sizes);
      expect(now.dispersion).toBeGreaterThan(c.dispersion[0]);
      expect(now.dispersion).toBeLessThan(c.dispersion[1]);
    });
  }
});
