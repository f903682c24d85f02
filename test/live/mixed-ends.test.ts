// Each end judged by its own wire, live: a fixed `bcsim peer client` through
// `bcsim proxy --pcap` to a stock `bcsim peer server`, real processes on
// loopback. The proxy's summary, `bcsim analyze` of its capture, and each
// peer's view of its counterpart must read the client's ACK behaviour as
// single-pass and the server's as two-pass, and put each end's ACK-outbox peak
// within 20 % (at least one entry) of what that end's own summary reports.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureAnalysis, OutboxEstimate, WireAnalysis } from '../../src/analysis/capture/index.js';
import { cli } from '../support/cli.js';
import { bcsim, freeUdpPort } from '../support/live.js';

interface Gauge {
  max: number;
  final: number;
}

interface LiveJson {
  peer: { connections: Record<string, { joinedAtS: number | null; ackOutbox: Gauge; ackOutboxDeadZone: Gauge }> };
  counterpart: { analysis: WireAnalysis };
}

interface ProxyJson {
  analysis: WireAnalysis;
}

const CLIENT_S = 24;
const dir = mkdtempSync(join(tmpdir(), 'bcsim-mixed-ends-'));
const pcap = join(dir, 'proxy.pcapng');
let client: LiveJson;
let server: LiveJson;
let proxy: ProxyJson;
let proxyText: string;
let analyzed: CaptureAnalysis;

beforeAll(async () => {
  const [serverPort, proxyPort] = [await freeUdpPort(), await freeUdpPort()];
  const s = bcsim(
    [
      'peer',
      'server',
      '--listen',
      `127.0.0.1:${serverPort}`,
      '--mode',
      'stock',
      '--duration',
      `${CLIENT_S + 6}s`,
      '--json',
    ],
    150_000,
  );
  const p = bcsim(
    [
      'proxy',
      '--listen',
      `127.0.0.1:${proxyPort}`,
      '--upstream',
      `127.0.0.1:${serverPort}`,
      '--duration',
      `${CLIENT_S + 4}s`,
      '--pcap',
      pcap,
      '--out',
      join(dir, 'proxy.json'),
    ],
    150_000,
  );
  await Promise.all([s.stderrSays('waiting for clients'), p.stderrSays('listening on')]);
  const c = bcsim(
    [
      'peer',
      'client',
      '--connect',
      `127.0.0.1:${proxyPort}`,
      '--mode',
      'fixed',
      '--duration',
      `${CLIENT_S}s`,
      '--json',
    ],
    150_000,
  );
  const [cr, pr, sr] = await Promise.all([c.exited, p.exited, s.exited]);
  for (const run of [cr, pr, sr]) expect(run.signal, run.stderr).toBeNull();
  client = JSON.parse(cr.stdout) as LiveJson;
  server = JSON.parse(sr.stdout) as LiveJson;
  proxyText = pr.stdout;
  const { readFileSync } = await import('node:fs');
  proxy = JSON.parse(readFileSync(join(dir, 'proxy.json'), 'utf8')) as ProxyJson;
  const a = await cli(['analyze', pcap, '--json']);
  expect(a.code, a.stderr).toBe(0);
  analyzed = JSON.parse(a.stdout) as CaptureAnalysis;
}, 180_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Each peer's own figures for its one connection. */
function own(summary: LiveJson): { ackOutbox: Gauge; ackOutboxDeadZone: Gauge } {
  const connections = Object.values(summary.peer.connections);
  expect(connections).toHaveLength(1);
  expect(connections[0].joinedAtS, 'the join completed').not.toBeNull();
  return connections[0];
}

/** Within 20 % of the end's own figure, or one entry where 20 % is less than one. */
function near(estimate: number | null, truth: number): boolean {
  return estimate !== null && Math.abs(estimate - truth) <= Math.max(1, 0.2 * truth);
}

function expectEnds(analysis: WireAnalysis, where: string): void {
  expect(analysis.connections, where).toHaveLength(1);
  const ends = analysis.connections[0].ackOutbox;
  const check = (
    o: OutboxEstimate,
    rule: string,
    truth: { ackOutbox: Gauge; ackOutboxDeadZone: Gauge },
    who: string,
  ) => {
    expect(o.behaviour.rule, `${where}: the ${who}'s behaviour (${o.behaviour.summary})`).toBe(rule);
    expect(
      near(o.peak, truth.ackOutbox.max),
      `${where}: the ${who}'s ACK-outbox peak ${o.peak}, its own max ${truth.ackOutbox.max}`,
    ).toBe(true);
  };
  check(ends.client, 'single-pass', own(client), 'fixed client');
  check(ends.server, 'two-pass', own(server), 'stock server');
  // A dead zone only for the two-pass end, near the server's own.
  expect(ends.client.deadZone, where).toBeNull();
  expect(own(client).ackOutboxDeadZone.max).toBe(0);
  expect(
    near(ends.server.deadZone?.peak ?? null, own(server).ackOutboxDeadZone.max),
    `${where}: dead zone ${ends.server.deadZone?.peak}, the server's own ${own(server).ackOutboxDeadZone.max}`,
  ).toBe(true);
}

describe('a fixed client, a stock server, the proxy between: each end judged by its own wire', () => {
  it('the two ends really differ: the stock server keeps a dead zone, the fixed client none', () => {
    expect(own(server).ackOutboxDeadZone.max).toBeGreaterThan(0);
    expect(own(server).ackOutbox.max).toBeGreaterThan(own(client).ackOutbox.max);
  });

  it('bcsim analyze of the proxy capture', () => {
    expect(analyzed.ackRuleForced).toBeNull();
    expectEnds(analyzed, 'analyze proxy.pcapng');
  });

  it("the proxy's own summary, JSON and text", () => {
    expectEnds(proxy.analysis, 'proxy summary');
    expect(proxyText).toMatch(
      /ACK-outbox estimate: client peak \d+ \(single-pass\), server peak \d+, dead zone \d+ \(two-pass\)/,
    );
  });

  it("each peer's analysis of the wire it saw (the live summary's counterpart)", () => {
    expectEnds(client.counterpart.analysis, "the client's counterpart analysis");
    expectEnds(server.counterpart.analysis, "the server's counterpart analysis");
  });
});
