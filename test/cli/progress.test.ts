import { describe, expect, it } from 'vitest';
import { progressFor } from '../../src/cli/progress.js';
import type { CliIO } from '../../src/cli/io.js';

function io(overrides: Partial<CliIO> = {}): CliIO & { err: string[] } {
  const err: string[] = [];
  return { stdout: () => {}, stderr: (t) => err.push(t), stdoutIsTTY: true, stderrIsTTY: true, env: {}, cwd: '.', err, ...overrides };
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
