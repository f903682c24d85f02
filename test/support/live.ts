// Live-mode tests: the built CLI (dist/) in child processes, on loopback.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

interface Exited {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Running {
  readonly child: ChildProcess;
  readonly exited: Promise<Exited>;
  /** Resolves once stderr contains `text`. */
  stderrSays(text: string): Promise<void>;
}

/**
 * Starts `bcsim args…`; it is killed after `timeoutMs` (a hung test fails instead of hanging CI).
 * With `asBin`, the bin file itself runs, as a user's `bcsim` does: its first line sets the heap's cap.
 */
export function bcsim(args: readonly string[], timeoutMs = 90_000, asBin = false): Running {
  const child = asBin
    ? spawn(CLI, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    for (const w of waiters.splice(0)) {
      if (stderr.includes(w.text)) w.resolve();
      else waiters.push(w);
    }
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const exited = new Promise<Exited>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      for (const w of waiters.splice(0)) w.resolve();
      resolve({ code, signal, stdout, stderr });
    });
  });
  return {
    child,
    exited,
    stderrSays: (text) =>
      stderr.includes(text) ? Promise.resolve() : new Promise((resolve) => waiters.push({ text, resolve })),
  };
}

/** A UDP port free on loopback right now (bound and released; the race is harmless on a test machine). */
export function freeUdpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createSocket('udp4');
    s.once('error', reject);
    s.bind(0, '127.0.0.1', () => {
      const port = s.address().port;
      s.close(() => resolve(port));
    });
  });
}
