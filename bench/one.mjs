// One measured run in a fresh process: prints {wallSeconds, events, maxRssBytes}.
// Usage: node bench/one.mjs <scenario> <preset> <duration>
import { loadScenario } from '../dist/model/scenario/load.js';
import { runScenario } from '../dist/model/session/run.js';
import { parseDuration } from '../dist/core/engine/time.js';

const [name, preset, duration] = process.argv.slice(2);
const scenario = loadScenario(name);
const durationUs = parseDuration(duration);
const start = process.hrtime.bigint();
const { summary } = runScenario(scenario, { preset, durationUs });
const wallSeconds = Number(process.hrtime.bigint() - start) / 1e9;
process.stdout.write(
  JSON.stringify({
    wallSeconds,
    events: summary.events,
    datagrams: summary.datagrams,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    traceHash: summary.traceHash,
  }),
);
