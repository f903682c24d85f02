// The whole process as a user runs it (the bin), from a fresh `node` to the
// output, median of 5 (--repeats). Prints one JSON object.
//   node bench/whole-process.mjs [--repeats 5] [--json]
// - `bcsim run long-session --json` (4 h) per mode: wall, real-time factor, CPU;
// - `bcsim run server-8 --json` (8 players, 1 h) per mode: the same;
// - `bcsim --help` and a 1 s run: CPU seconds (user + sys, GNU time);
// - `npm start`'s job (`compare long-session`, into a scratch folder): wall;
// - `long-session` for 24 h: peak RSS;
// - the simulation against a codec-only loop over the same datagrams (bench/codec-ratio.mjs, one process).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
// The bin as npm links it (package.json "bin"), started the way a user's shell does, without the shebang's flags.
const CLI = here(`../${JSON.parse(readFileSync(here('../package.json'), 'utf8')).bin.bcsim}`);
const args = process.argv.slice(2);
const repeats = Number(args.includes('--repeats') ? args[args.indexOf('--repeats') + 1] : 5);
const scratch = mkdtempSync(join(tmpdir(), 'bcsim-whole-'));
const timeFile = join(scratch, 'time');
if (!existsSync('/usr/bin/time'))
  throw new Error('bench/whole-process.mjs needs GNU time (/usr/bin/time) for CPU and peak RSS');

/** One fresh process: wall (hrtime around the spawn), CPU (user + sys) and peak RSS (ru_maxrss). */
function once(argv) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S %M', '-o', timeFile, process.execPath, ...argv], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const wallSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) throw new Error(`node ${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  const [user, sys, kb] = readFileSync(timeFile, 'utf8').trim().split('\n').pop().split(' ').map(Number);
  return { wallSeconds, cpuSeconds: user + sys, peakRssMB: kb / 1024 };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
function measure(argv, n = repeats) {
  const runs = Array.from({ length: n }, () => once(argv));
  return {
    wallSeconds: median(runs.map((r) => r.wallSeconds)),
    cpuSeconds: median(runs.map((r) => r.cpuSeconds)),
    peakRssMB: Math.max(...runs.map((r) => r.peakRssMB)),
    wallSecondsAll: runs.map((r) => r.wallSeconds),
  };
}

const results = {
  repeats,
  command: 'node dist/cli/main.js … (the bin), median of fresh processes; CPU = user + sys; peak RSS = ru_maxrss',
};
results.longSession4h = {};
for (const mode of ['stock', 'fixed']) {
  const m = measure([CLI, 'run', 'long-session', '--mode', mode, '--json']);
  results.longSession4h[mode] = { ...m, realTimeFactor: 14_400 / m.wallSeconds };
}
results.server8 = {};
for (const mode of ['stock', 'fixed']) {
  const m = measure([CLI, 'run', 'server-8', '--mode', mode, '--json']);
  results.server8[mode] = { ...m, realTimeFactor: 3_600 / m.wallSeconds };
}
results.help = measure([CLI, '--help']);
results.run1s = measure([CLI, 'run', 'lossy-link', '--duration', '1s', '--json']);
results.npmStart = measure([
  '--max-old-space-size=896',
  CLI,
  'compare',
  'long-session',
  '--out-dir',
  join(scratch, 'reports'),
]);
results.longSession24h = measure([CLI, 'run', 'long-session', '--duration', '24h', '--json'], Math.min(repeats, 3));
results.codecRatio = JSON.parse(
  execFileSync(process.execPath, [here('./codec-ratio.mjs'), 'long-session', '4h', 'stock'], { encoding: 'utf8' }),
);
rmSync(scratch, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify(results, null, args.includes('--json') ? 0 : 2)}\n`);
