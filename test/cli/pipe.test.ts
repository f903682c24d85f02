// Output into a pipe whose reader goes away (`bcsim trace … | head`): the run stops
// at once, exits 0, prints no stack trace, and never piles its output up in memory.
// The spawned tests run the built CLI (dist/), as `npm test` builds it first.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/program.js';
import type { CliIO } from '../../src/cli/io.js';

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs a command; kills it after `timeoutMs` (a regression must not hang the suite). */
function timed(
  command: string,
  args: string[],
  options: { closeStdout?: boolean; closeStderr?: boolean; timeoutMs?: number } = {},
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    // Closing our end at once: every write of the child meets a reader that has gone.
    if (options.closeStdout) child.stdout.destroy();
    else child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    if (options.closeStderr) child.stderr.destroy();
    else child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/**
 * bcsim's CPU seconds (user + system) as bash's `time` printed them on stderr ("cpu U S"). How
 * far the run went, not how long it waited: a busy machine stretches the wall time, not this.
 */
function cpuSeconds(stderr: string): number {
  const m = /cpu (\d+\.\d+) (\d+\.\d+)/.exec(stderr);
  if (m === null) throw new Error(`no CPU time in: ${stderr}`);
  return Number(m[1]) + Number(m[2]);
}

/** Without stopping on the closed pipe, the whole 2-hour session runs: ~40 s of CPU (and ~2 GB). */
const WHOLE_SESSION_CPU_S = 40;

describe('a closed stdout pipe', () => {
  it('`trace long-session | head -1` exits soon, with exit 0 and one line', async () => {
    // The group reports bcsim's own exit status and CPU time on stderr; the pipeline's status is head's.
    const pipeline = `TIMEFORMAT='cpu %U %S'; { time '${process.execPath}' dist/cli/main.js trace long-session; echo "bcsim exit $?" >&2; } | head -1`;
    const r = await timed('bash', ['-c', pipeline], { timeoutMs: 60_000 });
    expect(r.signal).toBeNull();
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('# long-session · mode stock · seed 1\n');
    expect(r.stderr).toMatch(/^cpu \d+\.\d+ \d+\.\d+\nbcsim exit 0\n$/);
    // Start-up and one chunk: about 0.4 s of CPU, not the whole session's.
    expect(cpuSeconds(r.stderr)).toBeLessThan(WHOLE_SESSION_CPU_S / 4);
  }, 70_000);

  it('bcsim itself exits 0 when its reader has gone before the first line', async () => {
    // bash's stdout is the closed pipe; `time` reports on stderr, which stays open.
    const command = `TIMEFORMAT='cpu %U %S'; time '${process.execPath}' dist/cli/main.js trace long-session`;
    const r = await timed('bash', ['-c', command], { closeStdout: true, timeoutMs: 60_000 });
    expect(r.signal).toBeNull();
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^cpu \d+\.\d+ \d+\.\d+\n$/);
    expect(cpuSeconds(r.stderr)).toBeLessThan(WHOLE_SESSION_CPU_S / 4);
  }, 70_000);

  it('`run` and `compare` into a closed pipe print no stack trace', async () => {
    const out = mkdtempSync(join(tmpdir(), 'bcsim-pipe-'));
    try {
      for (const args of [
        ['run', 'fragment-ack-bug', '--duration', '10s'],
        ['run', 'fragment-ack-bug', '--duration', '10s', '--json'],
        ['compare', 'fragment-ack-bug', '--duration', '10s', '--out-dir', out],
        ['decode', '02 01 01 02 00 01 02'],
        ['--help'],
      ]) {
        const r = await timed(process.execPath, ['dist/cli/main.js', ...args], {
          closeStdout: true,
          timeoutMs: 60_000,
        });
        expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: '' });
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('a closed stderr pipe', () => {
  it('drops what bcsim says there: a run still prints its summary, a bad file still exits 2', async () => {
    // A 1 s run of lobby-idle warns on stderr that its phase plan is cut.
    const warned = await timed(
      process.execPath,
      ['dist/cli/main.js', 'run', 'lobby-idle', '--duration', '1s', '--json'],
      { closeStderr: true },
    );
    expect(warned.signal).toBeNull();
    expect(warned.code).toBe(0);
    expect((JSON.parse(warned.stdout) as { scenario: string }).scenario).toBe('lobby-idle');
    const refused = await timed(
      process.execPath,
      ['dist/cli/main.js', 'run', 'test/scenarios/malformed/loss-high.json'],
      { closeStderr: true },
    );
    expect({ code: refused.code, signal: refused.signal, stdout: refused.stdout }).toEqual({
      code: 2,
      signal: null,
      stdout: '',
    });
  }, 70_000);
});

describe('trace stops its run when stdout says it is closed', () => {
  it('writes one chunk, then stops: it does not run the session to its end', async () => {
    const chunks: string[] = [];
    let stderr = '';
    let polls = 0;
    const io: CliIO = {
      stdout: (text) => {
        chunks.push(text);
      },
      stderr: (text) => {
        stderr += text;
      },
      stdoutIsTTY: false,
      stderrIsTTY: false,
      env: {},
      cwd: process.cwd(),
      stdoutClosed: () => {
        polls++;
        return chunks.length > 0;
      },
    };
    const code = await runCli(['trace', 'long-session'], io);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(chunks).toHaveLength(1);
    expect(chunks[0].startsWith('# long-session · mode stock · seed 1\n')).toBe(true);
    // No closing "# N of M events shown" line: the run never reached its end.
    expect(chunks[0]).not.toMatch(/events shown/);
    // It asked once, after its first chunk, and stopped: no wall-clock bound (module loading is in it).
    expect(polls).toBe(1);
  });
});
