// `npm run bench`: simulator speed, measured in fresh processes, never in tests.
// Writes bench/results.json and prints a table. Targets (issue 5):
//   long-session 4 h per mode >= 10,000x real time (<= 1.44 s), peak RSS <= 200 MB,
//   wall(8 h) / wall(1 h) <= 9 in both modes; engine >= 5M events/s.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import Table from 'cli-table3';
import { benchEngine } from './engine.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const STRESS = here('./stress.json');
const OVERLOAD = here('./overload.json');
const REPEATS = 3;

function measure(scenario, preset, duration) {
  const runs = [];
  for (let i = 0; i < REPEATS; i++) {
    const out = execFileSync(process.execPath, [here('./one.mjs'), scenario, preset, duration], { encoding: 'utf8' });
    runs.push(JSON.parse(out));
  }
  runs.sort((a, b) => a.wallSeconds - b.wallSeconds);
  const median = runs[Math.floor(REPEATS / 2)];
  return { ...median, maxRssBytes: Math.max(...runs.map((r) => r.maxRssBytes)), wallSecondsAll: runs.map((r) => r.wallSeconds) };
}

const seconds = { '1h': 3600, '4h': 14400, '8h': 28800 };
const results = { node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, repeats: REPEATS, longSession: {}, scaling: {}, engine: null };

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
  results.scaling[preset] = { wall1h: h1.wallSeconds, wall8h: h8.wallSeconds, ratio: h8.wallSeconds / h1.wallSeconds, events1h: h1.events, events8h: h8.events };
}
// A degenerate stock outbox (~65k entries moving between passes) must still cost linear time.
const s10 = measure(STRESS, 'stock', '10m');
const s20 = measure(STRESS, 'stock', '20m');
results.stress = { scenario: 'bench/stress.json', wall10m: s10.wallSeconds, wall20m: s20.wallSeconds, ratio: s20.wallSeconds / s10.wallSeconds };
// Issue 9: 2,500 reliable/s through an outage; the whole process, per mode.
results.overload = {};
for (const preset of ['stock', 'fixed']) {
  const r = measure(OVERLOAD, preset, '75s');
  results.overload[preset] = { wallSeconds: r.wallSeconds, peakRssMB: r.maxRssBytes / 1048576, events: r.events };
}
benchEngine({ events: 1_000_000 }); // warm-up
const engine = benchEngine();
results.engine = { eventsPerSecond: engine.eventsPerSecond, events: engine.events, pendingPopulation: engine.population };

writeFileSync(here('./results.json'), `${JSON.stringify(results, null, 2)}\n`);

const t = new Table({ head: ['measure', 'stock', 'fixed', 'target'] });
const ls = results.longSession;
const f = (x, d = 2) => x.toFixed(d);
t.push(['long-session 4 h: wall s (median of 3)', f(ls.stock.wallSeconds), f(ls.fixed.wallSeconds), '<= 1.44']);
t.push(['real-time factor', Math.round(ls.stock.realTimeFactor).toLocaleString('en-US'), Math.round(ls.fixed.realTimeFactor).toLocaleString('en-US'), '>= 10,000']);
t.push(['events per second', Math.round(ls.stock.eventsPerSecond).toLocaleString('en-US'), Math.round(ls.fixed.eventsPerSecond).toLocaleString('en-US'), '']);
t.push(['peak RSS MB', f(ls.stock.peakRssMB, 1), f(ls.fixed.peakRssMB, 1), '<= 200']);
t.push(['wall 1 h / 8 h (s)', `${f(results.scaling.stock.wall1h)} / ${f(results.scaling.stock.wall8h)}`, `${f(results.scaling.fixed.wall1h)} / ${f(results.scaling.fixed.wall8h)}`, '']);
t.push(['wall(8 h) / wall(1 h)', f(results.scaling.stock.ratio), f(results.scaling.fixed.ratio), '<= 9']);
t.push(['stress (bench/stress.json) wall 20 min / 10 min', { colSpan: 2, content: `${f(results.stress.wall20m)} / ${f(results.stress.wall10m)} = ${f(results.stress.ratio)}` }, '~2 (linear)']);
t.push(['overload (bench/overload.json) 75 s: wall s / peak RSS MB', `${f(results.overload.stock.wallSeconds)} / ${f(results.overload.stock.peakRssMB, 0)}`, `${f(results.overload.fixed.wallSeconds)} / ${f(results.overload.fixed.peakRssMB, 0)}`, '']);
t.push(['engine events/s (hold model)', { colSpan: 2, content: `${(results.engine.eventsPerSecond / 1e6).toFixed(2)} M` }, '>= 5 M']);
console.log(t.toString());
console.log('wrote bench/results.json');
