// Ctrl-C stops the pool and writes nothing half-done; a terminal gets
// a progress line with runs done, failures so far and an ETA.
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/program.js';
import type { CliIO } from '../../src/cli/io.js';

function io(options: { stderrIsTTY?: boolean; interruptAfterMs?: number } = {}) {
  const out = { stdout: '', stderr: '' };
  const handlers: Array<(signal: string) => void> = [];
  const value: CliIO = {
    stdout: (t) => {
      out.stdout += t;
    },
    stderr: (t) => {
      out.stderr += t;
    },
    stdoutIsTTY: false,
    stderrIsTTY: options.stderrIsTTY ?? false,
    env: {},
    cwd: process.cwd(),
    onInterrupt: (handler) => {
      handlers.push(handler);
      // Ctrl-C a while after the sweep listens for it, however long it took to start on a busy machine.
      if (options.interruptAfterMs !== undefined)
        setTimeout(() => handlers.forEach((h) => h('SIGINT')), options.interruptAfterMs);
      return () => handlers.splice(handlers.indexOf(handler), 1);
    },
  };
  return { io: value, out, handlers };
}

describe('bcsim sweep: interrupted', () => {
  for (const jobs of ['1', '2']) {
    it(`--jobs ${jobs}: SIGINT stops it, exit 130, no --out file and no temporary`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'bcsim-sweep-int-'));
      const { io: cliIO, out, handlers } = io({ interruptAfterMs: 300 });
      const code = await runCli(
        [
          'sweep',
          'lossy-link',
          '--seeds',
          '1..2000',
          '--duration',
          '1m',
          '--jobs',
          jobs,
          '--out',
          join(dir, 'r.jsonl'),
        ],
        cliIO,
      );
      expect(code).toBe(130);
      expect(out.stderr).toMatch(/^bcsim: sweep interrupted after \d+ of 2000 runs; nothing written\n$/);
      expect(existsSync(join(dir, 'r.jsonl'))).toBe(false);
      expect(readdirSync(dir)).toEqual([]);
      expect(handlers).toEqual([]); // the handler is removed again
    });
  }
});

describe('bcsim sweep: progress', () => {
  it('on a terminal: runs done/total, failures so far and an ETA on stderr, cleared at the end', async () => {
    const { io: cliIO, out } = io({ stderrIsTTY: true });
    // An upper bound every run breaks, so each run fails.
    const code = await runCli(
      [
        'sweep',
        'lossy-link',
        '--seeds',
        '1..3',
        '--duration',
        '5s',
        '--jobs',
        '1',
        '--set',
        'expect.stock={"delivery.reliableSent":{"lt":1}}',
      ],
      cliIO,
    );
    expect(code).toBe(1);
    expect(out.stderr).toContain('\r[########################] sweep lossy-link 3/3 runs, 3 failed, ETA 0s');
    expect(out.stderr).toMatch(/sweep lossy-link 1\/3 runs, 1 failed, ETA \d+s/);
    expect(out.stderr).toContain('\r\x1b[2K');
  });

  it('not on a terminal: no progress line', async () => {
    const { io: cliIO, out } = io();
    await runCli(['sweep', 'lossy-link', '--seeds', '1..2', '--duration', '5s', '--jobs', '1'], cliIO);
    expect(out.stderr).not.toContain('\r');
  });
});
