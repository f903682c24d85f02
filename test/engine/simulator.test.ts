import { describe, expect, it } from 'vitest';
import { Simulator, MAX_PENDING_EVENTS } from '../../src/core/engine/simulator.js';
import { micros, parseDuration, formatDuration } from '../../src/core/engine/time.js';

describe('Simulator', () => {
  it('dispatches in time order regardless of scheduling order', () => {
    const sim = new Simulator();
    const seen: string[] = [];
    sim.at(micros(300), () => seen.push('c'));
    sim.at(micros(100), () => seen.push('a'));
    sim.at(micros(200), () => seen.push('b'));
    sim.runUntilIdle();
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(sim.now).toBe(300);
    expect(sim.eventCount).toBe(3);
  });

  it('breaks ties by insertion order, including events scheduled from handlers', () => {
    const sim = new Simulator();
    const seen: number[] = [];
    for (let i = 0; i < 50; i++) sim.at(micros(10), () => seen.push(i));
    sim.at(micros(5), () => {
      sim.at(micros(10), () => seen.push(100));
    });
    sim.runUntilIdle();
    expect(seen).toEqual([...Array.from({ length: 50 }, (_, i) => i), 100]);
  });

  it('keeps heap order under a random interleaving of schedule and cancel', () => {
    const sim = new Simulator();
    let x = 12345;
    const rand = (n: number) => {
      x = (x * 1103515245 + 12345) & 0x7fffffff;
      return x % n;
    };
    const fired: Array<[number, number]> = [];
    const live = new Set<number>();
    const timers: Array<ReturnType<Simulator['at']>> = [];
    for (let i = 0; i < 2000; i++) {
      const at = rand(500);
      const id = i;
      timers.push(sim.at(micros(at), () => fired.push([sim.now, id])));
      live.add(id);
      if (rand(3) === 0) {
        const victim = rand(timers.length);
        if (sim.cancel(timers[victim])) live.delete(victim);
      }
    }
    sim.runUntilIdle();
    expect(fired.length).toBe(live.size);
    for (let i = 1; i < fired.length; i++) {
      const [t0, id0] = fired[i - 1];
      const [t1, id1] = fired[i];
      expect(t0 < t1 || (t0 === t1 && id0 < id1)).toBe(true);
    }
    expect(new Set(fired.map(([, id]) => id))).toEqual(live);
  });

  it('cancels a pending timer and reports whether it was pending', () => {
    const sim = new Simulator();
    const seen: string[] = [];
    const t = sim.at(micros(100), () => seen.push('cancelled'));
    sim.at(micros(50), () => seen.push('kept'));
    expect(sim.cancel(t)).toBe(true);
    expect(sim.cancel(t)).toBe(false);
    sim.runUntilIdle();
    expect(seen).toEqual(['kept']);
    expect(sim.eventCount).toBe(1);
  });

  it('reschedules earlier, later, and after firing', () => {
    const sim = new Simulator();
    const seen: Array<[string, number]> = [];
    const a = sim.at(micros(100), () => seen.push(['a', sim.now]));
    const b = sim.at(micros(200), () => seen.push(['b', sim.now]));
    sim.reschedule(a, micros(300));
    sim.reschedule(b, micros(50));
    sim.runUntilIdle();
    expect(seen).toEqual([
      ['b', 50],
      ['a', 300],
    ]);
    sim.reschedule(b, micros(400));
    sim.runUntilIdle();
    expect(seen.at(-1)).toEqual(['b', 400]);
  });

  it('postponeDue moves every timer due by a time to it, in their order, and leaves later ones', () => {
    const sim = new Simulator();
    const seen: Array<[string, number]> = [];
    sim.at(micros(300), () => seen.push(['c', sim.now]));
    sim.at(micros(100), () => seen.push(['a', sim.now]));
    sim.at(micros(100), () => seen.push(['b', sim.now]));
    sim.at(micros(900), () => seen.push(['later', sim.now]));
    expect(sim.postponeDue(micros(500))).toBe(3);
    sim.at(micros(500), () => seen.push(['new', sim.now]));
    sim.runUntilIdle();
    expect(seen).toEqual([
      ['a', 500],
      ['b', 500],
      ['c', 500],
      ['new', 500],
      ['later', 900],
    ]);
    expect(sim.postponeDue(micros(900))).toBe(0);
  });

  it('a rescheduled timer sorts after timers already at the same time', () => {
    const sim = new Simulator();
    const seen: string[] = [];
    const a = sim.at(micros(10), () => seen.push('a'));
    sim.at(micros(10), () => seen.push('b'));
    sim.reschedule(a, micros(10));
    sim.runUntilIdle();
    expect(seen).toEqual(['b', 'a']);
  });

  it('runUntil stops at the boundary inclusive and advances the clock', () => {
    const sim = new Simulator();
    const seen: number[] = [];
    for (const t of [10, 20, 30]) sim.at(micros(t), () => seen.push(t));
    sim.runUntil(micros(20));
    expect(seen).toEqual([10, 20]);
    expect(sim.now).toBe(20);
    sim.runUntil(micros(25));
    expect(sim.now).toBe(25);
    expect(sim.pendingCount).toBe(1);
  });

  it('refuses non-integer or past times', () => {
    const sim = new Simulator();
    sim.runUntil(micros(100));
    expect(() => sim.at(micros(50), () => {})).toThrow(/before now/);
    expect(() => sim.at(micros(100.5), () => {})).toThrow(/not an integer/);
  });

  it('runUntilIdle bounds a run that never goes idle', () => {
    const sim = new Simulator();
    const loop = () => sim.after(micros(1), loop);
    sim.after(micros(1), loop);
    expect(() => sim.runUntilIdle(1000)).toThrow(/not idle after 1000 events/);
    expect(sim.eventCount).toBe(1000);
    expect(MAX_PENDING_EVENTS).toBeGreaterThan(1000);
  });
});

describe('durations', () => {
  it('parses units and combinations into microseconds', () => {
    expect(parseDuration('30s')).toBe(30_000_000);
    expect(parseDuration('10m')).toBe(600_000_000);
    expect(parseDuration('4h')).toBe(14_400_000_000);
    expect(parseDuration('1h30m')).toBe(5_400_000_000);
    expect(parseDuration('250ms')).toBe(250_000);
    expect(parseDuration('1.5s')).toBe(1_500_000);
    expect(parseDuration('120')).toBe(120_000_000);
  });

  it('takes days, as the README says runs go up to 7 days', () => {
    expect(parseDuration('7d')).toBe(604_800_000_000);
    expect(parseDuration('1d12h')).toBe(129_600_000_000);
    expect(parseDuration('0.5d')).toBe(43_200_000_000);
  });

  it('rejects garbage', () => {
    for (const bad of ['', 'h', '4 hours', '10x', '-5s', 's10']) expect(parseDuration(bad)).toBeNull();
  });

  it('formats compactly', () => {
    expect(formatDuration(14_400_000_000)).toBe('4h');
    expect(formatDuration(5_430_000_000)).toBe('1h30m30s');
    expect(formatDuration(95_000)).toBe('0.095s');
  });
});
