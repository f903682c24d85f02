// `npm run bench`: simulator speed, measured in fresh processes, never in tests.
// Writes bench/results.json and prints a table. Targets:
//   long-session 4 h per mode >= 10,000x real time (<= 1.44 s), peak RSS <= 200 MB,
//   wall(8 h) / wall(1 h) <= 9 in both modes; engine >= 5M events/s.
// server-8 for 1 h per mode, the whole `bcsim run` process, >= 10,000x real
//   time (<= 0.36 s); wall(8 clients) / wall(1 client) <= 9 at the same per-connection traffic.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Table from 'cli-table3';
import { benchEngine } from './engine.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const STRESS = here('./stress.json');
const OVERLOAD = here('./overload.json');
const CLIENTS_1 = here('./clients-1.json');
const CLIENTS_8 = here('./clients-8.json');
// The bin as npm links it (package.json "bin").
const CLI = here(`../${JSON.parse(readFileSync(here('../package.json'), 'utf8')).bin.bcsim}`);
const REPEATS = 3;

function measure(scenario, preset, duration) {
  const runs = [];
  for (let i = 0; i < REPEATS; i++) {
    const out = execFileSync(process.execPath, [here('./one.mjs'), scenario, preset, duration], { encoding: 'utf8' });
    runs.push(JSON.parse(out));
  }
  runs.sort((a, b) => a.wallSeconds - b.wallSeconds);
  const median = runs[Math.floor(REPEATS / 2)];
  return {
    ...median,
    maxRssBytes: Math.max(...runs.map((r) => r.maxRssBytes)),
    wallSecondsAll: runs.map((r) => r.wallSeconds),
  };
}

// Whole-process measurement: `node dist/cli/main.js <args>` (the bin) in a fresh process,
// wall time taken by this parent around the spawn (process start, module loading, the run,
// printing and exit), peak RSS as the kernel reports it for the child (ru_maxrss from wait4,
// read with GNU time's %M). Without GNU time, an exit hook loaded with --import reads the
// child's own process.resourceUsage().maxRSS (the same counter, read just before exit).
const scratch = mkdtempSync(join(tmpdir(), 'bcsim-bench-'));
const rssFile = join(scratch, 'maxrss');
const gnuTime = (() => {
  const r = spawnSync('/usr/bin/time', ['-f', '%M', '-o', rssFile, process.execPath, '-e', '0']);
  return r.status === 0 && /^\d+\s*$/.test(readFileSync(rssFile, 'utf8').trim().split('\n').pop());
})();
const RSS_HOOK = `data:text/javascript,import{writeFileSync}from"node:fs";process.on("exit",()=>writeFileSync(${JSON.stringify(rssFile)},String(process.resourceUsage().maxRSS)))`;
const rssMethod = gnuTime
  ? 'peak RSS: kernel ru_maxrss of the child via /usr/bin/time -f %M; wall: parent hrtime around the spawn'
  : "peak RSS: the child's process.resourceUsage().maxRSS read by an --import exit hook; wall: parent hrtime around the spawn";

function wholeProcessOnce(args) {
  rmSync(rssFile, { force: true });
  const [cmd, argv] = gnuTime
    ? ['/usr/bin/time', ['-f', '%M', '-o', rssFile, process.execPath, CLI, ...args]]
    : [process.execPath, ['--import', RSS_HOOK, CLI, ...args]];
  const start = process.hrtime.bigint();
  const r = spawnSync(cmd, argv, { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'pipe'] });
  const wallSeconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (r.status !== 0) throw new Error(`bcsim ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const kb = Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop());
  return { wallSeconds, maxRssBytes: kb * 1024, stdout: r.stdout };
}

/** Median-of-REPEATS wall and the largest peak RSS of `node dist/cli/main.js <args>`. */
function measureWhole(args) {
  const runs = [];
  for (let i = 0; i < REPEATS; i++) runs.push(wholeProcessOnce(args));
  const sorted = [...runs].sort((a, b) => a.wallSeconds - b.wallSeconds);
  const median = sorted[Math.floor(REPEATS / 2)];
  const summary = median.stdout.startsWith('{') ? JSON.parse(median.stdout) : null;
  return {
    wallSeconds: median.wallSeconds,
    maxRssBytes: Math.max(...runs.map((r) => r.maxRssBytes)),
    wallSecondsAll: runs.map((r) => r.wallSeconds),
    peakRssMBAll: runs.map((r) => r.maxRssBytes / 1048576),
    events: summary?.events ?? null,
    traceHash: summary?.traceHash ?? null,
  };
}

const seconds = { '1h': 3600, '4h': 14400, '8h': 28800 };
const results = {
  node: process.version,
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
  repeats: REPEATS,
  longSession: {},
  scaling: {},
  engine: null,
};

for (const preset of ['stock', 'fixed']) {
  const r = measure('long-session', preset, '4h');
  results.longSession[preset] = {
    wallSeconds: r.wallSeconds,
    realTimeFactor: seconds['4h'] / r.wallSeconds,
    eventsPerSecond: r.events / r.wallSeconds,
    events: r.events,
    peakRssMB: r.maxRssBytes / 1048576,
    wallSecondsAll: r.wallSecondsAll,
  };
  const h1 = measure('long-session', preset, '1h');
  const h8 = measure('long-session', preset, '8h');
  results.scaling[preset] = {
    wall1h: h1.wallSeconds,
    wall8h: h8.wallSeconds,
    ratio: h8.wallSeconds / h1.wallSeconds,
    events1h: h1.events,
    events8h: h8.events,
  };
}
// A degenerate stock outbox (~65k entries moving between passes) must still cost linear time.
const s10 = measure(STRESS, 'stock', '10m');
const s20 = measure(STRESS, 'stock', '20m');
results.stress = {
  scenario: 'bench/stress.json',
  wall10m: s10.wallSeconds,
  wall20m: s20.wallSeconds,
  ratio: s20.wallSeconds / s10.wallSeconds,
};
// 2,500 reliable/s through an outage; the whole process, per mode.
results.overload = {};
for (const preset of ['stock', 'fixed']) {
  const r = measure(OVERLOAD, preset, '75s');
  results.overload[preset] = { wallSeconds: r.wallSeconds, peakRssMB: r.maxRssBytes / 1048576, events: r.events };
}
// The built-in server-8 (8 players, 1 h), the whole `bcsim run` process per mode.
results.server8 = { method: rssMethod };
for (const preset of ['stock', 'fixed']) {
  const r = measureWhole(['run', 'server-8', '--mode', preset, '--json']);
  results.server8[preset] = { ...r, realTimeFactor: 3600 / r.wallSeconds, peakRssMB: r.maxRssBytes / 1048576 };
  delete results.server8[preset].maxRssBytes;
}
// The fixed cost of any bcsim command: start Node, load the CLI's modules, list the scenarios.
const startup = measureWhole(['scenarios']);
results.cliStartup = {
  command: 'node dist/cli/main.js scenarios',
  wallSeconds: startup.wallSeconds,
  peakRssMB: startup.maxRssBytes / 1048576,
  wallSecondsAll: startup.wallSecondsAll,
};
// Linearity in clients: bench/clients-1.json and bench/clients-8.json carry the same traffic
// per connection (30 min of combat at the server-8 calibration). Three ratios: the whole
// process (start-up is a constant that flatters it), the whole process less the start-up
// above (results.json only: it divides by a small difference of two noisy figures), and the
// run alone (bench/one.mjs: hrtime around runScenario, after module loading; the fair one).
results.clients = { scenarios: ['bench/clients-1.json', 'bench/clients-8.json'], duration: '30m' };
for (const preset of ['stock', 'fixed']) {
  const w1 = measureWhole(['run', CLIENTS_1, '--mode', preset, '--json']);
  const w8 = measureWhole(['run', CLIENTS_8, '--mode', preset, '--json']);
  const r1 = measure(CLIENTS_1, preset, '30m');
  const r8 = measure(CLIENTS_8, preset, '30m');
  if (r1.traceHash !== w1.traceHash || r8.traceHash !== w8.traceHash)
    throw new Error('bench/one.mjs and bcsim run simulated different sessions');
  const less = (w) => w.wallSeconds - startup.wallSeconds;
  results.clients[preset] = {
    wholeProcess: {
      wall1: w1.wallSeconds,
      wall8: w8.wallSeconds,
      ratio: w8.wallSeconds / w1.wallSeconds,
      peakRssMB1: w1.maxRssBytes / 1048576,
      peakRssMB8: w8.maxRssBytes / 1048576,
    },
    lessStartup: { wall1: less(w1), wall8: less(w8), ratio: less(w8) / less(w1) },
    runOnly: {
      wall1: r1.wallSeconds,
      wall8: r8.wallSeconds,
      ratio: r8.wallSeconds / r1.wallSeconds,
      wall1All: r1.wallSecondsAll,
      wall8All: r8.wallSecondsAll,
    },
    events1: r1.events,
    events8: r8.events,
    datagrams1: r1.datagrams,
    datagrams8: r8.datagrams,
  };
}
// Writing a pcapng adds at most 30 % to a run (whole process, pairs run in turn);
// analyze reads at least 200,000 datagrams/s (the analysis alone, bench/analyze.mjs).
const pcapFile = join(scratch, 'long-session.pcapng');
const plain = [];
const withPcap = [];
// Five pairs, not three: writing 61 MB makes this pair the noisiest measurement here.
const PCAP_PAIRS = 5;
for (let i = 0; i < PCAP_PAIRS; i++) {
  plain.push(wholeProcessOnce(['run', 'long-session', '--mode', 'stock']).wallSeconds);
  withPcap.push(wholeProcessOnce(['run', 'long-session', '--mode', 'stock', '--pcap', pcapFile]).wallSeconds);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
results.pcap = {
  wallWithout: median(plain),
  wallWith: median(withPcap),
  overhead: median(withPcap) / median(plain) - 1,
  wallWithoutAll: plain,
  wallWithAll: withPcap,
};
const analyses = [];
for (let i = 0; i < REPEATS; i++)
  analyses.push(JSON.parse(execFileSync(process.execPath, [here('./analyze.mjs'), pcapFile], { encoding: 'utf8' })));
analyses.sort((a, b) => a.wallSeconds - b.wallSeconds);
const analysis = analyses[Math.floor(REPEATS / 2)];
const analyzeWhole = measureWhole(['analyze', pcapFile, '--json']);
results.analyze = {
  datagrams: analysis.datagrams,
  wallSeconds: analysis.wallSeconds,
  datagramsPerSecond: analysis.datagrams / analysis.wallSeconds,
  wholeProcessWallSeconds: analyzeWhole.wallSeconds,
  wholeProcessPeakRssMB: analyzeWhole.maxRssBytes / 1048576,
};
rmSync(scratch, { recursive: true, force: true });

benchEngine({ events: 1_000_000 }); // warm-up
const engine = benchEngine();
results.engine = {
  eventsPerSecond: engine.eventsPerSecond,
  events: engine.events,
  pendingPopulation: engine.population,
};

// Live mode: the proxy's added latency and CPU at 1,000 datagrams/s, and the real-time peer's timer accuracy.
results.live = {
  proxy: JSON.parse(
    execFileSync(process.execPath, [here('./proxy-latency.mjs'), '--seconds', '10', '--json'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  ),
  peer: JSON.parse(
    execFileSync(process.execPath, [here('./peer-timers.mjs'), '--seconds', '20', '--json'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  ),
};

// Sweeps and shrinking: 1 -> 2 workers on 200 runs of 10 simulated minutes, and the shrink example.
results.sweep = JSON.parse(
  execFileSync(process.execPath, [here('./sweep-speedup.mjs'), '--json', '--repeats', '3', '--idle-wait', '30'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }),
);
{
  const shrinkOut = join(tmpdir(), `bcsim-bench-shrink-${process.pid}.json`);
  const t0 = process.hrtime.bigint();
  const text = execFileSync(
    process.execPath,
    [
      CLI,
      'shrink',
      "bcsim swarm --seed 9062024 --index 133 --mode fixed --switch 'plantedBug=no-duplicate-ack'",
      '--out',
      shrinkOut,
    ],
    { encoding: 'utf8' },
  );
  const wallSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
  for (const ext of ['', '.trace', '.pcapng'])
    rmSync(shrinkOut.replace(/\.json$/, '') + (ext === '' ? '.json' : ext), { force: true });
  results.shrink = {
    command: 'bcsim shrink "bcsim swarm --seed 9062024 --index 133 --mode fixed --switch plantedBug=no-duplicate-ack"',
    wallSeconds,
    report: text
      .trim()
      .split('\n')
      .filter((l) => /^(faults|runs|duration):/.test(l)),
  };
}

// The whole process from a fresh node to the output (median of 5), and the simulation against a codec-only loop.
// Heap allocations per simulated datagram on the hot path (bench/allocations.mjs: V8's sampling heap profiler).
results.allocations = JSON.parse(
  execFileSync(process.execPath, [here('./allocations.mjs'), 'long-session', '4h', 'stock'], { encoding: 'utf8' }),
);
results.wholeProcess = JSON.parse(
  execFileSync(process.execPath, [here('./whole-process.mjs'), '--json', '--repeats', '5'], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  }),
);

writeFileSync(here('./results.json'), `${JSON.stringify(results, null, 2)}\n`);

const t = new Table({ head: ['measure', 'stock', 'fixed', 'target'] });
const ls = results.longSession;
const f = (x, d = 2) => x.toFixed(d);
t.push(['long-session 4 h: wall s (median of 3)', f(ls.stock.wallSeconds), f(ls.fixed.wallSeconds), '<= 1.44']);
t.push([
  'real-time factor',
  Math.round(ls.stock.realTimeFactor).toLocaleString('en-US'),
  Math.round(ls.fixed.realTimeFactor).toLocaleString('en-US'),
  '>= 10,000',
]);
t.push([
  'events per second',
  Math.round(ls.stock.eventsPerSecond).toLocaleString('en-US'),
  Math.round(ls.fixed.eventsPerSecond).toLocaleString('en-US'),
  '',
]);
t.push(['peak RSS MB', f(ls.stock.peakRssMB, 1), f(ls.fixed.peakRssMB, 1), '<= 200']);
t.push([
  'wall 1 h / 8 h (s)',
  `${f(results.scaling.stock.wall1h)} / ${f(results.scaling.stock.wall8h)}`,
  `${f(results.scaling.fixed.wall1h)} / ${f(results.scaling.fixed.wall8h)}`,
  '',
]);
t.push(['wall(8 h) / wall(1 h)', f(results.scaling.stock.ratio), f(results.scaling.fixed.ratio), '<= 9']);
t.push([
  'stress (bench/stress.json) wall 20 min / 10 min',
  { colSpan: 2, content: `${f(results.stress.wall20m)} / ${f(results.stress.wall10m)} = ${f(results.stress.ratio)}` },
  '~2 (linear)',
]);
t.push([
  'overload (bench/overload.json) 75 s: wall s / peak RSS MB',
  `${f(results.overload.stock.wallSeconds)} / ${f(results.overload.stock.peakRssMB, 0)}`,
  `${f(results.overload.fixed.wallSeconds)} / ${f(results.overload.fixed.peakRssMB, 0)}`,
  '',
]);
const s8 = results.server8;
const cl = results.clients;
t.push([
  'server-8 1 h, whole process: wall s (median of 3)',
  f(s8.stock.wallSeconds),
  f(s8.fixed.wallSeconds),
  '<= 0.36',
]);
t.push([
  'server-8 real-time factor',
  Math.round(s8.stock.realTimeFactor).toLocaleString('en-US'),
  Math.round(s8.fixed.realTimeFactor).toLocaleString('en-US'),
  '>= 10,000',
]);
t.push(['server-8 peak RSS MB (whole process)', f(s8.stock.peakRssMB, 1), f(s8.fixed.peakRssMB, 1), '']);
t.push([
  'CLI start-up (bcsim scenarios): wall s / peak RSS MB',
  { colSpan: 2, content: `${f(results.cliStartup.wallSeconds)} / ${f(results.cliStartup.peakRssMB, 1)}` },
  '',
]);
t.push([
  'clients 30 min, whole process: wall 1 / 8 clients (s)',
  `${f(cl.stock.wholeProcess.wall1)} / ${f(cl.stock.wholeProcess.wall8)}`,
  `${f(cl.fixed.wholeProcess.wall1)} / ${f(cl.fixed.wholeProcess.wall8)}`,
  '',
]);
t.push([
  'wall(8 clients) / wall(1 client), whole process',
  f(cl.stock.wholeProcess.ratio),
  f(cl.fixed.wholeProcess.ratio),
  '<= 9',
]);
t.push([
  '  run only (bench/one.mjs), wall 1 / 8 clients = ratio',
  `${f(cl.stock.runOnly.wall1)} / ${f(cl.stock.runOnly.wall8)} = ${f(cl.stock.runOnly.ratio)}`,
  `${f(cl.fixed.runOnly.wall1)} / ${f(cl.fixed.runOnly.wall8)} = ${f(cl.fixed.runOnly.ratio)}`,
  '<= 9',
]);
t.push([
  'long-session 4 h with --pcap: wall s without / with = overhead',
  {
    colSpan: 2,
    content: `${f(results.pcap.wallWithout)} / ${f(results.pcap.wallWith)} = +${f(100 * results.pcap.overhead, 0)} % (stock)`,
  },
  '<= +30 %',
]);
t.push([
  'analyze the 4 h capture: datagrams/s (analysis alone)',
  {
    colSpan: 2,
    content: `${Math.round(results.analyze.datagramsPerSecond).toLocaleString('en-US')} (${results.analyze.datagrams.toLocaleString('en-US')} in ${f(results.analyze.wallSeconds)} s; whole process ${f(results.analyze.wholeProcessWallSeconds)} s, ${f(results.analyze.wholeProcessPeakRssMB, 0)} MB)`,
  },
  '>= 200,000',
]);
t.push([
  'engine events/s (hold model)',
  { colSpan: 2, content: `${(results.engine.eventsPerSecond / 1e6).toFixed(2)} M` },
  '>= 5 M',
]);
const lp = results.live.proxy;
const lt = results.live.peer.client.sendLatenessUs;
t.push([
  'live proxy at 1,000 datagrams/s: added p50 / p99 (µs), CPU',
  { colSpan: 2, content: `${lp.addedUs.p50} / ${lp.addedUs.p99}, ${f(lp.proxyCpu.percentOfOneCore, 1)} % of one core` },
  '',
]);
t.push([
  'live peer: send lateness p50 / p99 (µs)',
  { colSpan: 2, content: `${lt.p50} / ${lt.p99} (client, ${lt.count} sends)` },
  '',
]);
const sw = results.sweep;
t.push([
  'sweep 200 runs x 10 min: 1 -> 2 workers speed-up, runs/min',
  {
    colSpan: 2,
    content: `${f(sw.speedup)}x (two processes ${f(sw.twoProcessSpeedup)}x), ${sw.runsPerMinute.jobs1} -> ${sw.runsPerMinute.jobs2}`,
  },
  '>= 1.7x',
]);
t.push([
  'shrink example (swarm 133, planted bug)',
  { colSpan: 2, content: `${results.shrink.report.join('; ').slice(0, 50)} (${f(results.shrink.wallSeconds)} s)` },
  '',
]);
const wp = results.wholeProcess;
t.push([
  'long-session 4 h, whole process (median of 5): wall s / real-time factor',
  `${f(wp.longSession4h.stock.wallSeconds)} / ${Math.round(wp.longSession4h.stock.realTimeFactor).toLocaleString('en-US')}`,
  `${f(wp.longSession4h.fixed.wallSeconds)} / ${Math.round(wp.longSession4h.fixed.realTimeFactor).toLocaleString('en-US')}`,
  '>= 20,000x',
]);
t.push([
  'CPU s: bcsim --help / a 1 s run',
  { colSpan: 2, content: `${f(wp.help.cpuSeconds, 3)} / ${f(wp.run1s.cpuSeconds, 3)}` },
  '<= 0.15',
]);
t.push(['npm start (compare long-session 4 h), wall s', { colSpan: 2, content: f(wp.npmStart.wallSeconds) }, '<= 2']);
t.push([
  'simulation / codec-only loop, same datagrams (one process)',
  {
    colSpan: 2,
    content: `${f(wp.codecRatio.simSeconds)} s / ${f(wp.codecRatio.codecSeconds)} s = ${f(wp.codecRatio.ratio)}`,
  },
  '<= 2.5',
]);
t.push([
  'server-8 1 h, whole process (median of 5): wall s / real-time factor',
  `${f(wp.server8.stock.wallSeconds)} / ${Math.round(wp.server8.stock.realTimeFactor).toLocaleString('en-US')}`,
  `${f(wp.server8.fixed.wallSeconds)} / ${Math.round(wp.server8.fixed.realTimeFactor).toLocaleString('en-US')}`,
  '',
]);
const al = results.allocations;
t.push([
  'heap allocations per datagram (long-session 4 h from minute 30): objects / bytes',
  {
    colSpan: 2,
    content: `${f(al.objectsPerDatagram)} / ${f(al.bytesPerDatagram, 0)} (stock, ${al.datagrams.toLocaleString('en-US')} datagrams)`,
  },
  '<= 2 objects',
]);
t.push(['long-session 24 h, peak RSS MB', { colSpan: 2, content: f(wp.longSession24h.peakRssMB, 0) }, '<= 150']);
// The suite takes minutes: timed only on request (npm run bench -- --suite), as a contributor runs it.
if (process.argv.includes('--suite')) {
  const start = process.hrtime.bigint();
  const r = spawnSync('npm', ['test'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const wallSeconds = Number(process.hrtime.bigint() - start) / 1e9;
  const tally = /(\d+) passed, (\d+) failed/.exec(r.stdout ?? '')?.[0] ?? `exit ${r.status}`;
  t.push([
    'npm test (build, checks and every test), wall s',
    { colSpan: 2, content: `${f(wallSeconds, 0)} (${tally})` },
    '<= 420',
  ]);
}
console.log(t.toString());
console.log(`whole process: ${rssMethod}`);
console.log('wrote bench/results.json');
