// Numeric flags take plain decimal numbers only: Number()
// would read "0x1" as 1, so `--loss 0x1` used to run with 100% loss.
import { describe, expect, it } from 'vitest';
import { progressFor } from '../../src/cli/progress.js';
import type { CliIO } from '../../src/cli/io.js';
import { cli } from '../support/cli.js';

describe('--loss', () => {
  it.each(['0x1', '1e0', '0b1', '0o1', 'Infinity', '-0', '+0.5', ' 0.5', '0.5 ', '', '.', '1.5', '0,5', '½'])(
    'refuses %j in one line, exit 2',
    async (value) => {
      const r = await cli(['run', 'lossy-link', '--loss', value, '--duration', '1s']);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`bcsim: --loss: expected a decimal number between 0 and 1, got ${JSON.stringify(value)}\n`);
      expect(r.code).toBe(2);
    },
  );

  it.each([
    ['0', 0],
    ['1', 1],
    ['0.25', 0.25],
    ['.5', 0.5],
    ['1.', 1],
    ['00.5', 0.5],
  ])('takes %j', async (value, p) => {
    const r = await cli(['run', 'lossy-link', '--loss', value, '--duration', '2s', '--json']);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    if (p === 1) expect(s.links.clientToServer.delivered).toBe(0);
    if (p === 0) expect(s.links.clientToServer.droppedBy.loss).toBe(0);
  });

  it('reproduce fragment-ack checks it the same way', async () => {
    const r = await cli(['reproduce', 'fragment-ack', '--loss', '0x1']);
    expect(r.stderr).toBe('bcsim: --loss: expected a decimal number between 0 and 1, got "0x1"\n');
    expect(r.code).toBe(2);
  });
});

describe('the other numeric flags', () => {
  it.each([
    [['run', 'lossy-link', '--seed', '0x10'], '--seed: expected a whole number 0..4294967295, got "0x10"'],
    [['run', 'lossy-link', '--seed', '1e3'], '--seed: expected a whole number 0..4294967295, got "1e3"'],
    [
      ['run', 'lossy-link', '--duration', '0x10'],
      '--duration: expected a duration of simulated time, like 30s, 10m or 4h, got "0x10"',
    ],
    [
      ['run', 'lossy-link', '--duration', '1e3'],
      '--duration: expected a duration of simulated time, like 30s, 10m or 4h, got "1e3"',
    ],
    [
      ['compare', 'lossy-link', '--duration', 'Infinity'],
      '--duration: expected a duration of simulated time, like 30s, 10m or 4h, got "Infinity"',
    ],
    [
      ['trace', 'lossy-link', '--until', '0x10'],
      '--until: expected a duration of simulated time, like 30s, 10m or 4h, got "0x10"',
    ],
    [
      ['trace', 'lossy-link', '--from', '-1'],
      '--from: expected a duration of simulated time, like 30s, 10m or 4h, got "-1"',
    ],
  ])('%j is refused in one line', async (args, message) => {
    const r = await cli(args);
    expect(r.stderr).toBe(`bcsim: ${message}\n`);
    expect(r.code).toBe(2);
  });
});

describe('progress line', () => {
  function tty(): CliIO & { err: string[] } {
    const err: string[] = [];
    return {
      stdout: () => {},
      stderr: (t) => err.push(t),
      stdoutIsTTY: true,
      stderrIsTTY: true,
      env: {},
      cwd: '.',
      err,
    };
  }

  it('says when a run is slower than real time', () => {
    const term = tty();
    const p = progressFor(term, false, 0);
    // The first update of a run measures at least 1 ms of wall time: 100 us simulated is 0.1x.
    p?.update('slow', 100, 60_000_000);
    expect(term.err.at(-1)).toMatch(/ 0\.\d\dx real time \(slower than real time\) {2}ETA /);
  });

  it('does not say so when it is faster', () => {
    const term = tty();
    progressFor(term, false, 0)?.update('fast', 3_600_000_000, 14_400_000_000);
    expect(term.err.at(-1)).not.toContain('slower');
  });
});
