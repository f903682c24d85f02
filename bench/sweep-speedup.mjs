// `bcsim sweep` speed-up from 1 to 2 worker threads on 200
// runs of 10 simulated minutes (lossy-link), the whole process each time (start-up,
// checks, the pool, writing the file), and runs per minute. Target: >= 1.7x on 2 cores.
//   node bench/sweep-speedup.mjs [--json] [--repeats 3] [--runs 200] [--scenario lossy-link] [--duration 10m] [--idle-wait 120]
// Needs the build (npm run build). Runs alternate 1, 2, 1, 2, … so a burst of other
// load hurts both; before each, it waits (up to --idle-wait s) for both cores to be
// >= 90 % idle, and reports what it saw. The median of the repeats is reported.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const json = args.includes('--json');
const repeats = Number(flag('--repeats', '3'));
const runs = Number(flag('--runs', '200'));
const scenario = flag('--scenario', 'lossy-link');
const duration = flag('--duration', '10m');
const idleWait = Number(flag('--idle-wait', '120'));
const scratch = mkdtempSync(join(tmpdir(), 'bcsim-sweep-bench-'));
const GNU_TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;

/** Share of CPU time idle over the next second, all cores (/proc/stat); null where there is none. */
function idleShare() {
  const read = () => {
    if (!existsSync('/proc/stat')) return null;
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return { idle: f[3] + f[4], total: f.reduce((a, b) => a + b, 0) };
  };
  const a = read();
  if (a === null) return null;
  spawnSync('sleep', ['1']);
  const b = read();
  return (b.idle - a.idle) / Math.max(1, b.total - a.total);
}

/** The machine may be shared: wait (up to --idle-wait seconds) until both cores are >= 90 % idle. */
function waitForIdle() {
  const deadline = Date.now() + idleWait * 1000;
  let idle = idleShare();
  while (idle !== null && idle < 0.9 && Date.now() < deadline) idle = idleShare();
  return idle;
}

/** The sweep every measurement runs: `jobs` workers, results to `out`, then any `extra` flags. */
function sweepArgv(jobs, out, extra = []) {
  return [
    CLI,
    'sweep',
    scenario,
    '--seeds',
    `1..${runs}`,
    '--duration',
    duration,
    '--jobs',
    String(jobs),
    '--out',
    out,
    ...extra,
  ];
}

function once(jobs) {
  const out = join(scratch, `jobs${jobs}.jsonl`);
  const argv = sweepArgv(jobs, out);
  const idleBefore = waitForIdle();
  const load = loadavg()[0];
  const cpuFile = join(scratch, 'cpu');
  const [cmd, cmdArgs] = GNU_TIME
    ? [GNU_TIME, ['-f', '%U %S', '-o', cpuFile, process.execPath, ...argv]]
    : [process.execPath, argv];
  const start = process.hrtime.bigint();
  const r = spawnSync(cmd, cmdArgs, { encoding: 'utf8', env: { ...process.env, CI: '1' } });
  const wallSeconds = Number(process.hrtime.bigint() - start) / 1e9;
  const cpuSeconds = GNU_TIME
    ? readFileSync(cpuFile, 'utf8')
        .trim()
        .split('\n')
        .pop()
        .split(' ')
        .map(Number)
        .reduce((a, b) => a + b, 0)
    : null;
  // Exit 1 only means some run failed its expect block: the sweep itself completed.
  if (r.status !== 0 && r.status !== 1) throw new Error(`bcsim sweep --jobs ${jobs} exited ${r.status}: ${r.stderr}`);
  return { wallSeconds, cpuSeconds, idleBefore, loadBefore: load, bytes: readFileSync(out) };
}

/**
 * The machine's own ceiling for this work: the grid's two halves as two separate
 * `--jobs 1` processes at once (no pool, no shared heap). The pool cannot beat it.
 */
async function ceilingOnce() {
  waitForIdle();
  const half = (i) =>
    new Promise((resolve, reject) => {
      const argv = sweepArgv(1, join(scratch, `half${i}.jsonl`), ['--shard', `${i}/2`]);
      const child = spawn(process.execPath, argv, { stdio: 'ignore', env: { ...process.env, CI: '1' } });
      child.on('exit', (code) =>
        code === 0 || code === 1 ? resolve() : reject(new Error(`half ${i} exited ${code}`)),
      );
    });
  const start = process.hrtime.bigint();
  await Promise.all([half(1), half(2)]);
  return Number(process.hrtime.bigint() - start) / 1e9;
}

const walls = { 1: [], 2: [] };
const ceilings = [];
const cpus = { 1: [], 2: [] };
const idles = [];
const loads = [];
let identical = true;
for (let i = 0; i < repeats; i++) {
  const a = once(1);
  const b = once(2);
  walls[1].push(a.wallSeconds);
  walls[2].push(b.wallSeconds);
  loads.push(a.loadBefore, b.loadBefore);
  cpus[1].push(a.cpuSeconds);
  cpus[2].push(b.cpuSeconds);
  idles.push(a.idleBefore, b.idleBefore);
  identical &&= a.bytes.equals(b.bytes);
  ceilings.push(await ceilingOnce());
}
rmSync(scratch, { recursive: true, force: true });

const median = (xs) => [...xs].sort((p, q) => p - q)[Math.floor(xs.length / 2)];
const r3 = (x) => Math.round(x * 1000) / 1000;
const w1 = median(walls[1]);
const w2 = median(walls[2]);
const result = {
  command: `bcsim sweep ${scenario} --seeds 1..${runs} --duration ${duration} --jobs 1|2 --out FILE`,
  cores: availableParallelism(),
  runs,
  repeats,
  wallSeconds: { jobs1: r3(w1), jobs2: r3(w2), jobs1All: walls[1].map(r3), jobs2All: walls[2].map(r3) },
  speedup: r3(w1 / w2),
  // jobs-1 wall over the wall of two independent half-sweeps run at once: what 2 cores give this work at best.
  twoProcessSpeedup: r3(w1 / median(ceilings)),
  twoProcessWallSeconds: ceilings.map(r3),
  runsPerMinute: { jobs1: Math.round((runs / w1) * 60), jobs2: Math.round((runs / w2) * 60) },
  // CPU seconds of the whole process (user + sys, every thread): what the pool costs beyond the runs.
  cpuSeconds: GNU_TIME ? { jobs1: r3(median(cpus[1])), jobs2: r3(median(cpus[2])) } : null,
  idleShareBefore: idles[0] === null ? null : { min: r3(Math.min(...idles)), max: r3(Math.max(...idles)) },
  outputsIdentical: identical,
  loadAverageBefore: { min: r3(Math.min(...loads)), max: r3(Math.max(...loads)) },
  target: 1.7,
  met: w1 / w2 >= 1.7,
};
if (json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
else {
  process.stdout.write(
    `${result.command}\n` +
      `jobs 1: ${w1.toFixed(2)} s (${result.runsPerMinute.jobs1} runs/min)   jobs 2: ${w2.toFixed(2)} s (${result.runsPerMinute.jobs2} runs/min)\n` +
      `speed-up ${result.speedup}x (target >= 1.7x: ${result.met ? 'met' : 'NOT met'}); two separate half-sweep processes at once: ${result.twoProcessSpeedup}x; files identical: ${identical}; ` +
      `1-min load average before each run ${result.loadAverageBefore.min}..${result.loadAverageBefore.max} on ${result.cores} cores` +
      (result.idleShareBefore
        ? `, CPU idle in the second before ${Math.round(result.idleShareBefore.min * 100)}..${Math.round(result.idleShareBefore.max * 100)} %`
        : '') +
      (result.cpuSeconds ? `; CPU s jobs 1 ${result.cpuSeconds.jobs1}, jobs 2 ${result.cpuSeconds.jobs2}` : '') +
      '\n',
  );
}
