// The simulation's cost against a codec-only loop over the same
// datagrams, in one process. The codec loop decodes each datagram of the run
// (decodeDatagram) and encodes its messages again (writeDatagram, as the
// sender does), nothing else. Both are timed warm, median of 3.
//   node bench/codec-ratio.mjs [scenario] [duration] [preset]   -> one JSON line
import { decodeDatagram, messageSize, writeDatagram } from '../dist/core/codec/index.js';
import { parseDuration } from '../dist/core/engine/index.js';
import { loadScenario } from '../dist/model/scenario/index.js';
import { runScenario } from '../dist/model/session/index.js';

const [name = 'long-session', duration = '4h', preset = 'stock'] = process.argv.slice(2);
const scenario = loadScenario(name);
const durationUs = parseDuration(duration);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const time = (fn) => {
  const t0 = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t0) / 1e9;
};

// The run's datagrams, as sent, packed into one buffer (a million small objects
// kept alive would make every collection in both loops slower).
const chunks = [];
let totalBytes = 0;
const first = runScenario(scenario, {
  preset,
  durationUs,
  observer: {
    datagramSent: (_t, _from, bytes) => {
      chunks.push(bytes.slice());
      totalBytes += bytes.length;
    },
  },
});
const wire = new Uint8Array(totalBytes);
const ends = new Int32Array(chunks.length);
let at = 0;
chunks.forEach((bytes, i) => {
  wire.set(bytes, at);
  at += bytes.length;
  ends[i] = at;
});
chunks.length = 0;

const simSeconds = [];
for (let i = 0; i < 3; i++) {
  let hash;
  simSeconds.push(time(() => (hash = runScenario(scenario, { preset, durationUs }).summary.traceHash)));
  if (hash !== first.summary.traceHash) throw new Error('runs of the same scenario differ');
}

// Per datagram: decode it (decodeDatagram), then encode its messages again (writeDatagram).
const slab = new Uint8Array(1 << 16);
let messages = 0;
const codecLoop = () => {
  let start = 0;
  let offset = 0;
  for (let i = 0; i < ends.length; i++) {
    const decoded = decodeDatagram(wire.subarray(start, ends[i]));
    if (!decoded.ok) throw new Error(`datagram ${i} does not decode`);
    const { peerId, messages: list } = decoded.datagram;
    let size = 2;
    for (const m of list) size += messageSize(m);
    if (offset + size > slab.length) offset = 0;
    offset = writeDatagram(slab, offset, peerId, list, size);
    messages += list.length;
    start = ends[i];
  }
};
const codecSeconds = [];
for (let i = 0; i < 3; i++) codecSeconds.push(time(codecLoop));

const sim = median(simSeconds);
const codec = median(codecSeconds);
process.stdout.write(
  `${JSON.stringify({ scenario: name, duration, preset, datagrams: ends.length, messages: messages / 3, simSeconds: sim, codecSeconds: codec, ratio: sim / codec, simSecondsAll: simSeconds, codecSecondsAll: codecSeconds })}\n`,
);
