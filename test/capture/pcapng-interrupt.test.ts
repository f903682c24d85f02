// Ctrl-C during `run … --pcap` (and `trace … --pcap`): the hidden temporary the capture streams into
// (up to hundreds of MB) is removed at once, stderr says so, and the exit code
// is 130. A run killed outright (SIGKILL) still leaves it for the next capture
// into that folder to sweep (pcapng-export.test.ts).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { TEMP_PREFIX } from '../../src/core/output/atomic-write.js';
import { cli } from '../support/cli.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dir = mkdtempSync(join(tmpdir(), 'bcsim-interrupt-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function interruptedRun(
  name: string,
  signal: NodeJS.Signals,
  extra: string[] = [],
  command = 'run',
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; temporary: string }> {
  const sub = join(dir, name);
  mkdirSync(sub);
  const file = join(sub, 'long.pcapng');
  const child = spawn(
    process.execPath,
    [join(ROOT, 'dist/cli/main.js'), command, 'long-session', '--pcap', file, ...extra],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((done) =>
    child.once('close', (code, sig) => done([code, sig])),
  );
  const temporary = join(sub, `${TEMP_PREFIX}${child.pid}-long.pcapng`);
  // Wait until the capture is being written (its temporary has grown past 1 MiB), then interrupt.
  for (let i = 0; i < 1200 && !(existsSync(temporary) && statSync(temporary).size > 1 << 20); i++)
    await new Promise((r) => setTimeout(r, 50));
  expect(statSync(temporary).size).toBeGreaterThan(1 << 20);
  child.kill(signal);
  const [code, sig] = await exited;
  return { code, signal: sig, stderr, temporary };
}

describe('an interrupted run … --pcap', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s removes the temporary, says so on stderr and exits 130',
    async (signal) => {
      const r = await interruptedRun(signal.toLowerCase(), signal);
      expect(r.signal).toBeNull();
      expect(r.code).toBe(130);
      expect(r.stderr).toBe(
        `bcsim: interrupted (${signal}); removed the unfinished capture ${r.temporary}; ${join(dirname(r.temporary), 'long.pcapng')} was not written\n`,
      );
      expect(readdirSync(dirname(r.temporary))).toEqual([]);
    },
    90_000,
  );

  it('with --check-determinism too', async () => {
    const r = await interruptedRun('twice', 'SIGINT', ['--check-determinism']);
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/^bcsim: interrupted \(SIGINT\); removed the unfinished capture /);
    expect(readdirSync(dirname(r.temporary))).toEqual([]);
  }, 90_000);

  it('trace … --pcap as well', async () => {
    const r = await interruptedRun('trace', 'SIGINT', [], 'trace');
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(
      /^bcsim: interrupted \(SIGINT\); removed the unfinished capture .*\.bcsim-tmp-\d+-long\.pcapng; .*long\.pcapng was not written\n$/,
    );
    expect(readdirSync(dirname(r.temporary))).toEqual([]);
  }, 90_000);

  it('a run that yields to take a signal is the same run: the same summary and the same capture, byte for byte', async () => {
    const args = ['run', 'fragment-ack-bug', '--duration', '3m', '--json'];
    const yielding = spawnSync(
      process.execPath,
      [join(ROOT, 'dist/cli/main.js'), ...args, '--pcap', join(dir, 'yielding.pcapng')],
      { encoding: 'utf8' },
    );
    expect(yielding.status).toBe(0);
    const plain = await cli([...args, '--pcap', join(dir, 'plain.pcapng')]);
    expect(plain.code).toBe(0);
    expect(yielding.stdout).toBe(plain.stdout);
    expect(readFileSync(join(dir, 'yielding.pcapng')).equals(readFileSync(join(dir, 'plain.pcapng')))).toBe(true);
  });
});
