// Runs documented examples (doc-examples.ts) as a user would: through a shell, with
// `bcsim` on the PATH (the built CLI), in a sandbox folder that holds the files the
// examples name. Live examples get bcsim's own counterpart on free ports.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSocket } from 'node:dgram';

import { REFERENCE_SERVER_FLAGS } from './conform-campaign.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = join(ROOT, 'dist/cli/main.js');

/** The lines of an example's stderr that warn (`bcsim: warning: …`): a README example runs as intended, without one. */
export function warningLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => /\bwarning\b/i.test(line));
}

/** Examples whose stderr must hold no warning: those of the README, a user's first commands. */
export const WARNING_FREE_DOCS: readonly string[] = ['README.md'];

export interface Outcome {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
  /** What the test did besides running the command as printed (ports, counterpart, durations). */
  readonly notes: readonly string[];
}

// ---------------------------------------------------------------------------
// Placeholder files: files an example names as the user's own. Each is made once,
// before any example runs, and every example's sandbox gets a copy.
// ---------------------------------------------------------------------------

/** A scheme scenario with a misspelt key: the `bcsim compare my.json` transcript of docs/rtype.md shows its error. */
const SCHEME_WITH_TYPO = { name: 'my', scheme: 'rtype', duration: '1m', workload: { burstz: 2 } };

/**
 * The files examples name as the user's own, and how each is made. Keep it small: an
 * example that needs something else should make it itself (or name a shipped file).
 */
const PLACEHOLDERS: ReadonlyArray<{
  readonly files: readonly string[];
  readonly what: string;
  make(dir: string): void;
}> = [
  {
    files: ['capture.pcap', 'capture.pcapng', 'proxy.pcapng', 'tmp/fa.pcapng', 'tmp/fragment-ack.pcapng'],
    what: "a capture (the user's, or the one an earlier example writes): bcsim run fragment-ack-bug --pcap",
    make: (dir) => {
      bcsimSync(dir, ['run', 'fragment-ack-bug', '--duration', '30s', '--pcap', 'capture.pcapng']);
      for (const copy of ['capture.pcap', 'proxy.pcapng', 'tmp/fa.pcapng', 'tmp/fragment-ack.pcapng'])
        cpSync(join(dir, 'capture.pcapng'), join(dir, copy));
    },
  },
  {
    files: ['capture.hex'],
    what: 'hex of one datagram with a # comment, as `decode --file` reads it',
    make: (dir) => writeFileSync(join(dir, 'capture.hex'), '# an encrypted ACK\n01 D7 31 78 DB 58\n'),
  },
  {
    files: ['rules.json', 'lossy-rules.json'],
    what: 'the rules files of scenarios/examples/ (docs/live.md copies them from node_modules/bcsim/scenarios/examples/ or, in a clone, scenarios/examples/)',
    make: (dir) => {
      for (const file of ['rules.json', 'lossy-rules.json'])
        cpSync(join(ROOT, 'scenarios/examples', file), join(dir, file));
    },
  },
  {
    files: ['my-fix.json', 'test/my-fix.json', 'scenarios/my.json'],
    what: 'copies of scenarios/examples/my-fix.json (docs/compare-and-check.md: "Copy it")',
    make: (dir) => {
      for (const copy of ['my-fix.json', 'test/my-fix.json', 'scenarios/my.json'])
        cpSync(join(ROOT, 'scenarios/examples/my-fix.json'), join(dir, copy));
    },
  },
  {
    files: ['manifest.json'],
    what: "a checksum manifest in a hash tool's form, with made-up hashes (test/scenarios/manifest-hash-tool.json)",
    make: (dir) => cpSync(join(ROOT, 'test/scenarios/manifest-hash-tool.json'), join(dir, 'manifest.json')),
  },
  {
    files: ['my.json'],
    what: 'a scheme scenario with the misspelt key "burstz" that the transcript of docs/rtype.md shows',
    make: (dir) => writeFileSync(join(dir, 'my.json'), `${JSON.stringify(SCHEME_WITH_TYPO)}\n`),
  },
  {
    files: [
      'shard-1.jsonl',
      'shard-2.jsonl',
      'shards/shard-1.jsonl',
      'shards/shard-2.jsonl',
      'results/shard-1.jsonl',
      'results/shard-2.jsonl',
    ],
    what: 'the two shards of one small sweep (bcsim sweep lossy-link --seeds 1..2 --duration 5s --shard i/2)',
    make: (dir) => {
      for (const i of [1, 2]) {
        bcsimSync(
          dir,
          [
            'sweep',
            'lossy-link',
            '--seeds',
            '1..2',
            '--duration',
            '5s',
            '--jobs',
            '1',
            '--shard',
            `${i}/2`,
            '--out',
            `shard-${i}.jsonl`,
          ],
          [0, 1],
        );
        for (const folder of ['shards', 'results'])
          cpSync(join(dir, `shard-${i}.jsonl`), join(dir, folder, `shard-${i}.jsonl`));
      }
    },
  },
  {
    files: ['repro.txt'],
    what: 'the repro line of shrink --help',
    make: (dir) =>
      writeFileSync(
        join(dir, 'repro.txt'),
        'bcsim swarm --seed 9062024 --index 133 --mode fixed --switch plantedBug=no-duplicate-ack\n',
      ),
  },
];

/** The template every sandbox copies: placeholders, tmp/ and results/ (absolute /tmp/… and /results/… paths land there), scenarios/. */
export function makeTemplate(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bcsim-examples-'));
  for (const folder of ['tmp', 'results', 'shards', 'test', 'scenarios', 'bin'])
    mkdirSync(join(dir, folder), { recursive: true });
  // The package's scenario files, as in a clone (scenarios/examples/my-fix.json); a real folder, so
  // an example's scenarios/my.json never lands in the repository.
  for (const entry of readdirSync(join(ROOT, 'scenarios')))
    symlinkSync(join(ROOT, 'scenarios', entry), join(dir, 'scenarios', entry));
  const wrapper = join(dir, 'bin', 'bcsim');
  writeFileSync(wrapper, `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(wrapper, 0o755);
  for (const p of PLACEHOLDERS) p.make(dir);
  return dir;
}

/** `okCodes`: a sweep writes its lines whatever its verdicts (exit 1 is a failed expect block). */
function bcsimSync(cwd: string, args: string[], okCodes: readonly number[] = [0]): void {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8' });
  if (!okCodes.includes(r.status ?? -1))
    throw new Error(`placeholder: bcsim ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
}

/** A fresh copy of the template for one job. */
export function sandbox(template: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'bcsim-example-'));
  cpSync(template, dir, { recursive: true, verbatimSymlinks: true });
  return dir;
}

// ---------------------------------------------------------------------------
// Live examples: peer, proxy and conform talk to a real counterpart.
// ---------------------------------------------------------------------------

/** A live command's role: what it needs on the other end. */
export type LiveRole = 'client' | 'server' | 'proxy';

export function liveRole(command: string): LiveRole | null {
  const words = command.replace(/^npx /, '').split(/\s+/);
  if (words[1] === 'peer') return words[2] === 'server' ? 'server' : 'client';
  if (words[1] === 'proxy') return 'proxy';
  if (words[1] === 'conform' && !words.includes('--list')) return 'client';
  if (words[1] === 'soak' && !words.includes('--help')) return 'client';
  return null;
}

/**
 * Counterparts the text names for an example; every other live client gets a stock
 * `bcsim peer server` (docs/live.md: "Against a stock server"), a live server gets a
 * `bcsim peer client`.
 */
export const NAMED_COUNTERPARTS: ReadonlyArray<{
  readonly example: RegExp;
  readonly server: readonly string[];
  readonly why: string;
}> = [
  {
    example: /--cases retransmit,ack-category,keepalive-echo,disconnect$/,
    server: ['--mode', 'fixed', '--clients', '16', '--switch', 'plantedBug=ack-ignores-category'],
    why: 'docs/conform.md: "Against `bcsim peer server … --switch plantedBug=ack-ignores-category` (a server with a planted bug)"',
  },
];

/**
 * Live runs are wall time: each is capped so the whole test stays short (a join, some play and the
 * verdict fit in it). An example ending in `&` is not capped: it runs until the rest of its block
 * is done, then gets SIGINT, as a user would stop it.
 */
export const LIVE_SECONDS = { peer: 20, proxy: 25, server: 25 } as const;
/** How long the test's own counterpart server may live (it is stopped when its job is done). */
const COUNTERPART_SECONDS = 180;
/** conform against the test's own server: its peer timeout is short, so the removal case is too. */
const CONFORM_FLAGS = ['--peer-timeout', '5s'];
/**
 * The server a conform example gets unless the text names another: docs/conform.md's
 * reference server ("Against bcsim's own server"), fixed, on which every case passes.
 */
export const CONFORM_COUNTERPART: readonly string[] = ['--mode', 'fixed', '--clients', '16', ...REFERENCE_SERVER_FLAGS];
const COUNTERPART_PEER_TIMEOUT_MS = 5000;
const SERVER_PEER_TIMEOUT = ['--set', `transport.peerTimeoutMs=${COUNTERPART_PEER_TIMEOUT_MS}`];

/**
 * The command as the test runs it: `npx bcsim` is the `bcsim` on the PATH, absolute
 * /tmp/… and /results/… paths are inside the sandbox, documented ports are free ports,
 * and live durations are capped.
 */
export function rewrite(
  command: string,
  dir: string,
  ports: ReadonlyMap<string, number>,
  notes: string[],
  context: { background: boolean; ourServer: boolean; conformJob?: boolean },
): string {
  let out = command.replace(/(^|[;&|]\s*)npx bcsim\b/g, '$1bcsim');
  out = out.replace(
    /(^|[\s='"])\/(tmp|results)\//g,
    (_m, before: string, folder: string) => `${before}${dir}/${folder}/`,
  );
  out = out.replace(/127\.0\.0\.1:(\d+)/g, (m, port: string) => {
    const free = ports.get(port);
    return free === undefined ? m : `127.0.0.1:${free}`;
  });
  const shortened = SHORTENED.find((s) => s.example.test(command.replace(/^npx /, '')));
  if (shortened !== undefined) {
    notes.push(`--duration ${shortened.duration}: ${shortened.why}`);
    out = out.replace(/--duration \S+/, `--duration ${shortened.duration}`);
  }
  const role = liveRole(command);
  if (context.conformJob && /\bbcsim peer server\b/.test(out) && !out.includes('peerTimeoutMs')) {
    // A documented server for a documented conform: its stock 45 s peer timeout would hold the removal
    // case a minute; conform is told the same shorter timeout below.
    notes.push(`the server gets ${SERVER_PEER_TIMEOUT.join(' ')}, as the test's own servers do`);
    out = `${out} ${SERVER_PEER_TIMEOUT.join(' ')}`;
  }
  if (role !== null && !context.background) {
    const cap =
      role === 'proxy' ? LIVE_SECONDS.proxy : command.includes('peer server') ? LIVE_SECONDS.server : LIVE_SECONDS.peer;
    out = out.replace(/--duration (\d+)(s|m|h)\b/, (m, n: string, unit: string) => {
      const seconds = Number(n) * (unit === 'h' ? 3600 : unit === 'm' ? 60 : 1);
      if (seconds <= cap) return m;
      notes.push(`--duration ${n}${unit} capped at ${cap}s of wall time`);
      return `--duration ${cap}s`;
    });
    if ((context.ourServer || context.conformJob) && /\bbcsim conform\b/.test(out) && !out.includes('--peer-timeout')) {
      notes.push(
        `conform gets ${CONFORM_FLAGS.join(' ')}: the test's server times peers out after ${COUNTERPART_PEER_TIMEOUT_MS / 1000} s`,
      );
      out = `${out} ${CONFORM_FLAGS.join(' ')}`;
    }
  }
  return out;
}

export interface Running {
  readonly done: Promise<Outcome>;
  stop(signal?: NodeJS.Signals): void;
  /** Resolves once stderr contains the text (or the process ended). */
  says(text: string): Promise<void>;
}

/** One shell command in the sandbox; killed after timeoutMs. */
export function runShell(command: string, dir: string, timeoutMs: number, notes: readonly string[] = []): Running {
  const started = performance.now();
  // pipefail: `bcsim … | head` exits with bcsim's code.
  const child = spawn('bash', ['-o', 'pipefail', '-c', command], {
    cwd: dir,
    env: { ...process.env, PATH: `${join(dir, 'bin')}:${process.env.PATH ?? ''}`, FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  child.stdout?.on('data', (chunk: Buffer) => {
    if (stdout.length < 1_000_000) stdout += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    if (stderr.length < 1_000_000) stderr += chunk.toString('utf8');
    for (const w of waiters.splice(0)) (stderr.includes(w.text) ? w.resolve : () => waiters.push(w))();
  });
  // The whole process group: the shell and every bcsim it started.
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  const timer = setTimeout(() => signalGroup('SIGKILL'), timeoutMs);
  const done = new Promise<Outcome>((resolveDone) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      for (const w of waiters.splice(0)) w.resolve();
      resolveDone({ code, signal, stdout, stderr, ms: performance.now() - started, notes });
    });
  });
  return {
    done,
    stop: (signal = 'SIGINT') => signalGroup(signal),
    says: (text) =>
      stderr.includes(text) ? Promise.resolve() : new Promise((r) => waiters.push({ text, resolve: r })),
  };
}

/** The test's own counterpart server, on a free port. */
export function counterpartServer(
  dir: string,
  port: number,
  extra: readonly string[] = ['--mode', 'stock', '--clients', '16'],
): Running {
  const args = [
    '--listen',
    `127.0.0.1:${port}`,
    '--duration',
    `${COUNTERPART_SECONDS}s`,
    ...SERVER_PEER_TIMEOUT,
    ...extra,
  ];
  return runShell(`bcsim peer server ${args.join(' ')}`, dir, (COUNTERPART_SECONDS + 30) * 1000);
}

/** The test's own counterpart client for a documented server. */
export function counterpartClient(dir: string, port: number): Running {
  return runShell(
    `bcsim peer client --connect 127.0.0.1:${port} --mode fixed --duration ${LIVE_SECONDS.peer}s`,
    dir,
    (LIVE_SECONDS.peer + 30) * 1000,
  );
}

/** Free ports for the documented ones a job uses (22101, 22102, …), one each, none used twice in a test run. */
export async function portsFor(commands: readonly string[]): Promise<Map<string, number>> {
  const ports = new Map<string, number>();
  for (const c of commands)
    for (const m of c.matchAll(/127\.0\.0\.1:(\d+)/g)) if (!ports.has(m[1])) ports.set(m[1], await freePort());
  return ports;
}

/**
 * Below the kernel's ephemeral range (32768 and up on Linux), so a client's own socket never takes
 * a port the test chose between choosing and binding it; the integrator's ports are left alone.
 */
const PORT_RANGE = { from: 20_000, to: 32_000 } as const;
const RESERVED_PORTS = new Set([22101, 22111, 22131, 22191]);
const handedOut = new Set<number>();

async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = PORT_RANGE.from + Math.floor(Math.random() * (PORT_RANGE.to - PORT_RANGE.from));
    if (RESERVED_PORTS.has(port) || handedOut.has(port) || !(await bindable(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error('no free UDP port on loopback');
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolveBind) => {
    const socket = createSocket('udp4');
    socket.once('error', () => resolveBind(false));
    socket.bind(port, '127.0.0.1', () => socket.close(() => resolveBind(true)));
  });
}

/**
 * Simulated examples that describe a long job (a benchmark's grid): the test runs them with a
 * shorter --duration, which keeps the command and its flags; the figures are the benchmark's.
 */
const SHORTENED: ReadonlyArray<{ readonly example: RegExp; readonly duration: string; readonly why: string }> = [
  {
    example: /^bcsim sweep lossy-link --seeds 1\.\.200 --duration 10m$/,
    duration: '30s',
    why: "the grid of bench/sweep-speedup.mjs; 200 ten-minute runs are the benchmark's job",
  },
];
