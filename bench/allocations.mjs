// Heap allocations per simulated datagram, on the hot path: V8's sampling heap
// profiler (inspector HeapProfiler.startSampling, objects that died kept) is on
// from minute 30 of the run to its end, so module loading, the scenario, the
// join and the JIT warm-up are left out. Each sample of an object of s bytes
// stands for 1 / (1 - exp(-s / interval)) objects (V8's own scaling of bytes).
// The datagrams of the window are those of the whole run less a run of the
// first 30 minutes alone (a shorter run is a prefix of the longer one).
//   node bench/allocations.mjs [scenario] [duration] [preset] [--interval 128] [--top 0]  -> one JSON line
import { Session } from 'node:inspector';
import { parseDuration } from '../dist/core/engine/index.js';
import { loadScenario } from '../dist/model/scenario/index.js';
import { runScenario } from '../dist/model/session/index.js';

const argv = process.argv.slice(2);
const flag = (name, fallback) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : fallback);
const positional = argv.filter((a, i) => !a.startsWith('--') && !argv[i - 1]?.startsWith('--'));
const [name = 'long-session', duration = '4h', preset = 'stock'] = positional;
const intervalBytes = flag('--interval', 128);
const top = flag('--top', 0);
const scenario = loadScenario(name);
const durationUs = parseDuration(duration);
const warmUpUs = parseDuration('30m');
if (!(durationUs > warmUpUs)) throw new Error('allocations: the run must be longer than its 30 min warm-up');

const before = runScenario(scenario, { preset, durationUs: warmUpUs }).summary.datagrams;
const inspector = new Session();
inspector.connect();
// The inspector's own session answers synchronously on the main thread.
const post = (method, params) => {
  let result;
  inspector.post(method, params, (error, value) => {
    if (error) throw error;
    result = value;
  });
  return result;
};
post('HeapProfiler.enable');
let profile = null;
const { summary } = runScenario(scenario, {
  preset,
  durationUs,
  onProgress: (t) => {
    if (t === warmUpUs)
      post('HeapProfiler.startSampling', {
        samplingInterval: intervalBytes,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
    if (t === durationUs) profile = post('HeapProfiler.stopSampling').profile;
  },
});
if (profile === null) throw new Error('allocations: the run did not reach its end');
const datagrams = summary.datagrams - before;

const nodes = new Map();
const parents = new Map();
const walk = (node) => {
  nodes.set(node.id, node);
  for (const child of node.children) {
    parents.set(child.id, node);
    walk(child);
  }
};
/** A builtin (slice, subarray) is named with its caller. */
const siteOf = (node) => {
  const frame = node.callFrame;
  const name = `${frame.functionName || '(anonymous)'} ${frame.url.split('/').slice(-2).join('/')}:${frame.lineNumber + 1}`;
  const parent = parents.get(node.id);
  return frame.url === '' && parent !== undefined ? `${name} < ${siteOf(parent)}` : name;
};
walk(profile.head);
let objects = 0;
let bytes = 0;
const bySite = new Map();
for (const sample of profile.samples) {
  const weight = 1 / (1 - Math.exp(-sample.size / intervalBytes));
  objects += weight;
  bytes += weight * sample.size;
  if (top > 0) {
    const site = siteOf(nodes.get(sample.nodeId));
    const entry = bySite.get(site) ?? { objects: 0, bytes: 0 };
    entry.objects += weight / datagrams;
    entry.bytes += (weight * sample.size) / datagrams;
    bySite.set(site, entry);
  }
}
const result = {
  scenario: name,
  duration,
  preset,
  method: 'V8 sampling heap profiler, minute 30 to the end, dead objects kept',
  samplingIntervalBytes: intervalBytes,
  datagrams,
  objectsPerDatagram: objects / datagrams,
  bytesPerDatagram: bytes / datagrams,
};
if (top > 0)
  result.sites = [...bySite]
    .sort((a, b) => b[1].objects - a[1].objects)
    .slice(0, top)
    .map(([site, e]) => ({ site, objectsPerDatagram: e.objects, bytesPerDatagram: e.bytes }));
process.stdout.write(`${JSON.stringify(result, null, top > 0 ? 2 : 0)}\n`);
