// Every live command under a flood of garbage (10 s; the client 20 s, to finish
// its join), run as a user runs it (the bin file, its heap cap included), all four side by side: the flood is counted in
// each summary (so it fired), memory stays bounded, the exit code is the one the
// summary implies, and the summary is written. How late each exits after its
// --duration is printed, never asserted. BCSIM_FLOOD_SECONDS=300 makes it the
// 5-minute measurement of bench/README.md; BCSIM_FLOOD_RATE sets the rate.
import { describe, expect, it } from 'vitest';
import { createSocket } from 'node:dgram';
import { TYPE_CONNECT_ACK, encodeDatagram, encrypt } from '../../src/core/codec/index.js';
import type { ConformOutcome, ConformReport, LiveSummary, ProxySummary } from '../../src/live/index.js';
import { joinSteps } from '../../src/model/traffic/index.js';
import { referenceServer } from '../support/conform-campaign.js';
import { flood, floodRelay, watchMemory } from '../support/flood.js';
import type { MemoryFigures } from '../support/flood.js';
import { bcsim, freeUdpPort } from '../support/live.js';
import type { Running } from '../support/live.js';

const FLOOD_S = Number(process.env.BCSIM_FLOOD_SECONDS ?? 10);
const RATE = Number(process.env.BCSIM_FLOOD_RATE ?? 10_000);
/** Peak resident memory allowed each command: the wire log's 64 MiB budget and the rest of a run, with room. */
const RSS_LIMIT_MB = 300;
/**
 * The flooded peers' wire-log budget: small enough that the flood fills it however slowly a busy
 * machine lets the flooder send (at the default 64 MiB a loaded CI run once never filled it).
 */
const WIRE_LOG_MB = '4';
/** A process gets this long past its duration before the test gives up on it (it is then killed). */
const GRACE_MS = 90_000;
const TEST_MS = FLOOD_S * 1000 + 2 * GRACE_MS;
/** The live scenario's join takes about 8 s: the client plays long enough to finish it under the flood. */
const CLIENT_S = Math.max(FLOOD_S, 20);
/** conform has no --duration: the short run judges two quick cases, the long one the whole campaign. */
const CONFORM_CASES = FLOOD_S > 60 ? [] : ['--cases', 'keepalive-echo,disconnect'];

interface Measured {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly memory: MemoryFigures;
  /** Seconds from its start line on stderr (start-up done, the run's clock started) to its exit. */
  readonly wallS: number;
}

/** Runs `bcsim args…` (the bin) to its end, sampling its memory; `ready` runs once `startLine` is on stderr. */
async function measured(
  args: readonly string[],
  startLine: string,
  ready?: (run: Running) => Promise<void>,
): Promise<Measured> {
  const run = bcsim(args, FLOOD_S * 1000 + GRACE_MS, true);
  const memory = watchMemory(run.child.pid as number);
  let started = performance.now();
  await run.stderrSays(startLine);
  started = performance.now();
  await ready?.(run);
  const out = await run.exited;
  return { ...out, memory: memory.stop(), wallS: (performance.now() - started) / 1000 };
}

/** The checks every command shares, and one line of figures for the reader. */
function judge(name: string, m: Measured, floodSent: number, durationS: number | null): void {
  const late =
    durationS === null ? `ran ${m.wallS.toFixed(1)} s` : `exit ${(m.wallS - durationS).toFixed(1)} s after --duration`;
  console.log(
    `flood at ${RATE}/s: ${name}: peak RSS ${m.memory.peakMb.toFixed(0)} MB (VmHWM, ${m.memory.samples} samples), ${late}, ${floodSent} garbage datagrams sent`,
  );
  expect(m.signal, m.stderr).toBeNull();
  expect(floodSent).toBeGreaterThan(0);
  // A sampler that read nothing would pass any limit: a Node process holds tens of MB.
  expect(m.memory.samples).toBeGreaterThan(0);
  expect(m.memory.peakMb).toBeGreaterThan(20);
  expect(m.memory.peakMb).toBeLessThan(RSS_LIMIT_MB);
}

/** The datagram a client opens with: a Connect, peer id 0xFF (no slot yet). */
function connectDatagram(): Uint8Array {
  const payload = joinSteps()[0].messages[0].payload;
  const r = encodeDatagram({
    peerId: 0xff,
    messages: [
      {
        type: TYPE_CONNECT_ACK,
        reliable: true,
        ordered: true,
        fragment: false,
        seq: 0,
        fragIndex: null,
        fragCount: null,
        payload,
      },
    ],
  });
  if (!r.ok) throw new Error(r.error.reason);
  return encrypt(r.bytes);
}

describe.concurrent('every live command under a flood of garbage', () => {
  it('peer client: flooded from its server address by a relay in front of bcsim peer server', {
    timeout: TEST_MS,
  }, async () => {
    const serverPort = await freeUdpPort();
    const server = bcsim(
      ['peer', 'server', '--listen', `127.0.0.1:${serverPort}`, '--mode', 'fixed', '--duration', `${CLIENT_S + 60}s`],
      FLOOD_S * 1000 + GRACE_MS,
    );
    await server.stderrSays('waiting for clients');
    const relay = await floodRelay({ port: serverPort }, { ratePerSecond: RATE, seed: 1 });
    const client = await measured(
      [
        'peer',
        'client',
        '--connect',
        `127.0.0.1:${relay.port}`,
        '--mode',
        'fixed',
        '--duration',
        `${CLIENT_S}s`,
        '--wire-log-mb',
        WIRE_LOG_MB,
        '--json',
      ],
      'bcsim peer client:',
    );
    await relay.stop();
    server.child.kill('SIGINT');
    await server.exited;
    judge(`peer client --duration ${CLIENT_S}s`, client, relay.sent, CLIENT_S);
    const summary = JSON.parse(client.stdout) as LiveSummary & {
      conformanceCounts: { failed: number };
      conformance: Array<{ rule: string; status: string }>;
    };
    expect(client.code).toBe(summary.conformanceCounts.failed === 0 ? 0 : 1);
    // The garbage between the server's datagrams did not keep the client from joining.
    expect(summary.conformance.find((r) => r.rule === 'join-completes')?.status).toBe('pass');
    expect(summary.wire.unreadable.total).toBeGreaterThan(0);
    expect(summary.wire.unreadable.bySource[0].address).toBe(`127.0.0.1:${relay.port}`);
    // The garbage filled its share of the wire log, and the rest was counted, not kept.
    expect(summary.wire.notLogged).toBeGreaterThan(0);
    expect(relay.relayed).toBeGreaterThan(0);
  });

  it('peer server: flooded from one address that opened with a Connect', { timeout: TEST_MS }, async () => {
    const port = await freeUdpPort();
    let sent = 0;
    const server = await measured(
      [
        'peer',
        'server',
        '--listen',
        `127.0.0.1:${port}`,
        '--duration',
        `${FLOOD_S}s`,
        '--wire-log-mb',
        WIRE_LOG_MB,
        '--json',
      ],
      'waiting for clients',
      async (run) => {
        const f = await flood({ port }, { ratePerSecond: RATE, seed: 2, opening: connectDatagram() });
        await run.exited;
        sent = f.sent;
        await f.stop();
      },
    );
    judge(`peer server --duration ${FLOOD_S}s`, server, sent, FLOOD_S);
    const summary = JSON.parse(server.stdout) as LiveSummary & { conformanceCounts: { failed: number } };
    // The flooder holds a client's place and never joins: join-completes fails.
    expect(server.code).toBe(1);
    expect(summary.conformanceCounts.failed).toBeGreaterThan(0);
    expect(summary.wire.unreadable.total).toBeGreaterThan(0);
    // Its garbage filled its share of the wire log, and the rest was counted, not kept.
    expect(summary.wire.notLogged).toBeGreaterThan(0);
  });

  it('proxy: flooded from 80 addresses, 64 of them taken for clients, the rest refused', {
    timeout: TEST_MS,
  }, async () => {
    const upstream = createSocket('udp4');
    await new Promise<void>((resolve) => upstream.bind(0, '127.0.0.1', resolve));
    let upstreamGot = 0;
    upstream.on('message', () => upstreamGot++);
    const port = await freeUdpPort();
    let sent = 0;
    const proxy = await measured(
      [
        'proxy',
        '--listen',
        `127.0.0.1:${port}`,
        '--upstream',
        `127.0.0.1:${upstream.address().port}`,
        '--duration',
        `${FLOOD_S}s`,
        '--json',
      ],
      'listening on',
      async (run) => {
        const f = await flood({ port }, { ratePerSecond: RATE, seed: 3, sources: 80 });
        await run.exited;
        sent = f.sent;
        await f.stop();
      },
    );
    upstream.close();
    judge(`proxy --duration ${FLOOD_S}s`, proxy, sent, FLOOD_S);
    expect(proxy.code).toBe(0);
    const summary = JSON.parse(proxy.stdout) as ProxySummary;
    expect(summary.totals.clients).toBe(64);
    expect(summary.totals.refused).toBeGreaterThan(0);
    expect(summary.unreadable.total).toBeGreaterThan(0);
    expect(summary.unreadable.otherSources).toBeGreaterThan(0);
    expect(summary.totals.undecodable).toBe(summary.unreadable.total);
    expect(upstreamGot).toBeGreaterThan(0);
  });

  it("conform: flooded from its server's address by a relay in front of the reference server", {
    timeout: TEST_MS,
  }, async () => {
    const server = await referenceServer(['--mode', 'fixed'], FLOOD_S * 1000 + GRACE_MS);
    const serverPort = Number(server.address.split(':')[1]);
    const relay = await floodRelay({ port: serverPort }, { ratePerSecond: RATE, seed: 4 });
    const conform = await measured(
      ['conform', '--server', `127.0.0.1:${relay.port}`, ...CONFORM_CASES, '--json'],
      'bcsim conform:',
    );
    await relay.stop();
    await server.stop();
    judge('conform', conform, relay.sent, null);
    const report = JSON.parse(conform.stdout) as ConformReport & { outcome: ConformOutcome };
    const { pass, fail, notExercised } = report.counts;
    console.log(
      `conform under the flood: ${pass} passed, ${fail} failed, ${notExercised} not exercised; first line: ${report.outcome.firstLine}`,
    );
    expect(conform.code).toBe(report.outcome.ok ? 0 : 1);
    expect(report.wire.unreadable.total).toBeGreaterThan(0);
    expect(report.wire.unreadable.bySource[0].address).toBe(`127.0.0.1:${relay.port}`);
    expect(report.wire.readable).toBeGreaterThan(0);
    // Thousands of garbage datagrams a second against a session's few: said first, whatever the verdicts.
    expect(report.wire.unreadable.total).toBeGreaterThan(report.wire.readable);
    expect(report.outcome.firstLine).toContain("more of the server's datagrams were unreadable than readable");
  });
});
