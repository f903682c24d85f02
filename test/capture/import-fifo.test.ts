// A named pipe given as a capture: a blocking open for reading waits for a
// writer that never comes. The reader opens without blocking and refuses what
// is not a regular file, as it does /dev/zero, for `analyze f` and `decode --pcap f`.
// Run as a child process: a blocking open would stall the test's own thread.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = join(process.cwd(), 'dist/cli/main.js');
const dir = mkdtempSync(join(tmpdir(), 'bcsim-fifo-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fifo = join(dir, 'f');
const made = spawnSync('mkfifo', [fifo]).status === 0;

describe.runIf(made)('a FIFO named as a capture', () => {
  it.each([
    ['analyze', ['analyze', fifo]],
    ['decode FILE', ['decode', fifo]],
  ])('%s refuses it in one line, exit 2, without waiting for a writer', (_name, args) => {
    const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 15_000, killSignal: 'SIGKILL' });
    expect(r.signal, 'killed by the timeout: the open blocked').toBeNull();
    expect(r.stderr).toMatch(/not a regular file/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.status).toBe(2);
  });
});
