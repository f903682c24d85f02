// The scheme scenarios: the built-ins, their file format,
// how the shared workload becomes BC and R-Type traffic, and the side-by-side
// figures: plausible, and the same bytes for the same seed.
import { describe, expect, it } from 'vitest';
import { dataHeaderBytes } from '../../src/core/codec/index.js';
import { schemesReportHtml, schemesSummaryJson, schemesTimeseriesCsv } from '../../src/analysis/report/index.js';
import { POSITION_PAYLOAD_BYTES } from '../../src/rtype/transport/index.js';
import { RTYPE_DEATHS } from '../../src/rtype/session/index.js';
import { listBuiltins } from '../../src/model/scenario/index.js';
import {
  BURST_WINDOW_S,
  STORE_ENTRY_BYTES,
  SchemeScenarioError,
  bcScenarioDocument,
  bcScenarioOf,
  isSchemeScenarioRef,
  listSchemeBuiltins,
  loadSchemeScenario,
  parseSchemeScenario,
  pendingEntryBytes,
  rtypeConfigOf,
  runSchemesSideBySide,
} from '../../src/rtype/schemes/index.js';
import type { SideBySideScenario } from '../../src/rtype/schemes/index.js';
import { cli } from '../support/cli.js';

const SIDE = loadSchemeScenario('schemes-side-by-side') as SideBySideScenario;

describe('scheme built-ins', () => {
  it('rtype-deaths and schemes-side-by-side, beside (not among) the BC built-ins', () => {
    expect(listSchemeBuiltins().map((b) => [b.name, b.scheme, b.duration, b.clients])).toEqual([
      ['rtype-deaths', 'rtype', '10m', 4],
      ['schemes-side-by-side', 'side-by-side', '10m', 4],
    ]);
    expect(listBuiltins().map((b) => b.name)).not.toContain('rtype-deaths');
    expect(isSchemeScenarioRef('rtype-deaths', process.cwd())).toBe(true);
    expect(isSchemeScenarioRef('long-session', process.cwd())).toBe(false);
    expect(isSchemeScenarioRef('scenarios/long-session.json', process.cwd())).toBe(false);
    expect(isSchemeScenarioRef('scenarios/schemes/rtype-deaths.json', process.cwd())).toBe(true);
  });

  it('rtype-deaths is the library default RTYPE_DEATHS: 4 clients, 10 min, 5 % loss, bursts of 8', () => {
    expect(rtypeConfigOf(loadSchemeScenario('rtype-deaths'), 'documented')).toEqual(RTYPE_DEATHS);
    expect(RTYPE_DEATHS.links.serverToClient.loss).toEqual({ model: 'bernoulli', probability: 0.05 });
    expect(RTYPE_DEATHS.workload.burstSize).toBe(8);
  });

  it('bcsim scenarios lists them after the BC ones, with how to run them; --json marks them', async () => {
    const text = (await cli(['scenarios'])).stdout;
    expect(text).toContain('rtype-deaths (10m, 4 clients, R-Type scheme: bcsim compare rtype-deaths)\n');
    expect(text).toContain(
      'schemes-side-by-side (10m, 4 clients, BC and R-Type side by side: bcsim compare schemes-side-by-side)\n',
    );
    expect(text.indexOf('valentines (')).toBeLessThan(text.indexOf('rtype-deaths ('));
    const json = JSON.parse((await cli(['scenarios', '--json'])).stdout) as Array<{ name: string; scheme?: string }>;
    expect(json.filter((b) => b.scheme !== undefined).map((b) => `${b.name}:${b.scheme}`)).toEqual([
      'rtype-deaths:rtype',
      'schemes-side-by-side:side-by-side',
    ]);
  });
});

describe('the scheme-scenario format', () => {
  const bad = (value: unknown) => () => parseSchemeScenario(JSON.stringify(value), 'f.json');
  it('fills defaults and refuses a bad field with its path', () => {
    const s = parseSchemeScenario('{"name":"mini","scheme":"side-by-side"}', 'f.json');
    expect(s).toMatchObject({
      durationMs: 600_000,
      seed: 1,
      clients: 4,
      link: { latencyMs: 30, jitterMs: 5, loss: 0.05 },
      tcpLatencyMs: 40,
    });
    expect(bad({ name: 'x', scheme: 'rtype', link: { jitterMs: 40 } })).toThrow(
      'f.json: link.jitterMs: expected a number from 0 to 30, got 40',
    );
    expect(bad({ name: 'X Y', scheme: 'rtype' })).toThrow(SchemeScenarioError);
    expect(bad({ name: 'x', scheme: 'rtype', workload: { updatesPerFrame: 1 } })).toThrow(
      'f.json: workload.updatesPerFrame: unknown key',
    );
    expect(bad([1])).toThrow('f.json: expected a JSON object, got [1]');
    expect(() => parseSchemeScenario('{"name":"x","scheme":"rtype","seed":1,"seed":2}', 'f.json')).toThrow(
      'duplicate key "seed"',
    );
  });
});

describe('a network outage in a scheme scenario', () => {
  it("cuts every link of both schemes, and R-Type's TCP channel, over the same window", () => {
    const s = parseSchemeScenario(
      '{"name":"cut","scheme":"side-by-side","link":{"outages":[{"start":"5m","end":"5m10s"}]}}',
      'f.json',
    ) as SideBySideScenario;
    expect(s.link.outages).toEqual([{ startMs: 300_000, endMs: 310_000 }]);
    expect((bcScenarioDocument(s).link as { both: { outages: unknown } }).both.outages).toEqual([
      { start: 300, end: 310 },
    ]);
    const config = rtypeConfigOf(s, 'repaired');
    expect(config.links.serverToClient.outages).toEqual([{ startMs: 300_000, endMs: 310_000 }]);
    expect(config.links.clientToServer.outages).toEqual([{ startMs: 300_000, endMs: 310_000 }]);
    expect(config.tcp.outages).toEqual([{ startMs: 300_000, endMs: 310_000 }]);
    expect(bcScenarioOf(s).link.clientToServer.outages).toHaveLength(1);
    expect(() =>
      parseSchemeScenario('{"name":"cut","scheme":"rtype","link":{"outages":[{"start":"5m","end":"4m"}]}}', 'f.json'),
    ).toThrow('f.json: link.outages[0].end: expected a time after start (5m), got "4m"');
  });
});

describe('the shared workload as BC traffic', () => {
  it('critical events are server reliable messages, bursts a 0.1 s phase of k, updates 16-byte StateUpdates', () => {
    const doc = bcScenarioDocument(SIDE) as {
      traffic: { phases: Array<Record<string, unknown> | string>; repeatFrom: number };
      clients: number;
    };
    const [join, steady, burst] = doc.traffic.phases as [
      string,
      Record<string, number | string>,
      Record<string, number | string>,
    ];
    expect(join).toBe('join');
    expect(doc.traffic.repeatFrom).toBe(1);
    expect(steady).toMatchObject({
      kind: 'combat',
      reliablePerSecond: 1,
      clientShare: 0,
      arrival: 'poisson',
      stateUpdatesPerSecond: 30,
    });
    expect(burst).toMatchObject({
      kind: 'combat',
      duration: BURST_WINDOW_S,
      reliablePerSecond: 8 / BURST_WINDOW_S,
      clientShare: 0,
      arrival: 'periodic',
    });
    // One burst every 60 / burstsPerMinute s.
    expect((steady.duration as number) + (burst.duration as number)).toBeCloseTo(30, 9);
    expect(steady.stateUpdateBytes).toEqual([dataHeaderBytes(false, false, null) + POSITION_PAYLOAD_BYTES, 16]);
    const scenario = bcScenarioOf(SIDE);
    expect(scenario.clients).toBe(4);
  });
});

describe('schemes side by side: the figures', () => {
  const cmp = runSchemesSideBySide(SIDE, { durationMs: 60_000 });
  const col = (id: string) => cmp.columns.find((c) => c.id === id)!.figures;

  it('are plausible for the workload and the links', () => {
    expect(cmp.columns.map((c) => c.label)).toEqual(['BC stock', 'BC fixed', 'R-Type documented', 'R-Type repaired']);
    for (const c of cmp.columns) {
      const f = c.figures;
      expect(f.critical.delivered + f.critical.lost + f.critical.inFlight, c.label).toBe(f.critical.due);
      expect(f.critical.due, c.label).toBeGreaterThan(4 * 50); // 4 clients, > 50 events each in a minute
      expect(f.critical.lost, c.label).toBe(0);
      // The links lose 5 % each way: updates arrive 95 % of the time, give or take.
      expect(f.unreliable.deliveredShare, c.label).toBeGreaterThan(0.92);
      expect(f.unreliable.deliveredShare, c.label).toBeLessThan(0.98);
      // No critical event arrives before one link latency (30 ± 5 ms).
      expect(f.latencyMs.p50, c.label).toBeGreaterThanOrEqual(25);
      expect(f.latencyMs.p99, c.label).toBeGreaterThanOrEqual(f.latencyMs.p50);
      expect(f.wire.totalBytes, c.label).toBe(
        f.wire.serverToClientBytes + f.wire.clientToServerBytes + f.wire.sideChannelBytes,
      );
      expect(f.memory.serverPeakBytes, c.label).toBeGreaterThanOrEqual(f.memory.serverFinalBytes);
      expect(f.memory.serverPeakBytes, c.label).toBeGreaterThan(0);
    }
    // BC bundles StateUpdates into one datagram per 95 ms update; R-Type sends a datagram per update.
    expect(col('rtype-repaired').wire.datagrams).toBeGreaterThan(2 * col('bc-fixed').wire.datagrams);
    // BC confirms inside its UDP datagrams; R-Type over TCP.
    expect(col('bc-stock').wire.sideChannelBytes).toBe(0);
    expect(col('rtype-documented').wire.sideChannelBytes).toBeGreaterThan(0);
    // BC's first send waits for the next update; an R-Type death leaves with its frame.
    expect(col('bc-fixed').latencyMs.p50).toBeGreaterThan(col('rtype-repaired').latencyMs.p50);
    // documented re-sends every tick until the TCP confirmation is back: copies the client already had.
    expect(col('rtype-documented').critical.duplicates).toBeGreaterThan(0);
    expect(col('rtype-repaired').critical.duplicates).toBe(0);
    // R-Type memory is the store and the pending lists of the document's data structures.
    const summary = cmp.columns[3].rtype!;
    expect(col('rtype-repaired').memory.serverPeakBytes).toBeGreaterThanOrEqual(summary.store.peak * STORE_ENTRY_BYTES);
    expect(col('rtype-repaired').memory.serverFinalBytes).toBe(
      summary.store.final * STORE_ENTRY_BYTES +
        summary.pending.finalTotal * pendingEntryBytes({ resendTimer: 'per-packet' }),
    );
  });

  it('are deterministic: the same seed gives the same bytes, another seed others', () => {
    const again = runSchemesSideBySide(SIDE, { durationMs: 60_000 });
    expect(schemesSummaryJson(again)).toBe(schemesSummaryJson(cmp));
    expect(schemesTimeseriesCsv(again)).toBe(schemesTimeseriesCsv(cmp));
    expect(schemesReportHtml(again)).toBe(schemesReportHtml(cmp));
    const other = runSchemesSideBySide(SIDE, { durationMs: 60_000, seed: 2 });
    expect(other.columns.map((c) => c.traceHash)).not.toEqual(cmp.columns.map((c) => c.traceHash));
  });
});
