// `bcsim soak` against `bcsim peer server`, on a virtual network in exact time
// (test/support/live-net.ts): the server's outbox and dead zone as the soak
// reads them from the wire come within 20 % of the model's figures for the same
// scenario and seed; against a fixed server there is no dead zone.
import { describe, expect, it } from 'vitest';
import { micros } from '../../src/core/engine/index.js';
import type { Micros } from '../../src/core/engine/index.js';
import {
  Soak,
  figureSeries,
  figureSummary,
  modelColumns,
  soakFindings,
  SOAK_FIGURES,
} from '../../src/live/soak/index.js';
import type { SoakColumn, SoakMeasured } from '../../src/live/soak/index.js';
import { loadScenario } from '../../src/model/scenario/load.js';
import { switchesFor } from '../../src/model/session/run.js';
import { VirtualNet, clientAddresses, netServer } from '../support/live-net.js';

/** The acceptance soak: ten minutes of three clients, in exact virtual time. */
const SOAK_MIN = 10;
const scenario = loadScenario('valentines', { sets: ['clients=3'] });

/** `serverDiesAtMin`: the server stops then, without a word (its datagrams stop). */
async function soakAgainst(
  preset: 'stock' | 'fixed',
  serverDiesAtMin: number | null = null,
  plantedBug: 'own-seq-low-byte' | 'none' = 'none',
): Promise<SoakMeasured> {
  const net = new VirtualNet();
  const server = netServer(net, {
    scenario,
    switches: { ...switchesFor(scenario, preset), plantedBug },
    seed: 1,
    durationS: null,
    clients: 3,
  });
  const soak = stockSoak(net);
  soak.start();
  if (serverDiesAtMin !== null) {
    net.advance(serverDiesAtMin * 60_000);
    server.stop('error');
  }
  net.advance(SOAK_MIN * 60_000 + 2_000 - (serverDiesAtMin ?? 0) * 60_000);
  net.close();
  return soak.done;
}

/** The soak's findings for a measured session, beside the models of the same scenario and seed. */
/** The soak a user starts against the virtual server: 3 stock clients from 127.0.0.1:40001 on. */
function stockSoak(net: VirtualNet, extra: { rejoinAfterUs?: Micros } = {}): Soak {
  return new Soak({
    scenario,
    switches: switchesFor(scenario, 'stock'),
    seed: 1,
    clients: 3,
    durationUs: micros(SOAK_MIN * 60_000_000),
    loss: null,
    sockets: clientAddresses('127.0.0.1:40001', 3).map((a) => net.socket(a)),
    server: { host: '127.0.0.1', port: 22101, family: 4 },
    clock: net.clock(),
    ...extra,
  });
}

function findingsOf(measured: SoakMeasured): string[] {
  const [stock, fixed] = modelColumns(scenario, 1, measured.endS);
  return soakFindings({
    server: '127.0.0.1:22101',
    scenario: 'valentines',
    seed: 1,
    clients: 3,
    clientMode: 'stock',
    repeated: null,
    loss: null,
    requestedS: SOAK_MIN * 60,
    measured,
    columns: [
      { id: 'server', label: 'your server (measured)', rows: measured.rows, endS: measured.endS, traceHash: null },
      stock,
      fixed,
    ],
  });
}

const peak = (rows: SoakColumn['rows'], name: string) =>
  figureSummary(figureSeries(rows, SOAK_FIGURES.find((f) => f.name === name) ?? SOAK_FIGURES[0])).max;

describe('bcsim soak against bcsim peer server', () => {
  it('a stock server: its outbox and dead zone within 20 % of the stock model, every minute measured', async () => {
    const measured = await soakAgainst('stock');
    expect(measured.stopReason).toBe('duration');
    expect(measured.clients.map((c) => c.joinedAtS !== null)).toEqual([true, true, true]);
    expect(measured.rows).toHaveLength(SOAK_MIN * 3 + 3); // the last, partial minute is the goodbye's
    const [stock] = modelColumns(scenario, 1, measured.endS);
    for (const name of ['serverAckOutboxPeak', 'serverDeadZonePeak']) {
      const server = peak(measured.rows, name) as number;
      const model = peak(stock.rows, name) as number;
      expect(model, name).toBeGreaterThan(0);
      expect(Math.abs(server - model) / model, `${name}: ${server} against ${model}`).toBeLessThanOrEqual(0.2);
    }
    expect(measured.rows.every((r) => r.serverAckBehaviour === 'two-pass' || r.startS === 0)).toBe(true);
  });

  it('a fixed server: no dead zone, and not two-pass', async () => {
    const measured = await soakAgainst('fixed');
    expect(peak(measured.rows, 'serverDeadZonePeak')).toBeNull();
    expect(measured.rows.filter((r) => r.startS > 0).every((r) => r.serverAckBehaviour !== 'two-pass')).toBe(true);
    expect(peak(measured.rows, 'serverAckOutboxPeak')).toBeGreaterThan(0);
  });

  it('a server that stops answering is reported with the time and its last datagrams, and the soak ends', async () => {
    const measured = await soakAgainst('stock', 3);
    expect(measured.cutShort).toBe(true);
    expect(measured.stopReason).toBe('connection-ended');
    // The clients' connections time out 45 s after the server's last datagram (docs/sources.md 19).
    expect(measured.endS).toBeGreaterThan(180 + 44);
    expect(measured.endS).toBeLessThan(180 + 50);
    expect(measured.silences).toHaveLength(1);
    const [silence] = measured.silences;
    expect(silence.lastDatagramS).toBeGreaterThan(179);
    expect(silence.lastDatagramS).toBeLessThanOrEqual(180);
    expect(silence.noticedS - silence.lastDatagramS).toBeGreaterThanOrEqual(15);
    expect(silence.noticedS - silence.lastDatagramS).toBeLessThan(16.01);
    expect(silence.endedS).toBeNull();
    expect(silence.lastDatagrams).toHaveLength(8);
    expect(silence.lastDatagrams[0].hex).toMatch(/^[0-9A-F]{2}( [0-9A-F]{2})*$/);
    expect(measured.clients.map((c) => c.state)).toEqual(['timed-out', 'timed-out', 'timed-out']);
    for (const c of measured.clients) expect(c.lastServerDatagramS).toBeCloseTo(silence.lastDatagramS, 0);
    const findings = findingsOf(measured);
    expect(
      findings.filter((f) =>
        /^Client \d's connection timed out: the server's last datagram to it came at 1[78]\d\.?\d* s/.test(f),
      ),
    ).toHaveLength(3);
    expect(findings.some((f) => /^The server stopped answering: its last datagram at/.test(f))).toBe(true);
  });

  it("a server whose seq counter has 8 bits: each client's first restart (255, then 0) is a finding", async () => {
    const measured = await soakAgainst('stock', null, 'own-seq-low-byte');
    const restarted = measured.clients.filter((c) => c.firstServerSeqRestart !== null);
    // Each client's count passes 255 about every 3 minutes (~85 reliable messages a minute).
    expect(measured.clients.map((c) => c.serverSeqRestarts)).toEqual([3, 3, 3]);
    for (const c of restarted) expect(c.firstServerSeqRestart).toMatchObject({ fromSeq: 255, toSeq: 0 });
    const findings = findingsOf(measured);
    const named = findings.filter((f) =>
      /^The server's reliable seq started again before the 16-bit wrap on 3 of 3 connections, first at 1\d\d–1\d\d s, each from 255 to 0, as a counter of 8 bits does\./.test(
        f,
      ),
    );
    expect(named, findings.join('\n')).toHaveLength(1);
    // A stock server's counter does not restart.
    expect((await soakAgainst('stock')).clients.every((c) => c.serverSeqRestarts === 0)).toBe(true);
  });

  it('--rejoin: clients a server dropped join again once it is back, and the soak runs to its end', async () => {
    const net = new VirtualNet();
    const serve = () =>
      netServer(net, { scenario, switches: switchesFor(scenario, 'stock'), seed: 1, durationS: null, clients: 3 });
    const first = serve();
    const soak = stockSoak(net, { rejoinAfterUs: micros(5_000_000) });
    soak.start();
    // The server dies at 3 min without a word and is back at 5 min: the clients time out 45 s after
    // its last datagram (docs/sources.md 19), try again every 45 s + 5 s, and get in once it is back.
    net.advance(3 * 60_000);
    first.stop('error');
    net.advance(2 * 60_000);
    serve();
    net.advance((SOAK_MIN - 5) * 60_000 + 2_000);
    net.close();
    const measured = await soak.done;
    expect(measured.stopReason).toBe('duration');
    expect(measured.rejoins).toBe(measured.clients.length - 3);
    const byClient = (k: number) => measured.clients.filter((c) => c.client === k);
    for (const k of [1, 2, 3]) {
      const [before, ...after] = byClient(k);
      expect(before.state).toBe('timed-out');
      expect(before.lastServerDatagramS).toBeLessThanOrEqual(180);
      // The attempts while the server was gone timed out without a join; the last one joined after 5 min.
      const last = after.at(-1);
      expect(last?.joinedAtS).toBeGreaterThan(300);
      expect(last?.lastServerDatagramS).toBeGreaterThan(SOAK_MIN * 60 - 5);
      expect(after.slice(0, -1).every((c) => c.joinedAtS === null && c.state === 'timed-out')).toBe(true);
    }
    // The minute rows cover the new connections too, and stop at the minute a connection ended in:
    // a gap never runs on past its connection's end.
    expect(new Set(measured.rows.map((r) => r.connection)).size).toBeGreaterThan(3);
    for (const c of measured.clients.filter((x) => x.state === 'timed-out')) {
      const rows = measured.rows.filter((r) => r.connection === c.connection);
      expect(rows.length).toBeGreaterThan(0);
      expect(Math.max(...rows.map((r) => r.startS))).toBeLessThan(SOAK_MIN * 60 - 60);
      expect(Math.max(...rows.map((r) => r.longestServerGapMs ?? 0))).toBeLessThanOrEqual(62_000);
    }
  });
});
