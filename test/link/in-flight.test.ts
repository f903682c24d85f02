// The link's in-flight records (src/model/link/in-flight.ts): reused after they land,
// never handed out twice at once, the spare list bounded.
import { describe, expect, it } from 'vitest';
import { micros } from '../../src/core/engine/index.js';
import { FlightPool, MAX_SPARE_FLIGHTS } from '../../src/model/link/in-flight.js';
import type { Flight } from '../../src/model/link/in-flight.js';

describe('FlightPool', () => {
  it('lands a flight with the values it was taken with, then reuses its record', () => {
    const landed: Array<[Uint8Array, readonly number[], number, number, boolean]> = [];
    const pool = new FlightPool((f) => {
      landed.push([f.bytes, f.uids, f.index, f.sentAtUs, f.duplicate]);
      pool.give(f);
    });
    const a = new Uint8Array([1, 2]);
    const first = pool.take(a, [7, 8], 3, micros(5_000_000_000), false);
    first.land();
    expect(landed).toEqual([[a, [7, 8], 3, 5_000_000_000, false]]);
    const second = pool.take(new Uint8Array([9]), [1], 4, micros(6), true);
    expect(second).toBe(first);
    expect(pool.reused).toBe(1);
    second.land();
    expect(landed[1]).toEqual([new Uint8Array([9]), [1], 4, 6, true]);
  });

  it('refuses a record given back twice, and drops its references when given back', () => {
    const pool = new FlightPool(() => {});
    const f = pool.take(new Uint8Array([1]), [1], 0, micros(0), false);
    pool.give(f);
    expect(f.uids).toEqual([]);
    expect(f.bytes.length).toBe(0);
    expect(() => pool.give(f)).toThrow('given back twice');
  });

  it('keeps at most MAX_SPARE_FLIGHTS spares, however many were in flight', () => {
    const pool = new FlightPool(() => {});
    const flying: Flight[] = [];
    for (let i = 0; i < MAX_SPARE_FLIGHTS + 10; i++)
      flying.push(pool.take(new Uint8Array([i & 255]), [], i, micros(i), false));
    for (const f of flying) pool.give(f);
    expect(pool.size).toBe(MAX_SPARE_FLIGHTS);
    // Every record out at once is a distinct one.
    expect(new Set(flying).size).toBe(MAX_SPARE_FLIGHTS + 10);
  });
});
