// The real-time peer's timer accuracy (scheduled against actual send time, p50
// and p99):
// `bcsim peer server` and `bcsim peer client` (fixed) on loopback for a join
// and combat, each reporting in its bcsim.live/1 summary how late every timer
// dispatch and every datagram send was against its scheduled time, and the
// CPU each process used. Build first: npx tsc -p tsconfig.json.
//
//   node bench/peer-timers.mjs [--seconds 30] [--json]
import { execFileSync, spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist/cli/main.js');
const i = process.argv.indexOf('--seconds');
const SECONDS = i < 0 ? 30 : Number(process.argv[i + 1]);

const port = await new Promise((resolve) => {
  const s = createSocket('udp4');
  s.bind(0, '127.0.0.1', () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});

function bcsim(args) {
  const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  const exited = new Promise((resolve) => child.on('close', () => resolve(out)));
  const started = new Promise((resolve) => child.stderr.on('data', () => err.includes('bcsim peer') && resolve()));
  return { child, exited, started };
}

const hz = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
const server = bcsim([
  'peer',
  'server',
  '--listen',
  `127.0.0.1:${port}`,
  '--mode',
  'fixed',
  '--duration',
  `${SECONDS + 6}s`,
  '--json',
]);
await server.started;
const client = bcsim([
  'peer',
  'client',
  '--connect',
  `127.0.0.1:${port}`,
  '--mode',
  'fixed',
  '--duration',
  `${SECONDS}s`,
  '--json',
]);
// /proc/<pid>/stat fields 14 and 15: user and system ticks; sampled, as the process cannot be read after it exits.
const cpu = (pid) => {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) / hz;
  } catch {
    return 0; // it has exited
  }
};
let clientCpu = 0;
const sampler = setInterval(() => (clientCpu = Math.max(clientCpu, cpu(client.child.pid))), 200);
const [c, s] = (await Promise.all([client.exited, server.exited])).map((out) => JSON.parse(out));
clearInterval(sampler);
const pick = (j) => ({
  wallSeconds: j.wallSeconds,
  datagramsSent: j.wire.sent,
  sendLatenessUs: j.timers.sendLatenessUs,
  dispatchLatenessUs: j.timers.dispatchLatenessUs,
});
const result = { seconds: SECONDS, client: { ...pick(c), cpuSeconds: clientCpu }, server: pick(s) };
if (process.argv.includes('--json')) console.log(JSON.stringify(result, null, 2));
else {
  for (const [name, r] of [
    ['client', result.client],
    ['server', result.server],
  ]) {
    const f = (x) => `p50 ${x.p50} µs, p99 ${x.p99} µs, max ${x.max} µs (${x.count})`;
    console.log(`${name}: sends late ${f(r.sendLatenessUs)}; timer dispatch late ${f(r.dispatchLatenessUs)}`);
  }
  console.log(
    `client CPU: ${clientCpu.toFixed(2)} s over ${result.client.wallSeconds} s (${((100 * clientCpu) / result.client.wallSeconds).toFixed(1)} % of one core, start-up included)`,
  );
}
