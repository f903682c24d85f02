// The proxy's added latency per datagram (p50, p99) with no link faults, at
// 1,000 datagrams/s, and the CPU it uses at that rate.
//
// One process sends encrypted BC datagrams (a reliable game message with an
// ACK, as in combat) at 1,000/s to a receiver socket, first directly, then
// through a spawned `node dist/cli/main.js proxy` (perfect links). The one-way
// time of each datagram is measured in this process (same clock at both ends);
// the proxy's added latency is the proxied percentile minus the direct one.
// The proxy's CPU is read from /proc/<pid>/stat (utime + stime) over the
// proxied phase. Build first: npx tsc -p tsconfig.json.
//
//   node bench/proxy-latency.mjs [--rate 1000] [--seconds 10] [--json]
import { spawn, execFileSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { encodeDatagram, encrypt, decrypt } = await import(join(root, 'dist/core/codec/index.js'));

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
};
const RATE = arg('--rate', 1000);
const SECONDS = arg('--seconds', 10);
const WARMUP = Math.min(RATE, 1000); // datagrams left out of the figures
const LOCAL = '127.0.0.1';
const nowUs = () => Number(process.hrtime.bigint() / 1000n);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function datagram(seq) {
  const payload = new Uint8Array(40).fill(seq & 0xff);
  const r = encodeDatagram({
    peerId: 2,
    messages: [
      { type: 0x01, seq: (seq + 7) & 0xffff, flags: 0, fragIndex: null },
      {
        type: 0x32,
        reliable: true,
        ordered: true,
        fragment: false,
        seq: seq & 0xffff,
        fragIndex: null,
        fragCount: null,
        payload,
      },
    ],
  });
  if (!r.ok) throw new Error('encode');
  return encrypt(r.bytes);
}

async function bind() {
  const s = createSocket('udp4');
  await new Promise((r) => s.bind(0, LOCAL, r));
  return s;
}

/** Sends RATE/s for SECONDS to `port`; `receiver` records arrival times. Returns one-way times (µs) after the warm-up. */
async function phase(sender, receiver, port) {
  const total = RATE * SECONDS;
  const sentAt = new Float64Array(total).fill(NaN);
  const gotAt = new Float64Array(total).fill(NaN);
  const onMessage = (msg) => {
    const plain = decrypt(msg);
    const seq = plain[9] | (plain[10] << 8); // the game message's seq: header 2, ACK 4, type 1, flags_len 2
    if (seq < total && Number.isNaN(gotAt[seq])) gotAt[seq] = nowUs();
  };
  receiver.on('message', onMessage);
  const packets = Array.from({ length: total }, (_, i) => datagram(i));
  const start = nowUs();
  let next = 0;
  while (next < total) {
    const due = Math.floor(((nowUs() - start) * RATE) / 1e6) + 1;
    while (next < Math.min(due, total)) {
      sentAt[next] = nowUs();
      sender.send(packets[next], port, LOCAL);
      next++;
    }
    await sleep(1);
  }
  await sleep(300);
  receiver.off('message', onMessage);
  const times = [];
  let lost = 0;
  for (let i = WARMUP; i < total; i++) {
    if (Number.isNaN(gotAt[i])) lost++;
    else times.push(gotAt[i] - sentAt[i]);
  }
  times.sort((a, b) => a - b);
  const pct = (p) => times[Math.min(times.length - 1, Math.floor(p * (times.length - 1)))];
  return {
    samples: times.length,
    lost,
    p50: pct(0.5),
    p99: pct(0.99),
    max: times[times.length - 1],
    wallS: (nowUs() - start) / 1e6,
  };
}

function cpuTicks(pid) {
  // Fields 14 and 15 of /proc/<pid>/stat (after the parenthesised name): utime, stime in clock ticks.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

const receiver = await bind();
const sender = await bind();
const direct = await phase(sender, receiver, receiver.address().port);

const probe = await bind();
const listenPort = probe.address().port;
probe.close();
const proxy = spawn(
  process.execPath,
  [
    join(root, 'dist/cli/main.js'),
    'proxy',
    '--listen',
    `${LOCAL}:${listenPort}`,
    '--upstream',
    `${LOCAL}:${receiver.address().port}`,
    '--json',
  ],
  {
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
let proxyOut = '';
proxy.stdout.on('data', (c) => (proxyOut += c));
// Wait until the proxy relays (a datagram outside the measured range).
let ready = false;
const onReady = () => (ready = true);
receiver.on('message', onReady);
for (let i = 0; !ready && i < 500; i++) {
  sender.send(datagram(65000), listenPort, LOCAL);
  await sleep(10);
}
receiver.off('message', onReady);
if (!ready) throw new Error('the proxy did not relay');
// The measured phase needs a fresh client (seq numbers restart): a new sender socket.
const sender2 = await bind();
const hz = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
const ticks0 = cpuTicks(proxy.pid);
const t0 = nowUs();
const proxied = await phase(sender2, receiver, listenPort);
const cpuS = (cpuTicks(proxy.pid) - ticks0) / hz;
const wallS = (nowUs() - t0) / 1e6;
proxy.kill('SIGTERM');
await new Promise((r) => proxy.on('close', r));
const summary = JSON.parse(proxyOut);

const result = {
  rate: RATE,
  seconds: SECONDS,
  directUs: direct,
  proxiedUs: proxied,
  addedUs: { p50: proxied.p50 - direct.p50, p99: proxied.p99 - direct.p99 },
  proxyCpu: { seconds: cpuS, wallSeconds: wallS, percentOfOneCore: (100 * cpuS) / wallS },
  proxyForwarded: summary.totals.links.clientToServer.delivered,
};
if (process.argv.includes('--json')) console.log(JSON.stringify(result, null, 2));
else {
  console.log(`rate ${RATE}/s for ${SECONDS} s (first ${WARMUP} datagrams left out)`);
  console.log(`direct   one-way p50 ${direct.p50} µs  p99 ${direct.p99} µs  max ${direct.max} µs  lost ${direct.lost}`);
  console.log(
    `proxied  one-way p50 ${proxied.p50} µs  p99 ${proxied.p99} µs  max ${proxied.max} µs  lost ${proxied.lost}`,
  );
  console.log(`added by the proxy: p50 ${result.addedUs.p50} µs, p99 ${result.addedUs.p99} µs`);
  console.log(
    `proxy CPU: ${cpuS.toFixed(2)} s over ${wallS.toFixed(2)} s = ${result.proxyCpu.percentOfOneCore.toFixed(1)}% of one core (forwarded ${result.proxyForwarded})`,
  );
}
for (const s of [receiver, sender, sender2]) s.close();
