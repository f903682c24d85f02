import { describe, expect, it } from 'vitest';
import { progressFor } from '../../src/cli/progress.js';
import type { CliIO } from '../../src/cli/io.js';

function io(overrides: Partial<CliIO> = {}): CliIO & { err: string[] } {
  const err: string[] = [];
  return {
    stdout: () => {},
    stderr: (t) => err.push(t),
    stdoutIsTTY: true,
    stderrIsTTY: true,
    env: {},
    cwd: '.',
    err,
    ...overrides,
  };
}

describe('progress bar', () => {
  it('on a TTY shows simulated time, speed against wall time and ETA, then clears', () => {
    const term = io();
    const p = progressFor(term, false, 0);
    expect(p).not.toBeNull();
    p?.update('stock', 3_600_000_000, 14_400_000_000);
    expect(term.err.at(-1)).toMatch(/^\r\[######\.+\] stock 1h \/ 4h {2}[\d,]+x real time {2}ETA \d+\.\ds/);
    p?.done();
    expect(term.err.at(-1)).toBe('\r\x1b[2K');
  });

  it('stays silent for --json, under CI, and when stderr is not a TTY', () => {
    expect(progressFor(io(), true, 0)).toBeNull();
    expect(progressFor(io({ env: { CI: 'true' } }), false, 0)).toBeNull();
    expect(progressFor(io({ stderrIsTTY: false }), false, 0)).toBeNull();
  });

  it('waits about a second before showing anything', () => {
    const term = io();
    progressFor(term, false)?.update('stock', 1, 2);
    expect(term.err).toEqual([]);
  });
});

describe('progress of runs side by side', () => {
  /** A wall clock the test moves. */
  function clock() {
    let ms = 0;
    return { now: () => ms, at: (s: number) => (ms = s * 1000) };
  }
  const HOUR_US = 3_600_000_000;

  it('compare on worker threads: each column keeps its own start, and the line shows both with true speeds', () => {
    const term = io();
    const wall = clock();
    const p = progressFor(term, false, 0, wall.now);
    // Two columns of 4 h each, started together, reporting in turn (the labels alternate).
    for (let s = 1; s <= 20; s++) {
      wall.at(s);
      p?.update('stock', (s * HOUR_US) / 10, 4 * HOUR_US);
      p?.update('fixed', (s * HOUR_US) / 10, 4 * HOUR_US);
    }
    // After 20 s of wall time each column has simulated 2 h: 360x real time, 20 s to go.
    expect(term.err.at(-1)).toMatch(/^\r\[#{12}\.{12}\] stock 2h \/ 4h 360x · fixed 2h \/ 4h 360x {2}ETA 20\.0s/);
  });

  it('a run that finished leaves the line, and the next one starts when it ended', () => {
    const term = io();
    const wall = clock();
    const p = progressFor(term, false, 0, wall.now);
    wall.at(10);
    p?.update('stock', HOUR_US, HOUR_US);
    wall.at(15);
    p?.update('fixed', HOUR_US / 2, HOUR_US);
    // fixed started at 10 s: 30 min in 5 s is 360x.
    expect(term.err.at(-1)).toMatch(/^\r\[#{12}\.{12}\] fixed 30m \/ 1h {2}360x real time {2}ETA 5\.0s/);
  });
});
